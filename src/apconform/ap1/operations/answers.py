"""What the AP-1 operations answer: one TypedDict per answer the operations build themselves.

Answers an operation only hands on from the library (a seal record, a score
report, an execution's scores) keep the library's own type; the members here
that carry such a document unread are typed ``Mapping[str, object]``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, NotRequired, TypedDict

from apconform.ap1.importers.reference.import_record import DroppedClaim
from apconform.ap1.run.record import EchoedParameter
from apconform.ap1.scoring.rows import SheetKey

__all__ = [
    "AdjudicationSheets",
    "Agreement",
    "AnchorAnswer",
    "CellPlan",
    "ConfigAnswer",
    "D2Cap",
    "Deferral",
    "Evaluation",
    "Finding",
    "Findings",
    "ImportedRun",
    "Intermediate",
    "KeyTransport",
    "MaskedText",
    "Quantisation",
    "RenderedRequest",
    "ResponseShape",
    "SealHashCheck",
    "TextDigest",
    "ToolOutcome",
    "TranscriptAnswer",
]

SettingsAsSent = Sequence[Mapping[str, object]]
"""The request's record of every setting (tool_choice, then sampling), as the library builds it."""


class Quantisation(TypedDict):
    places: str
    rounding: str


class ConfigAnswer(TypedDict):
    """``ap1.load_config``."""

    valid: Literal[True]
    conditionDifferences: list[str]
    samplingAsSent: SettingsAsSent
    quantisation: Quantisation


class CellPlan(TypedDict):
    """``ap1.check_inputs``."""

    valid: Literal[True]
    cells: list[str]
    planSha256: str


class Finding(TypedDict):
    code: str
    message: str


class Findings(TypedDict):
    """``ap1.derivation_findings``."""

    violations: list[Finding]


class Intermediate(TypedDict):
    label: str
    value: str


class Evaluation(TypedDict):
    """``ap1.evaluate_derivation``."""

    intermediates: list[Intermediate]
    final: str
    reads: list[str]


class SealHashCheck(TypedDict):
    """``ap1.seal_hash``."""

    sealHash: str
    matches: bool


class TextDigest(TypedDict):
    """``ap1.hash_text``."""

    sha256: str
    method: str


class ToolOutcome(TypedDict):
    """``ap1.tool_call``."""

    outcome: str
    content: str


class RenderedRequest(TypedDict):
    """``ap1.render_request``."""

    userMessage: str
    bodyText: str
    bodySha256: str
    bodyMembers: list[str]
    samplingAsSent: SettingsAsSent


class ResponseShape(TypedDict):
    """``ap1.classify_response``."""

    shape: str
    detail: str | None
    samplingEchoed: list[EchoedParameter]


class MaskedText(TypedDict):
    """``ap1.mask``."""

    text: str


class AnchorAnswer(TypedDict):
    state: str
    records: str
    headRecords: str | None


class TranscriptAnswer(TypedDict):
    """``ap1.verify_transcript``: the last three members only when the input has "head"."""

    valid: bool
    problems: Sequence[Mapping[str, object]]
    cells: list[str]
    finished: NotRequired[bool]
    deferred: NotRequired[list[str]]
    anchor: NotRequired[AnchorAnswer]


class KeyTransport(TypedDict):
    """``ap1.credential_transport``."""

    transport: str


class Deferral(TypedDict):
    """``ap1.endpoint_failure``."""

    deferred: bool


class ImportedRun(TypedDict):
    """``ap1.import_reference``: the converted documents, handed on as the importer builds them."""

    configHash: str
    sealHash: str
    configuration: Mapping[str, object]
    conversions: list[str]
    droppedClaims: list[DroppedClaim]
    groundTruthChecks: Sequence[Mapping[str, object]]
    executions: list[Mapping[str, object]]
    verdicts: list[Mapping[str, object]]


class D2Cap(TypedDict):
    """``ap1.d2_cap``."""

    cap: str | None


class Agreement(TypedDict):
    """``ap1.cohen_kappa``."""

    n: str
    agreed: str
    rawAgreement: str
    kappa: str | None
    caveat: str | None


class AdjudicationSheets(TypedDict):
    """``ap1.adjudication_sheets``."""

    rows: str
    columns: list[str]
    key: SheetKey
    scorer1Csv: str
