"""The run configuration: strict, declared in full, with no silent default anywhere.

Beyond the schema (closed objects, quoted decimals, required members) the
loader refuses, naming every violation at once: a bare JSON number anywhere, a
sampling parameter placed outside ``sampling`` (with a hint where it belongs),
a credential-shaped string, a setting that is both sent and omitted (or
neither), a platform omission without its detail, and conditions that differ
in anything but the one declared quantity.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Protocol

from apconform.ap1.inputs.conditions import ConditionView, condition_view, condition_violations
from apconform.ap1.masking import looks_like_credential
from apconform.ap1.refusal import Ap1Refused, violation
from apconform.core.errors import DocumentRefused, Violation, define_code
from apconform.core.jsonpath import format_path
from apconform.core.validation import SCHEMA_VIOLATION, validate_document
from apconform.models import RULES_DEFERRED
from apconform.models._jsontypes import RuleBreach
from apconform.models.ap1 import Ap1RunConfig, OmissionReason, SamplingSettings

__all__ = [
    "MAX_PLACES",
    "MAX_REPEATS",
    "SAMPLING_PARAMETERS",
    "RunConfig",
    "load_config",
]

BARE_NUMBER = define_code(
    "AP1-CONFIG-BARE-NUMBER",
    "A number is written as a bare JSON number",
    'Write every number as a quoted decimal string, for example "0.7" instead of 0.7.',
    exit_status=1,
)
MISPLACED_SAMPLING = define_code(
    "AP1-CONFIG-MISPLACED-SAMPLING",
    "A sampling parameter is placed outside a sampling object",
    "Move it into request.sampling (or a condition's sampling override).",
    exit_status=1,
)
CREDENTIAL_IN_CONFIG = define_code(
    "AP1-CONFIG-CREDENTIAL",
    "A credential-shaped string is in the configuration",
    "Remove it; the key is read only from the environment variable named by endpoint.apiKeyEnv.",
    exit_status=1,
)
MAX_REPEATS = 10_000
"""The most repeats a configuration may ask for: each one is a planned cell per item and
condition, and the plan is built whole when a run is sealed, run or scored."""
REPEATS_LIMIT = define_code(
    "AP1-CONFIG-REPEATS",
    "More repeats than the instrument plans",
    f"Use at most {MAX_REPEATS:,} repeats per item and condition (the reference instrument "
    "runs 50); split a larger study into several sealed runs.",
    exit_status=1,
)
MAX_PLACES = 100
"""The most decimal places a configuration may quantise to (figures are compared exactly,
so more would only make every quantisation and comparison slower)."""
PLACES_LIMIT = define_code(
    "AP1-CONFIG-PLACES",
    "More decimal places than the instrument quantises to",
    f"Quantise to at most {MAX_PLACES} decimal places (answer.quantisation.places).",
    exit_status=1,
)
SETTING_FORM = define_code(
    "AP1-CONFIG-SETTING",
    "A request setting is not exactly one of sent or declared omitted",
    'Give either {"send": value} or {"omit": reason} (with "detail" for a platform reason).',
    exit_status=1,
)
OMISSION_DETAIL = define_code(
    "AP1-CONFIG-OMISSION-DETAIL",
    "A platform omission has no detail",
    "Say in detail what the platform did (quote its refusal) or where it documents the limit.",
    exit_status=1,
)
TRANSPORT_VALUE = define_code(
    "AP1-CONFIG-TRANSPORT",
    "A transport value is out of range",
    "timeoutSeconds must be above 0, backoffMultiplier at least 1, backoffMaxSeconds at least "
    "backoffInitialSeconds.",
    exit_status=1,
)

_RULE_CODES = {
    code.code: code for code in (SETTING_FORM, OMISSION_DETAIL, PLACES_LIMIT, REPEATS_LIMIT)
}
"""The codes the rules of the configuration's classes name (schemas/ap1.yaml): the settings'
form, the places and the repeats; the kernel refuses each breach with its rule's code."""

SAMPLING_PARAMETERS = (
    "temperature",
    "top_p",
    "seed",
    "max_tokens",
    "max_completion_tokens",
    "top_k",
    "presence_penalty",
    "frequency_penalty",
    "stop",
    "reasoning_effort",
)
_IMPORTED_ONLY_REASONS = ("not-supported",)
_SAMPLING_HOMES = {(): "request.sampling", ("request",): "request.sampling"}


class _Ruled(Protocol):
    """A value of a schema class with rules (a generated model)."""

    def rule_breaches(self) -> list[RuleBreach]: ...


class _Setting(_Ruled, Protocol):
    """A setting sent or declared omitted (``DecimalSetting``, ``ToolChoiceSetting`` ...)."""

    @property
    def omit(self) -> OmissionReason | None: ...


def _bare_numbers(value: object, path: list[str | int]) -> Iterator[Violation]:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int | float):
        yield violation(
            BARE_NUMBER,
            format_path(path),
            f"bare JSON number {value!r}; AP-1 numbers are quoted decimal strings "
            f'(write "{value}")',
        )
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _bare_numbers(item, [*path, key])
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _bare_numbers(item, [*path, index])


