"""The bounded loader for bodies that repeat their large members, remembering what it checked.

A client of the AP-1 scoring routes sends the same sealed inputs (about 80 KB)
with every execution record it scores; parsing and checking them again costs
several times the scoring itself. :class:`MemberMemo` parses a JSON object
member by member with the standard library's C scanner and the loader's own
hooks, checks each member with the loader's walk, and remembers the text and
value of every large member that passed. When a later body holds the very same
text at a member's place, the remembered value is taken as it is: the scanner
reads a JSON object, array or string from its first to its last character and
nothing after it, so the same text always parses to the same value.

The loader's answer never changes: the memo returns a value only when it has
proved that :func:`apconform.core.jsonload.loads` accepts the body and builds
an equal value (same size, encoding, syntax, depth, node, number, key and
string rules; the node count and depth of the whole body follow from its
members'). Anything else (a document that is not an object, a repeated key, a
member the walk refuses, a syntax error) goes to that loader, which answers
or refuses exactly as always.

Remembered values are shared by every body that holds them: callers must not
change them. Callers may record what they proved about a remembered value in
its ``proofs`` (for instance that it passed a model as a given member), so the
next body holding it skips that work too.
"""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from json.decoder import scanstring  # type: ignore[attr-defined]  # the C function
from json.scanner import make_scanner
from typing import Any

from apconform.core.jsonload import _UTF8_BOM, DEFAULT_LIMITS, Limits, _Hooks, _Walker, loads
from apconform.core.jsonpath import Fault

__all__ = ["LoadedBody", "MemberMemo", "Remembered"]

_WHITESPACE = re.compile(r"[ \t\n\r]*")
"""What JSON (and the standard library's decoder) allows between tokens."""


def _skip(text: str, at: int) -> int:
    """The position of the first character at or after ``at`` that is not whitespace."""
    found = _WHITESPACE.match(text, at)
    assert found is not None  # the pattern matches the empty string
    return found.end()


class Remembered:
    """One remembered member: its exact text, its value, its node count, what was proved."""

    __slots__ = ("name", "nodes", "proofs", "text", "value")

    def __init__(self, name: str, text: str, value: Any, nodes: int) -> None:
        self.name = name
        self.text = text
        self.value = value
        self.nodes = nodes
        """Values below the member, counted as the loader's walk counts them."""
        self.proofs: set[Hashable] = set()


@dataclass
class LoadedBody:
    """A parsed body and, for each of its remembered members, the memo's entry for it."""

    value: Any
    remembered: dict[str, Remembered] = field(default_factory=dict)


