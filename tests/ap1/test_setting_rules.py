"""A request setting's rules are stated once, in schemas/ap1.yaml, and every consumer agrees.

The rules (exactly one of send and omit; no detail beside a value sent; a
detail for a platform reason) are checked by the JSON Schema file, the OpenAPI
document's component schemas, the generated models and the kernel. Each
setting form is tried in the shared request, in the tool choice and in a
condition's override: all four give the same verdict, and the models and the
kernel refuse with the same codes at the same paths.
"""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from apconform.ap1.inputs.config import load_config
from apconform.ap1.refusal import Ap1Refused
from apconform.core.errors import DocumentRefused
from apconform.core.schemas import json_schema_validator, schema_validator
from apconform.core.validation import validate_document
from apconform.models.ap1 import Ap1RunConfig, DecimalSetting

REPO = Path(__file__).resolve().parents[2]
BASE = json.loads((REPO / "examples/ap1/config.json").read_text(encoding="utf-8"))
OPENAPI = json.loads((REPO / "schemas/openapi.json").read_text(encoding="utf-8"))

REASONS = ("operator-declared", "platform-rejected", "platform-unsupported", "not-supported")
FORMS: list[dict[str, str]] = []
for send, omit, detail in itertools.product((False, True), (None, *REASONS), (False, True)):
    form = {"send": "SEND"} if send else {}
    if omit is not None:
        form["omit"] = omit
    if detail:
        form["detail"] = "the platform answered HTTP 400"
    FORMS.append(form)

# (where the setting goes, the value it sends)
PLACES: list[tuple[tuple[str, ...], str]] = [
    (("request", "sampling", "temperature"), "0.5"),
    (("request", "sampling", "seed"), "7"),
    (("request", "sampling", "stop"), "END"),
    (("request", "sampling", "reasoning_effort"), "low"),
    (("request", "toolChoice"), "auto"),
    (("conditions", "base", "sampling", "top_k"), "40"),
    (("conditions", "base", "toolChoice"), "required"),
]


def _config(place: tuple[str, ...], value: str, form: dict[str, str]) -> dict[str, Any]:
    """The example configuration with the setting at ``place``; a condition's setting goes
    into both conditions' overrides, so they still differ only in the system prompt."""
    config = copy.deepcopy(BASE)
    setting = {k: (value if v == "SEND" else v) for k, v in form.items()}
    if place[0] != "conditions":
        targets = [config[place[0]]]
        inner = place[1:-1]
    else:
        targets = [config["conditions"][name] for name in ("base", "instructionRemoved")]
        inner = place[2:-1]
        for target in targets:
            name = inner[0] if inner else place[-1]
            target[name] = copy.deepcopy(config["request"][name])
    for target in targets:
        for key in inner:
            target = target[key]
        target[place[-1]] = copy.deepcopy(setting)
    return config


def _kernel(config: dict[str, Any]) -> list[tuple[str, str, str]]:
    try:
        load_config(config)
    except Ap1Refused as refused:
        return [(v.code, v.path, v.message) for v in refused.violations]
    return []


def _model(config: dict[str, Any]) -> list[tuple[str, str, str]]:
    try:
        validate_document(Ap1RunConfig, config)
    except DocumentRefused as refused:
        return [(v.code, v.path, v.message) for v in refused.violations]
    return []


def _openapi_accepts(config: dict[str, Any]) -> bool:
    schema = {
        "$ref": "#/components/schemas/Ap1RunConfig",
        "components": OPENAPI["components"],
    }
    return bool(schema_validator(schema).is_valid(config))


CASES = [(place, value, form) for place, value in PLACES for form in FORMS]


