"""The run configuration: strict, explicit, and refused with every reason named."""

from __future__ import annotations

from typing import Any

import pytest

from apconform.ap1.inputs.config import load_config
from apconform.ap1.refusal import Ap1Refused


def _refusal(config: Any) -> Ap1Refused:
    with pytest.raises(Ap1Refused) as caught:
        load_config(config)
    return caught.value


def _found(error: Ap1Refused) -> list[tuple[str, str, str]]:
    return [(v.code, v.path, v.message) for v in error.violations]


def test_the_example_configs_load(docs: dict[str, Any]) -> None:
    config = load_config(docs["config"])
    assert config.repeats == 2
    assert config.tool_name == "calculator"
    assert (config.places, config.rounding) == (2, "ROUND_HALF_UP")
    assert config.condition("base").sampling["temperature"] == {"send": "0"}


def test_a_top_level_sampling_key_is_named_with_where_it_belongs(docs: dict[str, Any]) -> None:
    docs["config"]["temperature"] = "0"
    error = _refusal(docs["config"])
    assert error.code == "AP1-CONFIG-MISPLACED-SAMPLING"
    assert _found(error) == [
        (
            "AP1-CONFIG-MISPLACED-SAMPLING",
            "$.temperature",
            "temperature is a sampling parameter and is not allowed here; it belongs in "
            "request.sampling",
        )
    ]
    assert error.violations[0].hint.startswith("Move temperature into request.sampling")


def test_misplaced_keys_inside_request_and_conditions(docs: dict[str, Any]) -> None:
    docs["config"]["request"]["seed"] = {"send": "1"}
    docs["config"]["conditions"]["base"]["top_p"] = {"send": "1"}
    error = _refusal(docs["config"])
    assert [(v.code, v.path) for v in error.violations] == [
        ("AP1-CONFIG-MISPLACED-SAMPLING", "$.request.seed"),
        ("AP1-CONFIG-MISPLACED-SAMPLING", "$.conditions.base.top_p"),
    ]
    assert "conditions.base.sampling" in error.violations[1].message


def test_an_unknown_key_is_refused_by_name(docs: dict[str, Any]) -> None:
    docs["config"]["bogus_field"] = "x"
    error = _refusal(docs["config"])
    assert _found(error) == [
        (
            "APC-SCHEMA-VIOLATION",
            "$.bogus_field",
            "this field is not allowed here (the document type is closed)",
        )
    ]


def test_every_bare_number_is_named(docs: dict[str, Any]) -> None:
    docs["config"]["repeats"] = 50
    docs["config"]["request"]["sampling"]["temperature"] = {"send": 0.7}
    error = _refusal(docs["config"])
    assert [(v.code, v.path) for v in error.violations] == [
        ("AP1-CONFIG-BARE-NUMBER", "$.request.sampling.temperature.send"),
        ("AP1-CONFIG-BARE-NUMBER", "$.repeats"),
    ]
    assert error.violations[0].message.endswith('(write "0.7")')


def test_omitted_without_a_reason_is_refused(docs: dict[str, Any]) -> None:
    docs["config"]["request"]["sampling"]["top_p"] = "omitted"
    error = _refusal(docs["config"])
    assert error.violations[0].path == "$.request.sampling.top_p"


def test_a_platform_omission_needs_its_detail(docs: dict[str, Any]) -> None:
    docs["config"]["request"]["sampling"]["top_k"] = {"omit": "platform-rejected"}
    error = _refusal(docs["config"])
    assert _found(error) == [
        (
            "AP1-CONFIG-OMISSION-DETAIL",
            "$.request.sampling.top_k.detail",
            "omission reason platform-rejected needs a detail saying what the platform did",
        )
    ]


