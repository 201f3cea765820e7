"""The reference instrument's inputs as apconform documents: fixture, question set, configuration.

Each conversion keeps every value the reference declared, as text, and refuses
what has no faithful counterpart instead of guessing: a signed amount (the
kit's fixtures hold magnitudes with a direction label), a number written as a
JSON number where the reference wrote text, an unknown configuration member,
a tool that is not one function with one string argument. What the reference
never declared but an apconform configuration must (the transport policy, the
tool choice, the sampling parameters it did not name) is filled in from the
reference's documented behaviour and listed, one note each, in the import
record, so nothing is defaulted silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from apconform.ap1.importers.reference.input_documents import (
    EntityFieldDocument,
    FixtureDocument,
    FixtureEntityDocument,
    QuestionItemDocument,
    QuestionSetDocument,
    SettingDocument,
)
from apconform.ap1.inputs.config import SAMPLING_PARAMETERS
from apconform.core.errors import ApconformError, define_code

__all__ = [
    "CONDITION_NAMES",
    "IMPORT_INPUT",
    "INSTRUMENT",
    "ConvertedConfig",
    "convert_config",
    "convert_fixture",
    "convert_questions",
]

IMPORT_INPUT = define_code(
    "AP1-IMPORT-INPUT",
    "A reference input has no faithful apconform counterpart",
    "Give the reference instrument's own fixture, question set and resolved configuration, "
    "unedited; the message names the member that cannot be converted.",
)

INSTRUMENT = "zorrzai/ap1-run"
"""How the import record and the configuration name the source instrument."""

CONDITION_NAMES = {"base": "base", "instruction_removed": "instruction-removed"}
"""The reference's condition names and the kit's."""

_MAGNITUDE = re.compile(r"^(0|[1-9][0-9]*)(\.[0-9]+)?$")
_SIGNED = re.compile(r"^[+-][0-9]+(\.[0-9]+)?$")

_CONFIG_MEMBERS = frozenset(
    {
        "answer_tolerance",
        "ap1_text_hash",
        "ap1_version",
        "ap1_version_doi",
        "currency_symbols",
        "decimal_separator",
        "decline_markers",
        "dimensions_claimed",
        "endpoint_url",
        "grouping_separator",
        "model",
        "permitted_transformations",
        "quantisation",
        "repeat_count",
        "sampling",
        "structured_answer_field",
        "system_prompt_base",
        "system_prompt_instruction_removed",
        "tools",
        "runner_modified",
        "runner_version_commit",
        "runner_version_tag",
    }
)
_REASONS = ("operator-declared", "platform-rejected", "platform-unsupported", "not-supported")

# The reference's adapter and engine as documented (not part of its configuration or hash):
# three attempts a round, one second between them, a loop of ten re-sends after the first
# request, and a request timeout of 120 seconds.
REFERENCE_TRANSPORT = {
    "timeoutSeconds": "120",
    "maxAttempts": "3",
    "backoffInitialSeconds": "1",
    "backoffMultiplier": "1",
    "backoffMaxSeconds": "1",
    "maxTurns": "11",
}
MESSAGE_LAYOUT = {
    "contextHeading": "Here is the financial information:",
    "questionPrefix": "Question: ",
}
"""The reference's user-message layout (its heading and question prefix, the kit's layout)."""


def _refuse(message: str, path: str) -> ApconformError:
    return ApconformError(IMPORT_INPUT, message, path=path)


def _text(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise _refuse(f"{path} must be text, not {type(value).__name__}", path)
    return value


def convert_fixture(document: object) -> FixtureDocument:
    """The reference fixture ({accounts: [{id, name, field: text...}]}) as an apconform fixture."""
    if not isinstance(document, dict) or not isinstance(document.get("accounts"), list):
        raise _refuse("the reference fixture is an object with an accounts list", "$.accounts")
    entities: list[FixtureEntityDocument] = []
    for index, account in enumerate(document["accounts"]):
        where = f"$.accounts[{index}]"
        if not isinstance(account, dict):
            raise _refuse(f"{where} is not an object", where)
        fields: list[EntityFieldDocument] = []
        for name, value in account.items():
            if name in ("id", "name"):
                continue
            text = _text(value, f"{where}.{name}")
            if _SIGNED.match(text):
                raise _refuse(
                    f"{where}.{name} is the signed amount {text}; apconform fixtures hold "
                    "magnitudes with a separate direction label, so this fixture cannot be "
                    "imported as it stands",
                    f"{where}.{name}",
                )
            if _MAGNITUDE.match(text):
                fields.append({"name": name, "amount": text})
            else:
                fields.append({"name": name, "label": text})
        entities.append(
            {
                "id": _text(account.get("id"), f"{where}.id"),
                "name": _text(account.get("name"), f"{where}.name"),
                "fields": fields,
            }
        )
    version = _text(document.get("fixture_version"), "$.fixture_version")
    return {
        "schemaVersion": "apconform-ap1-fixture/1",
        "fixtureId": f"zorrzai-ap1-run-fixture-{version}",
        "domain": _text(document.get("domain"), "$.domain"),
        "description": _text(document.get("description"), "$.description"),
        "amountConvention": _text(document.get("amount_convention"), "$.amount_convention"),
        "entities": entities,
    }


def convert_questions(document: object) -> QuestionSetDocument:
    """The reference question set ({questions_version, items}) as an apconform question set."""
    if not isinstance(document, dict) or not isinstance(document.get("items"), list):
        raise _refuse("the reference question set is an object with an items list", "$.items")
    items: list[QuestionItemDocument] = []
    for index, item in enumerate(document["items"]):
        where = f"$.items[{index}]"
        if not isinstance(item, dict):
            raise _refuse(f"{where} is not an object", where)
        steps = item.get("steps")
        derivable = item.get("derivable")
        accounts = item.get("source_accounts")
        if not isinstance(steps, int) or isinstance(steps, bool) or steps < 0:
            raise _refuse(f"{where}.steps must be a whole number", f"{where}.steps")
        if not isinstance(derivable, bool):
            raise _refuse(f"{where}.derivable must be true or false", f"{where}.derivable")
        if not isinstance(accounts, list):
            raise _refuse(f"{where}.source_accounts must be a list", f"{where}.source_accounts")
        converted: QuestionItemDocument = {
            "id": _text(item.get("id"), f"{where}.id"),
            "category": _text(item.get("category"), f"{where}.category"),
            "text": _text(item.get("text"), f"{where}.text"),
            "requiredOperation": _text(
                item.get("required_operation"), f"{where}.required_operation"
            ),
            "sourceEntities": [
                _text(a, f"{where}.source_accounts[{i}]") for i, a in enumerate(accounts)
            ],
            "steps": str(steps),
            "derivable": derivable,
        }
        if item.get("expected_value") is not None:
            converted["expectedValue"] = _text(item["expected_value"], f"{where}.expected_value")
        items.append(converted)
    version = _text(document.get("questions_version"), "$.questions_version")
    return {
        "schemaVersion": "apconform-ap1-questions/1",
        "questionSetId": f"zorrzai-ap1-run-questions-{version}",
        "items": items,
    }


@dataclass
class ConvertedConfig:
    """The apconform configuration and one note per value the reference did not declare."""

    document: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    dropped_claims: list[str] = field(default_factory=list)


def _setting(value: object, path: str) -> SettingDocument:
    if isinstance(value, dict):
        if value.get("value") != "omitted":
            raise _refuse(f"{path} is an object but not an omission", path)
        reason = value.get("reason")
        if reason not in _REASONS:
            raise _refuse(f"{path}.reason {reason!r} is not a known omission reason", path)
        out: SettingDocument = {"omit": reason}
        detail = value.get("detail")
        if isinstance(detail, str) and detail:
            out["detail"] = detail
        return out
    text = _text(value, path)
    if text == "omitted":
        raise _refuse(f"{path} is omitted without a reason", path)
    return {"send": text}  # the configuration's schema checks the value's form


def _tool(tools: Any) -> dict[str, str]:
    try:
        (only,) = tools
        function = only["function"]
        properties = function["parameters"]["properties"]
        (argument,) = properties
        argument_spec = properties[argument]
        if only.get("type") != "function" or argument_spec.get("type") != "string":
            raise ValueError
        return {
            "name": function["name"],
            "description": function["description"],
            "argumentName": argument,
            "argumentDescription": argument_spec["description"],
        }
    except (KeyError, TypeError, ValueError):
        raise _refuse(
            "tools must declare exactly one function with one string argument (the calculator)",
            "$.tools",
        ) from None


def convert_config(
    config: dict[str, Any], *, config_hash: str, seal_hash: str, ap1_text_sha256: str
) -> ConvertedConfig:
    """The reference's resolved configuration as an apconform configuration (see module doc)."""
    unknown = sorted(set(config) - _CONFIG_MEMBERS)
    if unknown:
        raise _refuse(
            f"the resolved configuration has member(s) the import does not know: "
            f"{', '.join(unknown)}",
            f"$.{unknown[0]}",
        )
    notes: list[str] = []
    sampling_in = config.get("sampling")
    if not isinstance(sampling_in, dict):
        raise _refuse("sampling must be an object", "$.sampling")
    sampling: dict[str, SettingDocument] = {}
    for name in SAMPLING_PARAMETERS:
        if name in sampling_in:
            sampling[name] = _setting(sampling_in[name], f"$.sampling.{name}")
        else:
            sampling[name] = {
                "omit": "operator-declared",
                "detail": "not named in the reference configuration, so the reference did "
                "not send it",
            }
            notes.append(
                f"sampling parameter {name} is not named in the reference configuration; "
                "declared omitted (operator-declared), as the reference did not send it"
            )
    extra = sorted(set(sampling_in) - set(SAMPLING_PARAMETERS))
    if extra:
        raise _refuse(f"sampling names unknown parameter(s): {', '.join(extra)}", "$.sampling")
    quantisation = config.get("quantisation")
    if not isinstance(quantisation, dict):
        raise _refuse("quantisation must be an object", "$.quantisation")
    places, rounding = quantisation.get("places"), quantisation.get("rounding")
    if not isinstance(places, int) or isinstance(places, bool) or places < 0:
        raise _refuse("quantisation.places must be a whole number", "$.quantisation.places")
    repeats = config.get("repeat_count")
    if not isinstance(repeats, int) or isinstance(repeats, bool) or repeats < 1:
        raise _refuse("repeat_count must be a whole number of at least 1", "$.repeat_count")
    notes.append(
        "transport policy (timeout 120 s, 3 attempts a round, 1 s between them, 11 rounds) is "
        "the reference's documented adapter and engine behaviour; its configuration does not "
        "declare it"
    )
    notes.append("tool_choice is not in the reference configuration and was never sent")
    claims = [_text(c, "$.dimensions_claimed") for c in config.get("dimensions_claimed", [])]
    base, removed = "system_prompt_base", "system_prompt_instruction_removed"
    document: dict[str, Any] = {
        "schemaVersion": "apconform-ap1-config/1",
        "ap1": {
            "version": _text(config.get("ap1_version"), "$.ap1_version"),
            "versionDoi": _text(config.get("ap1_version_doi"), "$.ap1_version_doi"),
            "textSha256": ap1_text_sha256,
            "textHashMethod": "sha256-utf8-lf",
        },
        "endpoint": {
            "url": _text(config.get("endpoint_url"), "$.endpoint_url"),
            "model": _text(config.get("model"), "$.model"),
            "apiKeyEnv": None,
        },
        "transport": dict(REFERENCE_TRANSPORT),
        "request": {
            "tool": _tool(config.get("tools")),
            "toolChoice": {
                "omit": "operator-declared",
                "detail": "not in the reference configuration; never sent",
            },
            "sampling": sampling,
            "message": dict(MESSAGE_LAYOUT),
        },
        "conditions": {
            "varies": "systemPrompt",
            "base": {"systemPrompt": _text(config.get(base), f"$.{base}"), "userPreamble": ""},
            "instructionRemoved": {
                "systemPrompt": _text(config.get(removed), f"$.{removed}"),
                "userPreamble": "",
            },
        },
        "repeats": str(repeats),
        "dimensionsClaimed": claims,
        "answer": {
            "tolerance": _text(config.get("answer_tolerance"), "$.answer_tolerance"),
            "quantisation": {"places": str(places), "rounding": _text(rounding, "$.rounding")},
            "decimalSeparator": _text(config.get("decimal_separator"), "$.decimal_separator"),
            "groupingSeparator": config.get("grouping_separator"),
            "currencySymbols": list(config.get("currency_symbols", [])),
            "declineMarkers": list(config.get("decline_markers", [])),
            "structuredAnswerField": config.get("structured_answer_field"),
        },
        "permittedTransformations": list(config.get("permitted_transformations", [])),
        "importedFrom": {
            "instrument": INSTRUMENT,
            "configHash": config_hash,
            "sealHash": seal_hash,
        },
    }
    return ConvertedConfig(document, notes)
