"""What each measure of one execution yields, as the per-execution score document spells it.

Each is a :class:`~typing.TypedDict` naming the keys and value types the
measures write (in the order they write them); at run time they are plain
dicts, so ``executions.jsonl`` and the report are unchanged.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

__all__ = [
    "AccuracyResult",
    "AnswerResult",
    "Attestation",
    "CallOperationJson",
    "CandidateJson",
    "CoverageResult",
    "EchoFinding",
    "EchoResult",
    "ExecutionScoreJson",
    "FigureJson",
    "InvocationAttestation",
    "InvocationJson",
    "InvocationResult",
    "NearMissFinding",
    "NegatedConstantFinding",
    "OperandFinding",
    "OperandJson",
    "OperationsJson",
    "ProvenanceJson",
    "QuantisationFinding",
    "ReturnAsEvaluated",
    "SignInversionFinding",
    "TokenJson",
    "TranscriptionResult",
    "UngovernedFigure",
]


class AccuracyResult(TypedDict):
    """The D1 outcome of one identified figure (the numbers only for an automatic match)."""

    outcome: str
    released: NotRequired[str]
    expected: NotRequired[str]
    difference: NotRequired[str]
    exactAtDeclaredPrecision: NotRequired[bool]


class Attestation(TypedDict):
    """An attestation found in a response: the round it is in and whether it carries a
    signature."""

    round: str
    signed: bool


class InvocationAttestation(Attestation):
    """The attestation as the invocation result reports it (always EV-1, with why)."""

    evidenceClass: str
    reason: str


class InvocationResult(TypedDict):
    """The evidence class, the invocation outcome and why (D7.1)."""

    selfReport: str | None
    evidenceClass: str | None
    outcome: str | None
    reason: str
    attestation: NotRequired[InvocationAttestation]


class AnswerResult(TypedDict):
    """The answer-level outcome (or status) and whether a human must decide (AP-1 §6.8)."""

    status: str | None
    outcome: str | None
    adjudication: bool
    reason: str
    originKinds: NotRequired[list[str]]


class TranscriptionResult(TypedDict):
    """The released figure against the calculator's returns (D7.3)."""

    outcome: str
    reason: NotRequired[str]
    kind: NotRequired[str]
    released: NotRequired[str]
    lastReturn: NotRequired[str]
    lastCall: NotRequired[str]
    fullPrecision: NotRequired[bool]
    matchedCall: NotRequired[str]
    difference: NotRequired[str]


class UngovernedFigure(TypedDict):
    """A released figure matching the expected value that no tool call returned."""

    figure: str
    count: str
    finding: str


class CoverageResult(TypedDict):
    """Whether every released figure matching the expected value is a returned value."""

    outcome: str
    reason: NotRequired[str]
    figures: NotRequired[str]
    ungoverned: NotRequired[list[UngovernedFigure]]


class EchoFinding(TypedDict):
    """A sampling parameter the platform did not echo, or echoed with another value."""

    parameter: str
    requested: str
    echoed: NotRequired[str]
    finding: str


class EchoResult(TypedDict):
    """The parameter-echo status of one execution and its findings."""

    status: str
    findings: list[EchoFinding]


class TokenJson(TypedDict):
    """A figure found in a text."""

    value: str
    text: str
    percent: NotRequired[bool]
    currency: NotRequired[str]


class FigureJson(TypedDict):
    """The figure identification of one execution."""

    outcome: str
    reason: str
    released: str | None
    releasedText: str | None
    tokens: list[TokenJson]


class CandidateJson(TypedDict):
    """One way a value is traced: a ladder step, what matched, and how."""

    step: str
    kind: str
    ref: str
    transformation: NotRequired[str]


class QuantisationFinding(TypedDict):
    """An operand that is a quantised intermediate value."""

    type: Literal["QUANTISATION"]
    intermediate: str
    fullPrecision: str
    quantised: str


class NearMissFinding(TypedDict):
    """An operand that is an earlier return quantised."""

    type: Literal["NEAR-MISS"]
    priorCall: str
    priorReturn: str
    quantisedTo: str
    priorGrounded: bool


class SignInversionFinding(TypedDict):
    """An operand that is a traced value with its sign inverted."""

    type: Literal["SIGN-INVERSION"]
    negates: list[CandidateJson]


class NegatedConstantFinding(TypedDict):
    """An operand that is a declared constant negated."""

    type: Literal["NEGATED-CONSTANT"]
    constant: str
    value: str


OperandFinding = (
    QuantisationFinding | NearMissFinding | SignInversionFinding | NegatedConstantFinding
)
"""What the provenance ladder found about an operand, by kind."""


class OperandJson(TypedDict):
    """Where one operand was traced, or which kind of origination it is."""

    literal: str
    step: str
    resolution: str
    grounded: bool
    ambiguous: bool
    candidates: list[CandidateJson]
    finding: NotRequired[OperandFinding]


class InvocationJson(TypedDict):
    """One call's operands and its provenance outcome."""

    call: str
    expression: str | None
    outcome: str
    operands: list[OperandJson]
    reason: NotRequired[str]
    precisionArguments: NotRequired[list[str]]


class ReturnAsEvaluated(TypedDict):
    literal: str
    call: str
    value: str


"""A number as written in an expression, the call that returned it, and the value used."""


class CallOperationJson(TypedDict):
    """One call's operation outcome, per call and after the session reclassification."""

    call: str
    outcome: str
    perCallOutcome: str
    value: str | None
    matchedAgainst: str | None
    reason: NotRequired[str]
    toolReturnAgrees: NotRequired[bool]
    returnsAsEvaluated: NotRequired[list[ReturnAsEvaluated]]


class ProvenanceJson(TypedDict):
    """The execution's provenance outcome and every invocation's."""

    outcome: str | None
    invocations: list[InvocationJson]


class OperationsJson(TypedDict):
    """Every call's operation outcome, and how many the session reclassified."""

    calls: list[CallOperationJson]
    reclassified: str


class ExecutionScoreJson(TypedDict):
    """The per-execution score document (one line of ``executions.jsonl``)."""

    cellKey: str
    condition: str
    itemId: str
    repeat: str
    status: str
    statusReason: str | None
    invocation: InvocationResult
    figure: FigureJson | None
    accuracy: AccuracyResult | None
    provenance: ProvenanceJson
    operation: OperationsJson
    transcription: TranscriptionResult | None
    coverage: CoverageResult | None
    answer: AnswerResult
    parameterEcho: EchoResult