def test_an_unknown_omission_reason_is_refused(docs: dict[str, Any]) -> None:
    docs["config"]["request"]["sampling"]["top_k"] = {"omit": "not-supported", "detail": "x"}
    error = _refusal(docs["config"])
    assert error.violations[0].path == "$.request.sampling.top_k.omit"


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        (
            {"send": "0", "omit": "operator-declared"},
            "give exactly one of send or omit (both are present)",
        ),
        ({}, "give exactly one of send or omit (neither is present)"),
    ],
)
def test_send_xor_omit(docs: dict[str, Any], setting: dict[str, str], message: str) -> None:
    docs["config"]["request"]["sampling"]["temperature"] = setting
    error = _refusal(docs["config"])
    assert _found(error) == [("AP1-CONFIG-SETTING", "$.request.sampling.temperature", message)]


def test_no_sampling_parameter_and_no_quantisation_part_may_be_left_out(
    docs: dict[str, Any],
) -> None:
    del docs["config"]["request"]["sampling"]["stop"]
    del docs["config"]["answer"]["quantisation"]["rounding"]
    error = _refusal(docs["config"])
    assert sorted(v.path for v in error.violations) == [
        "$.answer.quantisation.rounding",
        "$.request.sampling.stop",
    ]
    assert {v.message for v in error.violations} == {"this required field is missing"}


def test_a_credential_in_the_config_is_refused_without_repeating_it(docs: dict[str, Any]) -> None:
    secret = "sk-proj-abcdefghijklmnopqrstuvwx"
    docs["config"]["endpoint"]["model"] = secret
    error = _refusal(docs["config"])
    assert error.code == "AP1-CONFIG-CREDENTIAL"
    assert error.violations[0].path == "$.endpoint.model"
    assert secret not in str(error.to_dict())


def test_conditions_that_do_not_differ_are_refused(docs: dict[str, Any]) -> None:
    conditions = docs["config"]["conditions"]
    conditions["instructionRemoved"]["systemPrompt"] = conditions["base"]["systemPrompt"]
    error = _refusal(docs["config"])
    assert _found(error) == [
        (
            "AP1-CONDITIONS-DIFFER",
            "$.conditions",
            "the conditions do not differ in the declared quantity systemPrompt; the "
            "instruction-removed condition would measure nothing",
        )
    ]


def test_every_extra_difference_between_conditions_is_named(docs: dict[str, Any]) -> None:
    config = docs["config"]
    removed = config["conditions"]["instructionRemoved"]
    removed["sampling"] = {**config["request"]["sampling"], "temperature": {"send": "1"}}
    removed["tool"] = {**config["request"]["tool"], "description": "A different description."}
    removed["userPreamble"] = "Be brief."
    error = _refusal(config)
    assert _found(error) == [
        (
            "AP1-CONDITIONS-DIFFER",
            "$.conditions",
            "the conditions differ in 3 quantities besides the declared systemPrompt: "
            "userPreamble, tool.description, sampling.temperature.send; exactly one may differ",
        )
    ]


def test_an_identical_override_is_not_a_difference(docs: dict[str, Any]) -> None:
    config = docs["config"]
    config["conditions"]["instructionRemoved"]["sampling"] = config["request"]["sampling"]
    assert load_config(config).condition("instruction-removed").sampling["seed"] == {"send": "7"}


def test_transport_values_are_checked(docs: dict[str, Any]) -> None:
    transport = docs["config"]["transport"]
    transport["timeoutSeconds"] = "0"
    transport["backoffMultiplier"] = "0.5"
    error = _refusal(docs["config"])
    assert [v.path for v in error.violations] == [
        "$.transport.timeoutSeconds",
        "$.transport.backoffMultiplier",
    ]


def test_repeats_beyond_the_planned_limit_are_refused_before_any_plan(
    docs: dict[str, Any],
) -> None:
    """Schemathesis found a configuration of 10^10 repeats holding an API worker for minutes."""
    docs["config"]["repeats"] = "10000"
    assert load_config(docs["config"]).repeats == 10_000
    docs["config"]["repeats"] = "10000000000"
    error = _refusal(docs["config"])
    assert _found(error) == [
        (
            "AP1-CONFIG-REPEATS",
            "$.repeats",
            "10000000000 repeats asked for; at most 10,000 are planned",
        )
    ]
