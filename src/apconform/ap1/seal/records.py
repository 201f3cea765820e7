"""The JSON shapes of the seal record (``seal.json``) and of what verifying it finds.

Each :class:`~typing.TypedDict` names the members of a class of the ``ap1``
schema (``Ap1Seal`` and the classes it holds); at run time they are plain
dicts, built member by member in the order the seal has always been written,
so its bytes (and its composite hash) are unchanged.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from apconform.ap1.calculator.evaluator import CalculatorLimits

__all__ = [
    "ArithmeticJson",
    "DeclaredConstantJson",
    "DeclaredRulesJson",
    "EvidenceJson",
    "FindingJson",
    "InputDigestJson",
    "InstrumentJson",
    "ItemConstantsJson",
    "QuantisationJson",
    "RunPlanJson",
    "SealRecord",
    "SealedInputsJson",
    "SealedTextJson",
]


class InstrumentJson(TypedDict):
    """The instrument that sealed the run (``InstrumentIdentity``)."""

    name: str
    version: str
    sourceSha256: str
    sourceHashMethod: str


class SealedTextJson(TypedDict):
    """The AP-1 text sealed (``SealedText``)."""

    version: str
    versionDoi: str
    textSha256: str
    textHashMethod: str
    file: str


class InputDigestJson(TypedDict):
    """One sealed JSON input (``InputDigest``)."""

    sha256: str
    method: str
    file: str


SealedInputsJson = dict[str, InputDigestJson]
"""The sealed JSON inputs by name (``SealedInputs``: the names of ``SEALED_NAMES``)."""


class QuantisationJson(TypedDict):
    """The single quantisation rule (``QuantisationPolicy``)."""

    places: str
    rounding: str


class ArithmeticJson(TypedDict):
    """The exact arithmetic of the calculator (``ArithmeticPolicy``)."""

    precision: str
    rounding: str


class DeclaredConstantJson(TypedDict):
    """A declared constant as sealed (``DeclaredConstant``)."""

    name: str
    value: str
    meaning: str
    role: NotRequired[str]
    basis: NotRequired[str]


class ItemConstantsJson(TypedDict):
    """An item's declared constants (``ItemConstants``)."""

    itemId: str
    constants: list[DeclaredConstantJson]


class DeclaredRulesJson(TypedDict):
    """The rules that decide what counts as traced (``DeclaredRules``)."""

    transformations: list[str]
    quantisation: QuantisationJson
    tolerance: str
    arithmetic: ArithmeticJson
    calculator: CalculatorLimits
    constants: list[ItemConstantsJson]


class RunPlanJson(TypedDict):
    """The plan summary (``RunPlan``)."""

    conditions: list[str]
    repeats: str
    derivableItems: str
    voidItems: str
    cells: str
    planSha256: str


class EvidenceJson(TypedDict):
    """What the instrument declares about evidence (``EvidenceDeclaration``)."""

    ev3Implemented: bool
    verificationKeys: list[str]


class SealRecord(TypedDict):
    """The seal record (``Ap1Seal``)."""

    schemaVersion: str
    sealedAt: str
    sealHash: str
    instrument: InstrumentJson
    ap1: SealedTextJson
    inputs: SealedInputsJson
    declared: DeclaredRulesJson
    plan: RunPlanJson
    evidence: EvidenceJson
    signature: NotRequired[dict[str, str]]


class FindingJson(TypedDict):
    """One finding of ``verify-seal --format json``."""

    component: str
    message: str
    fatal: bool
