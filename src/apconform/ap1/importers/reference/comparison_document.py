"""The comparison document: the kit's verdicts beside the reference's, per dimension.

``comparison/reference-comparison.json`` (schema class Ap1ReferenceComparison)
and its parts. Plain dicts at run time, built key by key in the order the
schema lists them.
"""

from __future__ import annotations

from typing import TypedDict

__all__ = [
    "Classification",
    "ClassificationCount",
    "ComparisonDimension",
    "ComparisonDisagreement",
    "ReferenceComparison",
]


class Classification(TypedDict):
    """Why the two verdicts differ: the class, the defect or clause cited, and in words."""

    classification: str
    cites: str
    explanation: str


class ComparisonDisagreement(TypedDict):
    """One disagreement and why."""

    dimension: str
    cellKey: str
    where: str
    apconform: str
    reference: str
    classification: str
    cites: str
    explanation: str


class ComparisonDimension(TypedDict):
    """Agreement on one dimension (the counts as text)."""

    dimension: str
    compared: str
    agree: str
    disagree: str
    notRecorded: str


class ClassificationCount(TypedDict):
    """How many disagreements fall in one class."""

    classification: str
    count: str


class ReferenceComparison(TypedDict):
    """The comparison of an imported run with the verdicts its source recorded."""

    schemaVersion: str
    instrument: str
    referenceSealHash: str
    executions: str
    transcriptionSource: str
    dimensions: list[ComparisonDimension]
    classifications: list[ClassificationCount]
    disagreements: list[ComparisonDisagreement]