class MemberMemo:
    """A bounded, thread-safe memo of checked top-level members of JSON object documents.

    ``max_chars`` bounds the text it keeps (values take several times as much memory as
    their text), ``max_entries`` the number of members; members shorter than ``min_chars``
    are not remembered. Objects, arrays and strings are remembered, never numbers, booleans
    or null (their text does not end where they do). The least recently used members are
    forgotten first.

    A member is remembered the second time its text is seen (``eager``: the first time):
    members that never repeat, such as the records a client scores one by one, are then
    parsed, used and freed at once instead of filling the memo and pushing out what does
    repeat; long-lived garbage would also make the garbage collector's full passes, which
    stop the worker, more frequent.
    """

    def __init__(
        self,
        *,
        max_chars: int = 4 * 1024 * 1024,
        max_entries: int = 512,
        min_chars: int = 0,
        eager: bool = False,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        self.max_chars = max_chars
        self.max_entries = max_entries
        self.min_chars = min_chars
        self.eager = eager
        self.limits = limits
        hooks = _Hooks(limits)
        decoder = json.JSONDecoder(
            object_pairs_hook=hooks.object_pairs,
            parse_float=hooks.parse_float,
            parse_int=hooks.parse_int,
            parse_constant=hooks.parse_constant,
        )
        self._scan: Callable[[str, int], tuple[Any, int]] = make_scanner(decoder)  # type: ignore[arg-type]
        self._by_name: dict[str, OrderedDict[str, Remembered]] = {}
        self._order: OrderedDict[tuple[str, str], Remembered] = OrderedDict()
        self._chars = 0
        self._seen: OrderedDict[int, None] = OrderedDict()
        """Hashes of the texts of members seen once (a collision only remembers one early)."""
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._order)

    def loads(self, data: bytes, *, source: str = "<input>") -> LoadedBody:
        """The body's value, as :func:`~apconform.core.jsonload.loads` gives it or refuses."""
        fast = self._object(data)
        if fast is not None:
            return fast
        return LoadedBody(loads(data, limits=self.limits, source=source))

    def _object(self, data: bytes) -> LoadedBody | None:
        """The body parsed member by member, or None when the loader must decide."""
        if len(data) > self.limits.max_bytes or data.startswith(_UTF8_BOM):
            return None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return None
        at = _skip(text, 0)
        if not text.startswith("{", at):
            return None
        at = _skip(text, at + 1)
        value: dict[str, Any] = {}
        loaded = LoadedBody(value)
        nodes = 1
        try:
            while True:
                if not text.startswith('"', at):
                    return None
                name, at = scanstring(text, at + 1, True)
                _Walker.key(name)
                if name in value:
                    return None
                at = _skip(text, at)
                if not text.startswith(":", at):
                    return None
                at = _skip(text, at + 1)
                member = self._recall(name, text, at) or self._read(name, text, at)
                if member is None:
                    return None
                entry, at, below = member
                value[name] = entry.value if isinstance(entry, Remembered) else entry
                if isinstance(entry, Remembered):
                    loaded.remembered[name] = entry
                nodes += 1 + below
                at = _skip(text, at)
                if text.startswith(",", at):
                    at = _skip(text, at + 1)
                    continue
                if text.startswith("}", at):
                    break
                return None
        except (ValueError, StopIteration, Fault, RecursionError):
            return None
        if _skip(text, at + 1) != len(text):
            return None
        if nodes > self.limits.max_nodes:
            return None
        return loaded

    def _recall(self, name: str, text: str, at: int) -> tuple[Remembered, int, int] | None:
        """The remembered member whose text stands at ``at``, if any."""
        known = self._by_name.get(name)
        if not known:
            return None
        with self._lock:
            candidates = list(known.values())
        for entry in reversed(candidates):
            if text.startswith(entry.text, at):
                with self._lock:
                    if (name, entry.text) in self._order:
                        self._order.move_to_end((name, entry.text))
                        known.move_to_end(entry.text)
                return entry, at + len(entry.text), entry.nodes
        return None

    def _read(self, name: str, text: str, at: int) -> tuple[Any, int, int] | None:
        """Parse and check one member at ``at``; remember it when it is large enough."""
        member, end = self._scan(text, at)
        walker = _Walker(self.limits)
        walker.nodes = 0
        walker.value(member, 1)  # a Fault goes to the caller, which lets the loader decide
        kind = type(member)
        if end - at < self.min_chars or kind not in (dict, list, str):
            return member, end, walker.nodes
        entry = Remembered(name, text[at:end], member, walker.nodes)
        if self.eager or self._seen_before(hash((name, entry.text))):
            self._keep(entry)
            return entry, end, entry.nodes
        return member, end, walker.nodes

    def _seen_before(self, key: int) -> bool:
        """Whether a member with this hash was seen (and not remembered); notes it if not."""
        with self._lock:
            if key in self._seen:
                del self._seen[key]
                return True
            self._seen[key] = None
            while len(self._seen) > 8 * self.max_entries:
                self._seen.popitem(last=False)
            return False

    def _keep(self, entry: Remembered) -> None:
        if len(entry.text) > self.max_chars:
            return
        key = (entry.name, entry.text)
        with self._lock:
            if key in self._order:
                return
            self._order[key] = entry
            self._by_name.setdefault(entry.name, OrderedDict())[entry.text] = entry
            self._chars += len(entry.text)
            while self._chars > self.max_chars or len(self._order) > self.max_entries:
                (name, old), _ = self._order.popitem(last=False)
                del self._by_name[name][old]
                self._chars -= len(old)
