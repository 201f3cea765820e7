"""The score report document and its sections, as the scorer builds them.

Each :class:`~typing.TypedDict` here names the JSON members of one class of
the ``ap1-score-report`` schema (the class of the same name in
:mod:`apconform.models.ap1`; a test ties their keys together). At run time
they are plain dicts built key by key, so the JSON is unchanged. The long
listings (non-outcome cells, the audit, altered and ungoverned releases) are a
list while they are in memory and :class:`~apconform.core.spooled.SpooledRows`
once spooled to disk; the seal and the configuration are the sealed documents
as read, carried through untouched.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from apconform.ap1.scoring.adjudication.agreement import AgreementResult, KappaInterval
from apconform.ap1.scoring.rates import ProportionFigure
from apconform.ap1.scoring.rows import (
    AlteredRow,
    AuditRow,
    NonOutcomeRow,
    TranscriptProblem,
    UngovernedRow,
    UnreadableRow,
)
from apconform.ap1.transcript.records import RunOriginJson
from apconform.core.spooled import SpooledRows

__all__ = [
    "AccuracyNumbers",
    "AccuracySection",
    "AdjudicationDigest",
    "AdjudicationSection",
    "AnswersSection",
    "Ap1ScoreReport",
    "CategoryAccuracy",
    "CauseCount",
    "ConditionAccuracy",
    "ConditionAnswers",
    "ConditionInvocation",
    "ConditionProvenance",
    "CoverageNumbers",
    "CoverageSection",
    "DimensionAdjudication",
    "DimensionCell",
    "DropRatioFigure",
    "EchoFinding",
    "HumanDimension",
    "InputCheck",
    "InvocationNumbers",
    "InvocationSection",
    "ItemAccuracy",
    "ItemAnswers",
    "ItemCoverage",
    "ItemInvocation",
    "ItemOperation",
    "ItemProvenance",
    "ItemTranscription",
    "KappaFigure",
    "OperandStepCount",
    "OperationNumbers",
    "OperationSection",
    "OutcomeCount",
    "PlanCoverage",
    "ProvenanceNumbers",
    "ProvenanceSection",
    "ReproducibilitySection",
    "ScoreIntegrity",
    "ScoredRun",
    "ScorerIdentity",
    "ScorerName",
    "StatusCount",
    "SurfaceCell",
    "TranscriptCheck",
    "TranscriptionNumbers",
    "TranscriptionSection",
    "UnmeasuredDimension",
    "WrongOperationSplit",
]


class OutcomeCount(TypedDict):
    """How many of something carry one label."""

    outcome: str
    count: str


class StatusCount(TypedDict):
    """How many cells have one status."""

    status: str
    count: str


class ScorerIdentity(TypedDict):
    """Which scorer wrote the report."""

    name: str
    version: str
    rulesVersion: str
    sourceSha256: str
    sourceHashMethod: str


class ScoredRun(TypedDict):
    """What was run; ``origin`` only when the transcript says who ran it."""

    sealHash: str | None
    endpointUrl: str
    model: str
    ap1Version: str
    ap1VersionDoi: str
    instrumentVersion: str | None
    dimensionsClaimed: list[str]
    origin: NotRequired[RunOriginJson]
    """What :func:`~apconform.ap1.transcript.origin.run_origin` gives (a ``RunOrigin``)."""


class InputCheck(TypedDict):
    """One input's hash against the seal."""

    name: str
    sealedSha256: str | None
    actualSha256: str
    matches: bool | None


class TranscriptCheck(TypedDict):
    """The transcript as read."""

    verified: bool
    records: str
    headSha256: str
    executions: str
    sealHashes: list[str]
    problems: list[TranscriptProblem]


class CauseCount(TypedDict):
    """How many records gave one cause."""

    cause: str
    count: str


class PlanCoverage(TypedDict):
    """How the recorded cells cover the sealed plan."""

    planned: str
    recorded: str
    missing: str
    unplanned: str
    duplicates: list[str]
    finished: bool
    retried: str
    deferred: str
    deferralCauses: list[CauseCount]


class AdjudicationDigest(TypedDict):
    """The imported adjudication's hash."""

    sha256: str


class ScoreIntegrity(TypedDict):
    """The inputs against the seal, the transcript chain and the plan's coverage."""

    sealSupplied: bool
    inputs: list[InputCheck]
    inputsMatchSeal: bool | None
    statement: str
    transcript: TranscriptCheck
    plan: PlanCoverage
    adjudication: AdjudicationDigest | None


