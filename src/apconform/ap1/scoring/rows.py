"""The rows the scorer keeps and hands on: listings, adjudication sheet rows, row evidence.

Each is a :class:`~typing.TypedDict` naming the keys and value types the
scorer writes; at run time they are plain dicts, so the JSON they become (in
the report, the sheets, the key and the adjudication pages) is unchanged.
Listing rows may be spooled to disk and read back; what is read back is the
JSON of a row of the same type.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from apconform.ap1.scoring.results import (
    AccuracyResult,
    AnswerResult,
    CallOperationJson,
    CoverageResult,
    FigureJson,
    InvocationJson,
    InvocationResult,
    TranscriptionResult,
)
from apconform.core.spooled import MappedRows

__all__ = [
    "AlteredRow",
    "AuditRow",
    "BlindRow",
    "Disagreement",
    "EvidenceCall",
    "ExcerptTurn",
    "KeyRow",
    "ModelCall",
    "NonOutcomeRow",
    "Released",
    "RoutedCall",
    "RoutedRow",
    "RowEvidence",
    "RowKey",
    "SheetKey",
    "TranscriptProblem",
    "UngovernedRow",
    "UnreadableRow",
    "Verdicts",
]


class NonOutcomeRow(TypedDict):
    """A cell whose execution has no outcome (VOID, UNMEASURED, UNOBSERVABLE)."""

    cellKey: str
    status: str
    reason: str


class AuditRow(TypedDict):
    """An operand of an invocation that is not grounded (the originated-operand audit)."""

    cellKey: str
    itemId: str
    condition: str
    repeat: str
    call: str
    expression: str
    operand: str
    resolution: str
    detail: str


class AlteredRow(TypedDict):
    """A released figure that is not the calculator's last return transcribed exactly."""

    cellKey: str
    kind: str
    released: str
    lastReturn: str
    difference: str


class UngovernedRow(TypedDict):
    """A released figure matching the expected value that no tool call returned, by cell."""

    cellKey: str
    figure: str
    count: str
    finding: str


class TranscriptProblem(TypedDict):
    """Where the transcript's chain or records fail a check: line, the record's seq, what."""

    line: str
    seq: str | None
    kind: str
    message: str


class UnreadableRow(TypedDict):
    """A record that could not be scored: where it is and why."""

    record: str
    message: str


RoutedCall = TypedDict("RoutedCall", {"name": str, "arguments": str, "return": str})
"""One tool call of a routed execution: its name, raw arguments and raw return ("" if none)."""


class Disagreement(TypedDict):
    """A row the two scorers marked differently: which fields, both marks, any settlement."""

    rowId: str
    dimension: str
    disputed: list[str]
    scorer1: dict[str, str]
    scorer2: dict[str, str]
    settled: dict[str, str] | None


class RoutedRow(TypedDict):
    """An execution routed to people for one dimension (D1, D5 or D6), with why."""

    cellKey: str
    itemId: str
    condition: str
    repeat: str
    dimension: str
    reason: str
    figureOutcome: str
    finalText: str
    responseShape: str | None
    toolCalls: list[RoutedCall]


class RowKey(TypedDict):
    """What maps a blind sheet row back to its execution (kept from the scorers)."""

    cellKey: str
    condition: str
    repeat: str
    figureOutcome: str


class BlindRow(TypedDict):
    """One row of the adjudication sheets: the CSV columns, and the key kept apart."""

    rowId: str
    dimension: str
    itemId: str
    category: str
    question: str
    deliveredData: str
    response: str
    toolCalls: str
    routedBecause: str
    expectedValue: str
    rubric: str
    outcome: str
    accuracy: str
    selectedValue: str
    notes: str
    _key: RowKey


class KeyRow(TypedDict):
    """One row of the adjudication key file."""

    rowId: str
    dimension: str
    itemId: str
    cellKey: str
    condition: str
    repeat: str
    figureOutcome: str


class SheetKey(TypedDict):
    """The adjudication key: blind row ids back to executions (``key.json``)."""

    schemaVersion: str
    sealHash: str
    rows: list[KeyRow] | MappedRows
    """The :class:`KeyRow` rows: a list, or rows spooled to disk for a long run."""


class ModelCall(TypedDict):
    """A tool call as the model wrote it: the function's name and its raw arguments."""

    name: str
    arguments: str


class ExcerptTurn(TypedDict):
    """One turn of the transcript excerpt an adjudicator sees (model, transport or tool)."""

    round: str
    speaker: Literal["model", "transport", "tool"]
    text: str
    omitted: int
    """Characters of the text not shown (past the bound)."""
    toolCalls: list[ModelCall]
    """The model's tool calls in this turn."""
    raw: NotRequired[bool]
    shape: NotRequired[str]
    call: NotRequired[str]
    outcome: NotRequired[str]


class Released(TypedDict):
    """The released figure of a routed execution, as the figure identification read it."""

    text: str | None
    value: str | None
    figures: list[str]


EvidenceCall = TypedDict(
    "EvidenceCall",
    {
        "call": str,
        "name": str,
        "arguments": str,
        "return": str | None,
        "operation": CallOperationJson | None,
        "provenance": InvocationJson | None,
    },
)
"""One tool call of a routed execution with the scorer's operation and provenance verdicts."""


class Verdicts(TypedDict, total=False):
    """The automated verdicts on a routed execution (none when it was not scored again)."""

    invocation: InvocationResult | None
    figure: FigureJson | None
    accuracy: AccuracyResult | None
    transcription: TranscriptionResult | None
    coverage: CoverageResult | None
    answer: AnswerResult | None


class RowEvidence(TypedDict):
    """Everything an adjudicator sees of one sheet row, blind (nothing names the condition)."""

    rowId: str
    dimension: str
    itemId: str
    category: str
    question: str
    deliveredData: str
    expectedValue: str
    routedBecause: str
    response: str
    released: Released | None
    status: str | None
    calls: list[EvidenceCall]
    verdicts: Verdicts
    excerpt: list[ExcerptTurn]
    rubric: list[str]
    accuracyMarks: list[str]
    selectedValue: bool
