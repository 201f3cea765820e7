"""The sealed settings in Inspect's terms, and what the request Inspect recorded carried."""

from __future__ import annotations

from decimal import Decimal

from apconform.ap1.inputs.conditions import ConditionView
from apconform.ap1.inspect.sampling import generate_settings, recorded_sampling

OMIT = {"omit": "operator-declared", "detail": "not used"}
TOOL = {"name": "calculator", "description": "d", "argumentName": "expression"}


def _view(**sent: str) -> ConditionView:
    names = (
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
    sampling = {n: ({"send": sent[n]} if n in sent else dict(OMIT)) for n in names}
    return ConditionView("base", "s", "", TOOL, {"send": "required"}, sampling)


def test_sealed_values_become_inspect_generation_settings() -> None:
    settings = generate_settings(
        _view(temperature="0.25", seed="7", max_completion_tokens="512", top_k="40", stop="END")
    )
    assert settings.config == {
        "temperature": 0.25,
        "seed": 7,
        "max_tokens": 512,
        "top_k": 40,
        "stop_seqs": ["END"],
    }
    assert settings.tool_choice == "any"  # Inspect's name for "required"
    assert settings.unapplied == {}


def test_two_sealed_token_limits_that_differ_cannot_both_be_applied() -> None:
    settings = generate_settings(_view(max_tokens="100", max_completion_tokens="200"))
    assert settings.config == {"max_tokens": 100}
    assert settings.unapplied == {
        "max_completion_tokens": "Inspect has one max_tokens setting, already taken by another "
        "sealed parameter"
    }


def test_what_the_recorded_request_carried_is_what_counts_as_sent() -> None:
    view = _view(temperature="0", seed="7", max_completion_tokens="512", top_k="40")
    request = {
        "model": "m",
        "messages": [],
        "tool_choice": "required",
        "temperature": Decimal("0"),
        "seed": 7,
        "max_tokens": 512,
        "top_p": Decimal("0.9"),
    }
    entries = {e["name"]: e for e in recorded_sampling(view, request, "openai-api/x/m")}
    assert entries["tool_choice"] == {"name": "tool_choice", "sent": '"required"'}
    assert entries["temperature"] == {"name": "temperature", "sent": "0"}
    assert entries["max_completion_tokens"] == {
        "name": "max_completion_tokens",
        "sent": "512",
        "detail": "carried as max_tokens in the request Inspect recorded",
    }
    assert entries["max_tokens"] == {
        "name": "max_tokens",
        "omitted": "operator-declared",
        "detail": "not used",
    }
    assert entries["top_k"] == {
        "name": "top_k",
        "omitted": "platform-unsupported",
        "detail": "sealed as 40, but the request Inspect recorded for provider openai-api/x/m "
        "does not carry it",
    }
    assert entries["top_p"] == {
        "name": "top_p",
        "sent": "0.9",
        "detail": "the seal omits it (operator-declared), but the request Inspect recorded "
        "carries it as top_p",
    }
    assert list(entries) == [
        "tool_choice",
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
    ]


def test_settings_nested_by_a_provider_are_found() -> None:
    view = _view(top_k="40", stop="END")
    request = {"generation_config": {"topK": 40, "stopSequences": ["END"]}}
    entries = {e["name"]: e for e in recorded_sampling(view, request, "google/g")}
    assert entries["top_k"] == {
        "name": "top_k",
        "sent": "40",
        "detail": "carried as generation_config.topK in the request Inspect recorded",
    }
    assert entries["stop"]["sent"] == '["END"]'