def _strings(value: object, path: list[str | int]) -> Iterator[tuple[list[str | int], str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield [*path, key], str(key)
            yield from _strings(item, [*path, key])
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, [*path, index])


def _misplaced(document: dict[str, object]) -> Iterator[Violation]:
    """Sampling parameters written outside their homes (members of JSON objects, checked)."""
    places: list[tuple[list[str | int], object, str]] = [
        ([], document, "request.sampling"),
        (["request"], document.get("request"), "request.sampling"),
        (["endpoint"], document.get("endpoint"), "request.sampling"),
    ]
    conditions = document.get("conditions")
    if isinstance(conditions, dict):
        for name in ("base", "instructionRemoved"):
            places.append(
                (["conditions", name], conditions.get(name), f"conditions.{name}.sampling")
            )
    for prefix, obj, home in places:
        if not isinstance(obj, dict):
            continue
        for key in obj:
            if key in SAMPLING_PARAMETERS:
                yield violation(
                    MISPLACED_SAMPLING,
                    format_path([*prefix, key]),
                    f"{key} is a sampling parameter and is not allowed here; it belongs in {home}",
                    hint=f'Move {key} into {home} as {{"send": ...}} or {{"omit": reason}}.',
                )


def _setting_violations(
    setting: _Setting, path: list[str | int], *, imported: bool = False
) -> Iterator[Violation]:
    """A setting's breaches: its schema's rules (send or omit, a detail where one is needed),
    each with the code the rule names, and the reason kept only by imported configurations."""
    if setting.omit is not None and str(setting.omit) in _IMPORTED_ONLY_REASONS and not imported:
        yield violation(
            SCHEMA_VIOLATION,
            format_path([*path, "omit"]),
            f"omission reason {setting.omit!s} is kept only in a configuration imported from "
            "another instrument (importedFrom); declare operator-declared, platform-rejected "
            "or platform-unsupported",
        )
    yield from _rule_violations(setting, path)


def _rule_violations(value: _Ruled, path: list[str | int]) -> Iterator[Violation]:
    """The breaches of the rules of ``value``'s class, each with its rule's code, below path."""
    for breach in value.rule_breaches():
        yield violation(_RULE_CODES[breach.code], format_path([*path, *breach.at]), breach.message)


def _sampling_violations(
    sampling: SamplingSettings, path: list[str | int], *, imported: bool
) -> Iterator[Violation]:
    for name in SAMPLING_PARAMETERS:
        yield from _setting_violations(getattr(sampling, name), [*path, name], imported=imported)


def _transport_violations(config: Ap1RunConfig) -> Iterator[Violation]:
    t = config.transport
    if Decimal(t.timeoutSeconds) <= 0:
        yield violation(TRANSPORT_VALUE, "$.transport.timeoutSeconds", "must be above 0")
    if Decimal(t.backoffMultiplier) < 1:
        yield violation(TRANSPORT_VALUE, "$.transport.backoffMultiplier", "must be at least 1")
    if Decimal(t.backoffMaxSeconds) < Decimal(t.backoffInitialSeconds):
        yield violation(
            TRANSPORT_VALUE,
            "$.transport.backoffMaxSeconds",
            "must be at least backoffInitialSeconds",
        )


@dataclass(frozen=True)
class RunConfig:
    """A configuration that passed every check, with the document it was read from."""

    model: Ap1RunConfig
    document: dict[str, object]
    """The configuration document as read (a JSON object)."""

    def condition(self, name: str) -> ConditionView:
        if name == "base":
            return condition_view(self.model, name, self.model.conditions.base)
        if name == "instruction-removed":
            return condition_view(self.model, name, self.model.conditions.instructionRemoved)
        raise ValueError(f"unknown condition {name!r}")

    @property
    def repeats(self) -> int:
        return int(self.model.repeats)

    @property
    def tool_name(self) -> str:
        return str(self.model.request.tool.name)

    @property
    def places(self) -> int:
        return int(self.model.answer.quantisation.places)

    @property
    def rounding(self) -> str:
        return str(self.model.answer.quantisation.rounding)


def load_config(document: object, *, what: str = "configuration") -> RunConfig:
    """Validate a configuration document completely; raise Ap1Refused listing every violation."""
    pre: list[Violation] = []
    if isinstance(document, dict):
        pre.extend(_bare_numbers(document, []))
        pre.extend(_misplaced(document))
        for path, text in _strings(document, []):
            if looks_like_credential(text):
                pre.append(
                    violation(
                        CREDENTIAL_IN_CONFIG,
                        format_path(path),
                        "a credential-shaped value is written here (not repeated in this message)",
                    )
                )
    try:
        # The settings' rules are checked below, in the kernel's order and beside its other
        # findings, so that every breach is reported with its own code and path.
        model = validate_document(Ap1RunConfig, document, what=what, context=RULES_DEFERRED)
    except DocumentRefused as refused:
        reported = {v.path for v in pre}
        rest = [v for v in refused.violations if v.path not in reported]
        raise Ap1Refused(pre + rest, what=what) from None
    post = list(pre)
    imported = model.importedFrom is not None
    post.extend(
        _sampling_violations(model.request.sampling, ["request", "sampling"], imported=imported)
    )
    post.extend(
        _setting_violations(model.request.toolChoice, ["request", "toolChoice"], imported=imported)
    )
    for name in ("base", "instructionRemoved"):
        settings = getattr(model.conditions, name)
        if "sampling" in settings.model_fields_set:
            post.extend(
                _sampling_violations(
                    settings.sampling, ["conditions", name, "sampling"], imported=imported
                )
            )
        if "toolChoice" in settings.model_fields_set:
            post.extend(
                _setting_violations(
                    settings.toolChoice, ["conditions", name, "toolChoice"], imported=imported
                )
            )
    post.extend(_transport_violations(model))
    # At most MAX_PLACES places and MAX_REPEATS repeats: rules of the schema's classes too.
    post.extend(_rule_violations(model.answer.quantisation, ["answer", "quantisation"]))
    post.extend(_rule_violations(model, []))
    if not post:
        post.extend(condition_violations(model))
    if post:
        raise Ap1Refused(post, what=what)
    assert isinstance(document, dict)  # it validated as an Ap1RunConfig, a JSON object
    return RunConfig(model, document)
