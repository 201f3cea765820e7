"""Comparing two entries of a ledger: the result comparison of `apconform report diff`."""

from __future__ import annotations

from typing import Any

from apconform.ledger.store import Ledger
from apconform.results import ResultKind, diff_results

__all__ = ["diff_entries"]


def diff_entries(ledger: Ledger, before: str | int, after: str | int) -> dict[str, Any]:
    """The ``ResultDiff`` of the documents of two entries (the earlier one first)."""
    sides = []
    for ref in (before, after):
        stored = ledger.entry(ref)
        claim = stored.entry["claim"]
        sides.append((ResultKind(claim["kind"]), ledger.document(claim["documentSha256"])))
    (kind_before, old), (kind_after, new) = sides
    return diff_results(kind_before, old, kind_after, new)
