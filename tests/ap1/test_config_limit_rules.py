"""The instrument's limits on repeats and places are stated once, in schemas/ap1.yaml.

Each limit is a rule of its class (a pattern on the decimal text, annotated with
the kernel's code, member and message). The JSON Schema file, the OpenAPI
document's component schemas, the generated models and the kernel give every
value the same verdict, and the models and the kernel refuse with the same code
at the same path in the same words; the kernel's constants are the bounds the
patterns state.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from apconform.ap1.inputs.config import MAX_PLACES, MAX_REPEATS, load_config
from apconform.ap1.refusal import Ap1Refused
from apconform.conformance.contracts import contract_names, operation_contract
from apconform.conformance.operations import get_operation
from apconform.conformance.vectors import load_vectors
from apconform.core.errors import ApconformError, DocumentRefused
from apconform.core.schemas import json_schema_validator, schema_validator
from apconform.core.validation import validate_document
from apconform.models.ap1 import Ap1RunConfig, QuantisationPolicy

REPO = Path(__file__).resolve().parents[2]
BASE = json.loads((REPO / "examples/ap1/config.json").read_text(encoding="utf-8"))
OPENAPI = json.loads((REPO / "schemas/openapi.json").read_text(encoding="utf-8"))

REPEATS = ["1", "9", "10", "999", "9999", "10000", "10001", "10010", "20000", "99999", "100000"]
PLACES = ["0", "1", "9", "10", "99", "100", "101", "110", "200", "1000", "10000000000"]


def _verdicts(config: dict[str, Any]) -> tuple[bool, bool, list[tuple[str, str, str]], Any]:
    """(schema file accepts, OpenAPI accepts, the model's violations, the kernel's)."""
    openapi = {"$ref": "#/components/schemas/Ap1RunConfig", "components": OPENAPI["components"]}
    try:
        validate_document(Ap1RunConfig, config)
        model: list[tuple[str, str, str]] = []
    except DocumentRefused as refused:
        model = [(v.code, v.path, v.message) for v in refused.violations]
    try:
        load_config(config)
        kernel: list[tuple[str, str, str]] = []
    except Ap1Refused as refused:
        kernel = [(v.code, v.path, v.message) for v in refused.violations]
    return (
        bool(json_schema_validator("ap1-config").is_valid(config)),
        bool(schema_validator(openapi).is_valid(config)),
        model,
        kernel,
    )


def _set_repeats(config: dict[str, Any], value: str) -> None:
    config["repeats"] = value


def _set_places(config: dict[str, Any], value: str) -> None:
    config["answer"]["quantisation"]["places"] = value


# (what is set, its bound, the kernel's code and path, its message for the value)
LIMITS = {
    "repeats": (
        _set_repeats,
        MAX_REPEATS,
        "AP1-CONFIG-REPEATS",
        "$.repeats",
        "{} repeats asked for; at most 10,000 are planned",
    ),
    "places": (
        _set_places,
        MAX_PLACES,
        "AP1-CONFIG-PLACES",
        "$.answer.quantisation.places",
        "{} places asked for; at most 100",
    ),
}


@pytest.mark.parametrize(
    ("limit", "value"),
    [("repeats", value) for value in REPEATS] + [("places", value) for value in PLACES],
)
def test_limit_one_verdict_one_code(limit: str, value: str) -> None:
    setter, bound, code, path, message = LIMITS[limit]
    config = copy.deepcopy(BASE)
    setter(config, value)
    by_file, by_openapi, model, kernel = _verdicts(config)
    within = int(value) <= bound
    assert by_file is by_openapi is within
    expected = [] if within else [(code, path, message.format(value))]
    assert model == kernel == expected


def test_both_limits_and_a_setting_rule_in_the_kernels_order() -> None:
    config = copy.deepcopy(BASE)
    config["repeats"] = "10001"
    config["answer"]["quantisation"]["places"] = "101"
    config["request"]["sampling"]["temperature"] = {}
    _, _, model, kernel = _verdicts(config)
    assert kernel == [
        (
            "AP1-CONFIG-SETTING",
            "$.request.sampling.temperature",
            "give exactly one of send or omit (neither is present)",
        ),
        ("AP1-CONFIG-PLACES", "$.answer.quantisation.places", "101 places asked for; at most 100"),
        ("AP1-CONFIG-REPEATS", "$.repeats", "10001 repeats asked for; at most 10,000 are planned"),
    ]
    # The model refuses too. Pydantic checks the configuration's own rule (repeats) only
    # once its members are valid, so the model names that breach when the others are fixed;
    # the kernel, deferring the rules, names every breach at once.
    assert sorted(model) == sorted(kernel[:2])
    config["request"]["sampling"]["temperature"] = {"send": "0.5"}
    config["answer"]["quantisation"]["places"] = "100"
    _, _, model, kernel = _verdicts(config)
    assert (
        model
        == kernel
        == [
            (
                "AP1-CONFIG-REPEATS",
                "$.repeats",
                "10001 repeats asked for; at most 10,000 are planned",
            )
        ]
    )


def test_a_value_with_a_final_newline_breaks_the_rule_as_in_json_schema() -> None:
    # Python's $ would match before the newline; the rule's check reads the pattern as
    # JSON Schema does (the type's own pattern refuses the value too).
    policy = QuantisationPolicy.model_construct(places="10\n", rounding="ROUND_HALF_UP")
    policy.model_fields_set.update({"places", "rounding"})
    assert [b.code for b in policy.rule_breaches()] == ["AP1-CONFIG-PLACES"]


def test_the_openapi_document_states_the_limits_as_the_schema_file_does() -> None:
    files = json.loads((REPO / "schemas/jsonschema/ap1-config.schema.json").read_text("utf-8"))
    components = OPENAPI["components"]["schemas"]
    for name, member in (("Ap1RunConfig", "repeats"), ("QuantisationPolicy", "places")):
        for keyword in ("if", "then"):
            assert components[name][keyword] == files["$defs"][name][keyword]
        assert files["$defs"][name]["then"]["properties"][member]["pattern"]


def _typed_configuration_operations() -> list[str]:
    """Every operation whose input types its ``config`` member as the run configuration."""
    out = []
    for name in contract_names():
        contract = operation_contract(name)
        field = contract.input_model.model_fields.get("config") if contract else None
        if field is not None and field.annotation is Ap1RunConfig:
            out.append(name)
    return out


BREACHES = [
    ("AP1-CONFIG-REPEATS", "$.repeats", lambda config: config.update(repeats="10001")),
    (
        "AP1-CONFIG-PLACES",
        "$.answer.quantisation.places",
        lambda config: config["answer"]["quantisation"].update(places="101"),
    ),
    (
        "AP1-CONFIG-SETTING",
        "$.request.sampling.temperature",
        lambda config: config["request"]["sampling"].update(temperature={}),
    ),
]


def test_operations_with_a_typed_configuration_refuse_a_breach_with_its_rule_s_code() -> None:
    """The operation's input check leaves class rules to the kernel, which keeps its codes."""
    operations = _typed_configuration_operations()
    assert operations == [
        "ap1.adjudication_sheets",
        "ap1.compare_reference_execution",
        "ap1.d2_cap",
        "ap1.derivation_findings",
        "ap1.evaluate_derivation",
        "ap1.render_request",
        "ap1.rescore",
        "ap1.seal_record",
        "ap1.tool_loop",
    ]
    accepted = {}
    for loaded in load_vectors():
        vector = loaded.document
        if vector["operation"] in operations and vector["expected"]["kind"] != "refusal":
            accepted.setdefault(vector["operation"], vector["input"])
    assert sorted(accepted) == sorted(operations)
    for name, value in accepted.items():
        for code, path, breach in BREACHES:
            body = copy.deepcopy(value)
            breach(body["config"])
            with pytest.raises(ApconformError) as refused:
                get_operation(name)(body)
            assert (refused.value.code, refused.value.path) == (code, path), name
