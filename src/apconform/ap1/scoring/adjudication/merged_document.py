"""The merged adjudication document (``adjudication/merged.json``), as the merge writes it.

Each :class:`~typing.TypedDict` names the JSON members of one class of the
``ap1-adjudication`` schema (the class of the same name in
:mod:`apconform.models.ap1`, ``ScorerMarks`` for :class:`RowMarks`; a test
ties their keys together). At run time they are plain dicts built key by key.
"""

from __future__ import annotations

from typing import TypedDict

from apconform.ap1.scoring.adjudication.agreement import AgreementResult

__all__ = ["AdjudicatedRow", "AdjudicationScorer", "Ap1Adjudication", "RowMarks", "Settlement"]


class AdjudicationScorer(TypedDict):
    """One scorer: the hash of the scorer's marks and how many rows the scorer marked."""

    scorer: str
    name: str
    marksSha256: str
    rows: str
    marked: str
    partlyMarked: str
    unmarked: str


class RowMarks(TypedDict):
    """One scorer's marks of one row (empty strings where not marked)."""

    outcome: str
    accuracy: str
    selectedValue: str
    notes: str


class Settlement(TypedDict):
    """The marks in dispute as settled in reconciliation, who settled them and why."""

    outcome: str
    accuracy: str
    settledBy: str
    reason: str


class AdjudicatedRow(TypedDict):
    """One row with both scorers' marks and the agreed (or settled) ones."""

    rowId: str
    cellKey: str
    dimension: str
    itemId: str
    scorer1: RowMarks
    scorer2: RowMarks
    agreedOutcome: str | None
    agreedAccuracy: str | None
    settlement: Settlement | None


class Ap1Adjudication(TypedDict):
    """Two scorers' marks of a run's adjudication rows, merged."""

    schemaVersion: str
    sealHash: str
    completed: str | None
    scorers: list[AdjudicationScorer]
    acceptedIncomplete: bool
    settledBy: list[str]
    agreement: list[AgreementResult]
    rows: list[AdjudicatedRow]
