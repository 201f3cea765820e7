"""The facts an entry shows, derived from its document: the one place they come from.

A ledger entry carries an ``index`` (implementation, version, kind, subject,
verdicts, clause outcomes) so that queries need not parse documents. The
index is never taken on trust: it is a pure function of the result document
the claim names, computed here when a result is appended, and computed again
and compared when a ledger is verified or imported, so an index rewritten to
say another implementation or another verdict is found even when the chain
was re-hashed around it. The site shows what this module derives from the
documents, not what the index says.

:func:`apconform.results.result_facts` reads the facts; the index is those
facts restricted to the members of ``LedgerIndex``. A fact added there for
display (a label of an AP-1 run's origin, say) reaches the site through
:func:`document_facts` without changing the chained index, so ledgers written
before it still verify.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from apconform.results import ResultKind, result_facts

__all__ = [
    "INDEX_FIELDS",
    "FactDifference",
    "document_facts",
    "index_differences",
    "index_of",
    "slot_of",
]

INDEX_FIELDS = (
    "kind",
    "subject",
    "implementation",
    "model",
    "protocols",
    "verdict",
    "runDate",
    "verdicts",
    "clauses",
)
"""The members of ``LedgerIndex``: what an entry chains about its document."""


def document_facts(kind: ResultKind, document: Any) -> dict[str, Any]:
    """Every fact a checked result states about itself (the index's and any display label)."""
    return result_facts(kind, document)


def index_of(kind: ResultKind, document: Any) -> dict[str, Any]:
    """The ``LedgerIndex`` of a checked result document."""
    facts = document_facts(kind, document)
    return {name: facts[name] for name in INDEX_FIELDS if name in facts}


def slot_of(index: dict[str, Any]) -> tuple[str, str]:
    """What a result is shown under: its kind and subject (a matrix column, a model's profile).

    The ledger keeps the results of one slot in order: a new result may not be
    older than the latest one it would replace, and on a server one slot is
    bound to the key that first signed a result for it.
    """
    return str(index["kind"]), str(index["subject"])


@dataclass(frozen=True)
class FactDifference:
    """One member where a stored index and the derived one differ."""

    path: str
    stored: Any
    derived: Any

    def describe(self, *, signed: bool) -> str:
        source = "its signed document" if signed else "its document"
        if self.stored is _ABSENT:
            return f"{self.path} is missing, but {source} gives {self.derived!r}"
        if self.derived is _ABSENT:
            return f"{self.path} is {self.stored!r}, but {source} has no such member"
        return f"{self.path} is {self.stored!r}, but {source} says {self.derived!r}"


class _Absent:
    def __repr__(self) -> str:
        return "(absent)"


_ABSENT: Any = _Absent()


def _keyed(items: list[Any]) -> dict[str, Any] | None:
    """List items by their clause or protocol id (by position for plain values); None when
    two items share a key."""
    out: dict[str, Any] = {}
    for position, item in enumerate(items):
        key = str(position)
        if isinstance(item, dict):
            key = next((str(item[n]) for n in ("clause", "protocol") if n in item), key)
        if key in out:
            return None
        out[key] = item
    return out


def _walk(path: str, stored: Any, derived: Any) -> Iterator[FactDifference]:
    if isinstance(stored, dict) and isinstance(derived, dict):
        # In the derived index's order (who, then what), then what only the stored one has.
        for name in [*derived, *sorted(set(stored) - set(derived))]:
            yield from _walk(
                f"{path}.{name}", stored.get(name, _ABSENT), derived.get(name, _ABSENT)
            )
        return
    if isinstance(stored, list) and isinstance(derived, list):
        left, right = _keyed(stored), _keyed(derived)
        if left is not None and right is not None:
            found = False
            for key in sorted(set(left) | set(right)):
                for difference in _walk(
                    f"{path}[{key}]", left.get(key, _ABSENT), right.get(key, _ABSENT)
                ):
                    found = True
                    yield difference
            if not found and stored != derived:
                yield FactDifference(path, stored, derived)  # the same items in another order
            return
    if stored != derived or not _same_types(stored, derived):
        yield FactDifference(path, stored, derived)


def index_differences(stored: Any, derived: dict[str, Any]) -> list[FactDifference]:
    """Every member where ``stored`` is not the index derived from the document (paths
    ``index.implementation.name``, ``index.clauses[KIT-JCS-1].outcome``...); empty when equal."""
    if stored == derived and _same_types(stored, derived):
        return []
    return list(_walk("index", stored, derived)) or [FactDifference("index", stored, derived)]


def _same_types(left: Any, right: Any) -> bool:
    """Equal values can still differ in type (1 == True == 1.0); the index holds no floats."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return all(_same_types(left[key], right[key]) for key in left)
    if isinstance(left, list):
        return all(_same_types(a, b) for a, b in zip(left, right, strict=True))
    return True