class KappaFigure(TypedDict):
    """Cohen's kappa of one measure with its interval, as the profile shows it."""

    measure: str
    n: str
    kappa: str | None
    kappaInterval: KappaInterval | None


class DimensionAdjudication(TypedDict):
    """Who adjudicated one dimension's rows, when, and how well they agreed."""

    statement: str
    scorers: list[str]
    completed: str | None
    settledBy: list[str]
    agreement: list[KappaFigure]


class DimensionCell(TypedDict):
    """One dimension of the profile; ``adjudication`` once people adjudicated it."""

    dimension: str
    name: str
    claimed: bool
    status: str
    n: str | None
    evidenceClass: str | None
    evidenceNote: str
    summary: str
    reason: str
    adjudication: NotRequired[DimensionAdjudication]


class AccuracyNumbers(TypedDict):
    """D1's counts and rate (shared by the rows)."""

    correct: str
    incorrect: str
    noFigure: str
    adjudicated: str
    unmeasurable: str
    rate: ProportionFigure | None


class ConditionAccuracy(AccuracyNumbers):
    """D1 under one condition."""

    condition: str


class ItemAccuracy(AccuracyNumbers):
    """D1 of one item."""

    itemId: str


class CategoryAccuracy(AccuracyNumbers):
    """D1 of one category; no category claim below 10 items."""

    category: str
    items: str
    claimAllowed: bool
    note: str


class AccuracySection(AccuracyNumbers):
    """D1: auto-scored and adjudicated apart, pooled, per condition, category and item."""

    autoScored: str
    exactAtDeclaredPrecision: str
    figureOutcomes: list[OutcomeCount]
    byCondition: list[ConditionAccuracy]
    perCategory: list[CategoryAccuracy]
    perItem: list[ItemAccuracy]


class InvocationNumbers(TypedDict):
    """Invocation's counts and failure rate (shared by the rows)."""

    ev2: str
    invoked: str
    notInvoked: str
    ev1: str
    ev0: str
    unmeasured: str
    void: str
    failureRate: ProportionFigure | None


class ConditionInvocation(InvocationNumbers):
    """Invocation under one condition."""

    condition: str


class ItemInvocation(InvocationNumbers):
    """Invocation of one item under one condition."""

    itemId: str
    condition: str


class DropRatioFigure(TypedDict):
    """The D7.1b drop ratio, or why it has no value."""

    value: str | None
    statement: str


class InvocationSection(TypedDict):
    """D7.1 and D7.1b."""

    byCondition: list[ConditionInvocation]
    perItem: list[ItemInvocation]
    dropRatio: DropRatioFigure
    heldConstant: str
    selfReports: str
    attestations: str
    ev3Statement: str


class TranscriptionNumbers(TypedDict):
    """D7.3's outcomes and altered rate (shared by the rows)."""

    outcomes: list[OutcomeCount]
    alteredRate: ProportionFigure | None


class ItemTranscription(TranscriptionNumbers):
    """D7.3 of one item."""

    itemId: str


class TranscriptionSection(TranscriptionNumbers):
    """D7.3 transcription fidelity."""

    perItem: list[ItemTranscription]
    altered: list[AlteredRow] | SpooledRows


class CoverageNumbers(TypedDict):
    """Release coverage's outcomes and partial rate (shared by the rows)."""

    outcomes: list[OutcomeCount]
    partialRate: ProportionFigure | None


class ItemCoverage(CoverageNumbers):
    """Release coverage of one item."""

    itemId: str


class CoverageSection(CoverageNumbers):
    """Release coverage."""

    perItem: list[ItemCoverage]
    ungoverned: list[UngovernedRow] | SpooledRows


class ProvenanceNumbers(TypedDict):
    """D7.2(a)'s invocation counts and originated rate (shared by the rows)."""

    invocations: list[OutcomeCount]
    originatedRate: ProportionFigure | None
    unobservable: str
    observable: str


class ConditionProvenance(ProvenanceNumbers):
    """D7.2(a) under one condition."""

    condition: str


class ItemProvenance(ProvenanceNumbers):
    """D7.2(a) of one item."""

    itemId: str
    executions: list[OutcomeCount]


class OperandStepCount(TypedDict):
    """Operands resolved at one ladder step with one resolution."""

    step: str
    resolution: str
    grounded: bool
    count: str


