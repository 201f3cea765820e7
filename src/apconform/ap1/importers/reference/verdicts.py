"""The reference's recorded verdicts of one execution, in the kit's terms.

One line of ``import/reference-verdicts.jsonl`` (schema class
Ap1ReferenceVerdict): the import builds them from the reference's engine and
figure records, the comparison reads them back. At run time they are plain
dicts, built key by key in the order the schema lists them.
"""

from __future__ import annotations

from typing import TypedDict

__all__ = ["ReferenceCall", "ReferenceOperand", "ReferenceOperation", "ReferenceVerdict"]


class ReferenceOperand(TypedDict):
    """One operand as the reference resolved it; every member is None when not recorded."""

    literal: str | None
    value: str | None
    step: str | None
    resolution: str | None
    matchedField: str | None
    matchedIntermediate: str | None
    transformation: str | None


class ReferenceCall(TypedDict):
    """One call's operand provenance (D7.2(a)) as the reference recorded it."""

    outcome: str | None
    expression: str | None
    operands: list[ReferenceOperand]


class ReferenceOperation(TypedDict):
    """One call's operation outcome (D7.2(b)) as the reference recorded it."""

    outcome: str | None
    matchedAgainst: str | None
    value: str | None


class ReferenceVerdict(TypedDict):
    """The verdicts the reference recorded for one execution."""

    cellKey: str
    engineLine: str
    figureLine: str | None
    evidenceClass: str | None
    invocationRecorded: bool
    invocation: str | None
    groundTruthFinal: str | None
    figureOutcome: str | None
    releasedFigure: str | None
    callsRecorded: bool
    calls: list[ReferenceCall]
    operationsRecorded: bool
    operations: list[ReferenceOperation]
    transcription: str | None