@pytest.mark.parametrize(
    "place,value,form", CASES, ids=[f"{'.'.join(p)}-{json.dumps(f)}" for p, _, f in CASES]
)
def test_every_consumer_gives_one_verdict(
    place: tuple[str, ...], value: str, form: dict[str, str]
) -> None:
    config = _config(place, value, form)
    kernel = _kernel(config)
    model = _model(config)
    by_schema = bool(json_schema_validator("ap1-config").is_valid(config))
    native_not_supported = form.get("omit") == "not-supported"
    # The one rule no schema states: not-supported only with importedFrom (a member three
    # levels up); the kernel refuses it at the reason, before the setting's other breaches.
    rule_kernel = [v for v in kernel if v[0] != "APC-SCHEMA-VIOLATION"]
    cross = [v[1] for v in kernel if v[0] == "APC-SCHEMA-VIOLATION"]
    assert len(cross) == ((2 if place[0] == "conditions" else 1) if native_not_supported else 0)
    assert all(path.endswith(f".{place[-1]}.omit") for path in cross)
    assert by_schema == (not model) == (not rule_kernel) == _openapi_accepts(config)
    # The models and the kernel name the same breaches (the kernel keeps its own order).
    assert sorted(model) == sorted(rule_kernel)


def test_breaches_have_the_kernels_codes_paths_and_words() -> None:
    config = _config(
        ("request", "sampling", "temperature"), "0.5", {"send": "SEND", "omit": "platform-rejected"}
    )
    config["request"]["toolChoice"] = {"send": "auto", "detail": "why"}
    config["conditions"]["base"]["sampling"] = copy.deepcopy(config["request"]["sampling"])
    config["conditions"]["base"]["sampling"]["top_k"] = {"omit": "platform-unsupported"}
    config["conditions"]["instructionRemoved"]["sampling"] = copy.deepcopy(
        config["conditions"]["base"]["sampling"]
    )
    config["transport"]["timeoutSeconds"] = "0"
    setting, detail = (
        "give exactly one of send or omit (both are present)",
        ("omission reason platform-rejected needs a detail saying what the platform did"),
    )
    unsupported = "omission reason platform-unsupported needs a detail saying what the platform did"
    assert _kernel(config) == [
        ("AP1-CONFIG-SETTING", "$.request.sampling.temperature", setting),
        ("AP1-CONFIG-OMISSION-DETAIL", "$.request.sampling.temperature.detail", detail),
        ("AP1-CONFIG-SETTING", "$.request.toolChoice.detail", "detail belongs to an omission"),
        ("AP1-CONFIG-SETTING", "$.conditions.base.sampling.temperature", setting),
        ("AP1-CONFIG-OMISSION-DETAIL", "$.conditions.base.sampling.temperature.detail", detail),
        ("AP1-CONFIG-OMISSION-DETAIL", "$.conditions.base.sampling.top_k.detail", unsupported),
        ("AP1-CONFIG-SETTING", "$.conditions.instructionRemoved.sampling.temperature", setting),
        (
            "AP1-CONFIG-OMISSION-DETAIL",
            "$.conditions.instructionRemoved.sampling.temperature.detail",
            detail,
        ),
        (
            "AP1-CONFIG-OMISSION-DETAIL",
            "$.conditions.instructionRemoved.sampling.top_k.detail",
            unsupported,
        ),
        ("AP1-CONFIG-TRANSPORT", "$.transport.timeoutSeconds", "must be above 0"),
    ]
    # The model alone (a document route, the parity test) refuses the same breaches.
    assert sorted(_model(config)) == sorted(_kernel(config)[:-1])


def test_a_setting_model_refuses_with_the_rule_codes() -> None:
    assert DecimalSetting.model_validate({"send": "1"}).rule_breaches() == []
    with pytest.raises(DocumentRefused) as refused:
        validate_document(DecimalSetting, {})
    assert [(v.code, v.path) for v in refused.value.violations] == [("AP1-CONFIG-SETTING", "$")]


def test_the_openapi_document_states_the_rules_as_the_schema_file_does() -> None:
    files = json.loads((REPO / "schemas/jsonschema/ap1-config.schema.json").read_text("utf-8"))
    for name in ("ToolChoiceSetting", "DecimalSetting", "IntegerSetting", "TextSetting"):
        stated = OPENAPI["components"]["schemas"][name]["allOf"]
        assert stated == files["$defs"][name]["allOf"]
        assert len(stated) == 4