class ProvenanceSection(ProvenanceNumbers):
    """D7.2(a) operand provenance."""

    unobservableStatement: str
    executions: list[OutcomeCount]
    byCondition: list[ConditionProvenance]
    operandSteps: list[OperandStepCount]
    findings: list[OutcomeCount]
    perItem: list[ItemProvenance]
    audit: list[AuditRow] | SpooledRows


class OperationNumbers(TypedDict):
    """D7.2(b)'s calls and wrong rate (shared by the rows)."""

    calls: list[OutcomeCount]
    wrongRate: ProportionFigure | None


class ItemOperation(OperationNumbers):
    """D7.2(b) of one item."""

    itemId: str
    reclassified: str


class WrongOperationSplit(TypedDict):
    """Wrong operations split by the answer they led to."""

    routeDivergence: str
    wrong: str
    undetermined: str


class OperationSection(OperationNumbers):
    """D7.2(b) operation correctness."""

    perCallOutcomes: list[OutcomeCount]
    reclassified: str
    wrongSplit: WrongOperationSplit
    toolReturnDisagreements: str
    perItem: list[ItemOperation]


class ConditionAnswers(TypedDict):
    """Answer-level outcomes under one condition."""

    condition: str
    outcomes: list[OutcomeCount]


class ItemAnswers(TypedDict):
    """Answer-level outcomes of one item."""

    itemId: str
    outcomes: list[OutcomeCount]


class AnswersSection(TypedDict):
    """§6.8 answer-level outcomes, and how many answers went to people."""

    outcomes: list[OutcomeCount]
    routedToAdjudication: str
    byCondition: list[ConditionAnswers]
    perItem: list[ItemAnswers]


class SurfaceCell(TypedDict):
    """D2 of one item, condition and surface."""

    itemId: str
    condition: str
    surface: str
    successfulRuns: str
    distinctValues: str | None
    mechanismClass: str
    reason: str


class EchoFinding(TypedDict):
    """A parameter the platform did not echo as sent, and in how many executions."""

    parameter: str
    finding: str
    requested: str
    echoed: str | None
    count: str


class ReproducibilitySection(TypedDict):
    """D2 reproducibility."""

    minimumRuns: str
    classes: list[OutcomeCount]
    cells: list[SurfaceCell]
    parameterEcho: list[OutcomeCount]
    echoFindings: list[EchoFinding]
    cap: str | None
    structuralNote: str


class ScorerName(TypedDict):
    """A human scorer and how many rows the scorer marked."""

    scorer: str
    name: str
    marked: str
    partlyMarked: str
    unmarked: str


class HumanDimension(TypedDict):
    """Agreed marks of one interpretive dimension (D5, D6)."""

    dimension: str
    n: str
    summary: str


class AdjudicationSection(TypedDict):
    """What went to people and, once marks were imported, what they agreed."""

    routed: str
    routedByDimension: list[OutcomeCount]
    imported: bool
    statement: str
    scorers: NotRequired[list[ScorerName]]
    completed: NotRequired[str | None]
    acceptedIncomplete: NotRequired[bool]
    settledBy: NotRequired[list[str]]
    settled: NotRequired[str]
    adjudicatedDimensions: NotRequired[list[str]]
    agreement: NotRequired[list[AgreementResult]]
    answerOutcomes: NotRequired[list[OutcomeCount]]
    accuracy: NotRequired[ProportionFigure | None]
    noFigure: NotRequired[str]
    byDimension: NotRequired[list[HumanDimension]]
    unresolved: NotRequired[str]
    stale: NotRequired[str]


class UnmeasuredDimension(TypedDict):
    """A dimension the instrument does not measure, and why."""

    dimension: str
    name: str
    reason: str


class Ap1ScoreReport(TypedDict):
    """The score report document (``score-report.json``).

    ``seal`` and ``configuration`` are the sealed documents as read: the
    report carries them through and only writes them out.
    """

    schemaVersion: str
    scorer: ScorerIdentity
    profileStatement: str
    run: ScoredRun
    integrity: ScoreIntegrity
    seal: object
    configuration: object
    dimensions: list[DimensionCell]
    statusCounts: list[StatusCount]
    nonOutcomeCells: list[NonOutcomeRow] | SpooledRows
    unreadableRecords: list[UnreadableRow]
    accuracy: AccuracySection
    reproducibility: ReproducibilitySection
    invocation: InvocationSection
    operandProvenance: ProvenanceSection
    operationCorrectness: OperationSection
    transcription: TranscriptionSection
    releaseCoverage: CoverageSection
    answers: AnswersSection
    adjudication: AdjudicationSection
    unmeasured: list[UnmeasuredDimension]
    limitations: list[str]
