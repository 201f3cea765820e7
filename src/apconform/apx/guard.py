"""The structural guard every APx input passes before any other check.

It applies the contract's bounds to an in-memory value exactly as the
reference kernel counts them: the root is at depth 0 and every value one
deeper than its container; no value may sit deeper than 32 and at most
100,000 values (scalars included, keys not) may be visited. It also refuses
NaN and infinities, containers that contain themselves, members named
``__proto__``, ``constructor`` or ``prototype``, and anything that is not
plain JSON. Two kit rules are added for Python callers: integers a double
cannot hold exactly and strings with lone surrogates are refused too (the
bounded loader already refuses both in documents).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from apconform.apx import errors
from apconform.apx.checks import MISSING, RESERVED
from apconform.apx.errors import ApxRefused, Collector
from apconform.core.errors import ErrorCode

__all__ = ["MAX_DEPTH", "MAX_NODES", "guard"]

MAX_DEPTH = 32
MAX_NODES = 100_000
_EXACT_INT = 2**53
_SURROGATE = re.compile("[\ud800-\udfff]")


class _Fault(Exception):
    def __init__(self, code: ErrorCode, detail: str, where: list[str | int]) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.where = where


class _Walk:
    """One depth-first pass in the reference kernel's order; scalars are checked inline."""

    __slots__ = ("ancestors", "count")

    def __init__(self) -> None:
        self.count = 1
        self.ancestors: set[int] = set()

    def container(self, node: dict[Any, Any] | list[Any], depth: int) -> None:
        """Check the members of ``node`` (itself already counted and checked) at ``depth``."""
        if not node:
            return
        marker = id(node)
        self.ancestors.add(marker)
        is_object = type(node) is dict
        if is_object:
            try:
                keys = "".join(node)
            except TypeError:
                raise _Fault(errors.GUARD_TYPE, "nonplain structured input", []) from None
            if not keys.isascii() and _SURROGATE.search(keys) is not None:
                raise _Fault(errors.GUARD_TYPE, "object key holds a lone surrogate", [])
            items: Any = node.items()  # type: ignore[union-attr]
        else:
            items = enumerate(node)
        too_deep = depth >= MAX_DEPTH
        count = self.count
        for key, child in items:
            if is_object and key in RESERVED:
                raise _Fault(errors.GUARD_RESERVED, "reserved JSON property", [key])
            count += 1
            if too_deep or count > MAX_NODES:
                raise _Fault(errors.GUARD_LIMIT, "JSON nesting or node limit exceeded", [key])
            kind = type(child)
            if kind is str:
                if not child.isascii() and _SURROGATE.search(child) is not None:
                    raise _Fault(errors.GUARD_TYPE, "string holds a lone surrogate", [key])
            elif kind is float:
                if child - child != 0.0:
                    raise _Fault(errors.GUARD_NONFINITE, "canonical value is not finite", [key])
            elif kind is dict or kind is list:
                if id(child) in self.ancestors:
                    raise _Fault(errors.GUARD_CYCLE, "cyclic structured input", [key])
                self.count = count
                try:
                    self.container(child, depth + 1)
                except _Fault as fault:
                    fault.where.append(key)
                    raise
                count = self.count
            elif kind is int:
                if not -_EXACT_INT <= child <= _EXACT_INT and float(child) != child:
                    raise _Fault(
                        errors.GUARD_TYPE,
                        "integer cannot be held exactly by a JSON number (a double)",
                        [key],
                    )
            elif child is not None and kind is not bool:
                raise _Fault(errors.GUARD_TYPE, "nonplain structured input", [key])
        self.count = count
        self.ancestors.discard(marker)


class _Suspect(Exception):
    """Raised by the fast scan at the first sign of trouble; the exact walk then names it."""


def _scan(node: dict[Any, Any] | list[Any], depth: int, seen: set[int], budget: list[int]) -> None:
    """A fast pass that only answers "certainly fine" (returns) or "look closer" (raises).

    It counts whole containers at once and checks keys in bulk, so it is several
    times faster than the exact walk; it never decides which fault comes first.
    """
    if not node:
        return
    budget[0] -= len(node)
    if depth >= MAX_DEPTH or budget[0] < 0:
        raise _Suspect
    marker = id(node)
    if marker in seen:
        raise _Suspect
    seen.add(marker)
    if type(node) is dict:
        keys = "".join(node)  # TypeError for a non-string key: caught by the caller
        if not RESERVED.isdisjoint(node) or not keys.isascii():
            raise _Suspect
        values: Any = node.values()
    else:
        try:
            if "".join(node).isascii():
                seen.discard(marker)
                return  # a list of ASCII strings: nothing more to check
        except TypeError:
            pass
        values = node
    child_depth = depth + 1
    for child in values:
        kind = type(child)
        if kind is str:
            if not child.isascii():
                raise _Suspect
        elif kind is dict or kind is list:
            _scan(child, child_depth, seen, budget)
        elif kind is float:
            if child - child != 0.0:
                raise _Suspect
        elif kind is int:
            if not -_EXACT_INT <= child <= _EXACT_INT:
                raise _Suspect
        elif child is not None and kind is not bool:
            raise _Suspect
    seen.discard(marker)


def guard(value: Any, where: Sequence[str | int] = ()) -> None:
    """Refuse ``value`` (an ApxRefused with one violation) unless it is bounded, plain JSON."""
    kind = type(value)
    if kind is dict or kind is list:
        try:
            _scan(value, 0, set(), [MAX_NODES - 1])
            return
        except (_Suspect, TypeError):
            pass  # the exact walk below finds the fault, in the reference kernel's order
    try:
        if kind is dict or kind is list:
            _Walk().container(value, 0)
        elif kind is float:
            if value - value != 0.0:
                raise _Fault(errors.GUARD_NONFINITE, "canonical value is not finite", [])
        elif not (value is None or value is MISSING or kind in (str, int, bool)):
            raise _Fault(errors.GUARD_TYPE, "nonplain structured input", [])
    except _Fault as fault:
        collector = Collector()
        collector.add(fault.code, [*where, *reversed(fault.where)], fault.detail)
        raise ApxRefused(collector.violations) from None
