"""A sampling setting's rules are stated by every schema, and the schemas agree with the kernel.

The kernel refuses a setting that sends and omits, omits without a reason, or
gives a platform reason without a detail. The document schema (from
gen-json-schema), the models' JSON Schema (the OpenAPI document's source) and
the operation schemas state the same rules, so a generator of valid data (a
fuzzer, an implementer's test) makes configurations the kernel accepts.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from apconform.ap1.inputs.config import load_config
from apconform.ap1.refusal import Ap1Refused
from apconform.conformance.schemas import json_schema_validator, schema_validator
from apconform.models.ap1 import DecimalSetting, EffortSetting, IntegerSetting
from apconform.resources import data_path

# (setting, the codes the kernel refuses it with; () when it is accepted)
SHAPES: list[tuple[dict[str, str], tuple[str, ...]]] = [
    ({"send": "0.5"}, ()),
    ({"omit": "operator-declared"}, ()),
    ({"omit": "operator-declared", "detail": "Not used here."}, ()),
    ({"omit": "platform-rejected", "detail": "The platform answered 400."}, ()),
    ({"omit": "platform-unsupported", "detail": "Not in the API reference."}, ()),
    ({}, ("AP1-CONFIG-SETTING",)),
    ({"send": "0.5", "omit": "operator-declared"}, ("AP1-CONFIG-SETTING",)),
    ({"send": "0.5", "detail": "Why."}, ("AP1-CONFIG-SETTING",)),
    ({"omit": "platform-rejected"}, ("AP1-CONFIG-OMISSION-DETAIL",)),
    ({"omit": "platform-unsupported"}, ("AP1-CONFIG-OMISSION-DETAIL",)),
]


def _kernel_codes(config: dict[str, Any]) -> tuple[str, ...]:
    try:
        load_config(config)
    except Ap1Refused as refused:
        return tuple(sorted({v.code for v in refused.violations}))
    return ()


@pytest.mark.parametrize(("setting", "codes"), SHAPES, ids=[json.dumps(s) for s, _ in SHAPES])
def test_the_document_schema_accepts_what_the_kernel_accepts(
    docs: dict[str, Any], setting: dict[str, str], codes: tuple[str, ...]
) -> None:
    docs["config"]["request"]["sampling"]["top_p"] = setting
    assert _kernel_codes(docs["config"]) == codes
    schema_errors = list(json_schema_validator("ap1-config").iter_errors(docs["config"]))
    assert (schema_errors == []) == (codes == ())


@pytest.mark.parametrize("model", [DecimalSetting, IntegerSetting, EffortSetting])
def test_the_models_state_the_same_rules_as_the_document_schema(model: Any) -> None:
    document = json.loads(
        data_path("schemas", "jsonschema", "ap1-config.schema.json").read_text(encoding="utf-8")
    )
    stated = document["$defs"][model.__name__]
    from_model = model.model_json_schema()
    assert from_model["allOf"] == stated["allOf"]
    assert len(stated["allOf"]) == 4  # sent alone (x2), omitted with a reason, detail when due


@pytest.mark.parametrize(("setting", "codes"), SHAPES, ids=[json.dumps(s) for s, _ in SHAPES])
def test_the_models_schema_refuses_what_the_kernel_refuses(
    setting: dict[str, str], codes: tuple[str, ...]
) -> None:
    validator = schema_validator(DecimalSetting.model_json_schema())
    assert (list(validator.iter_errors(setting)) == []) == (codes == ())


def test_the_openapi_document_states_the_rules() -> None:
    openapi = json.loads(data_path("schemas", "openapi.json").read_text(encoding="utf-8"))
    for name in ("DecimalSetting", "IntegerSetting", "TextSetting", "EffortSetting"):
        rules = openapi["components"]["schemas"][name]["allOf"]
        assert {
            "if": {"properties": {"send": {}}, "required": ["send"]},
            "then": {"properties": {"omit": {}}, "not": {"required": ["omit"]}},
        } in rules
