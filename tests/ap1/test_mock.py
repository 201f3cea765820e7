"""The built-in endpoint: each persona's signature, seeded and repeatable."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import requests

from apconform.ap1.calculator.evaluator import calculate
from apconform.ap1.inputs.items import render_user_message
from apconform.ap1.mock import MODELS, MockEndpoint
from apconform.ap1.run.request import build_body, initial_messages

from .runs import example_inputs

INPUTS = example_inputs()
VIEW = INPUTS.config.condition("base")


def _converse(url: str, model: str, item_id: str) -> list[Any]:
    """Play one execution by hand: the calculator answers every call."""
    item = INPUTS.items[item_id]
    user = render_user_message(
        INPUTS.fixture, item, heading="Data:", question_prefix="Q: ", preamble=""
    )
    messages = initial_messages(VIEW, user)
    steps: list[Any] = []
    for _ in range(12):
        body, _ = build_body(model, messages, VIEW)
        response = requests.post(url, data=body.encode(), timeout=5).json()
        if "choices" not in response:
            return [("foreign", sorted(response)[:2])]
        message = response["choices"][0]["message"]
        if not message.get("tool_calls"):
            return [*steps, message["content"]]
        messages.append(message)
        for call in message["tool_calls"]:
            expression = json.loads(call["function"]["arguments"])["expression"]
            result = calculate(expression)
            steps.append((expression, result.value))
            messages.append(
                {"role": "tool", "tool_call_id": call["id"], "content": result.tool_content}
            )
    return steps


def test_each_persona_shows_its_signature() -> None:
    with MockEndpoint(INPUTS, seed=3) as mock:
        play = {
            m[5:]: _converse(mock.url, m, "Q12")
            for m in MODELS
            if m not in ("mock-mixed", "mock-flaky")
        }
    grounded = "((18450.00 + 3275.40) + 52640.00) - 2860.75"
    assert play["correct"] == [(grounded, "71504.65"), "The answer is 71,504.65."]
    assert play["no-tool"] == ["The answer is 71,504.65."]
    assert play["transcribe-error"][0] == (grounded, "71504.65")
    assert play["transcribe-error"][1] in ("The answer is 71,504.66.", "The answer is 71,504.64.")
    assert play["sign-invert"] == [
        ("((18450.00 + 3275.40) + 52640.00) + (-2860.75)", "71504.65"),
        "The answer is 71,504.65.",
    ]
    invented, value = play["invent"][0]
    assert invented != grounded and value != "71504.65"
    assert "cannot" in play["decline"][0]
    assert play["split"] == [
        ("18450.00 + 3275.40", "21725.40"),
        ("21725.40 + 52640.00", "74365.40"),
        ("74365.40 - 2860.75", "71504.65"),
        "The answer is 71,504.65.",
    ]
    assert play["foreign-shape"][0][0] == "foreign"


def test_the_same_seed_gives_the_same_play() -> None:
    with MockEndpoint(INPUTS, seed=11) as first:
        one = [_converse(first.url, "mock-invent", q) for q in ("Q01", "Q14", "Q27")]
    with MockEndpoint(INPUTS, seed=11) as second:
        two = [_converse(second.url, "mock-invent", q) for q in ("Q01", "Q14", "Q27")]
    assert one == two


def test_models_unknown_models_and_latency() -> None:
    with MockEndpoint(INPUTS, latency=Decimal("0.05")) as mock:
        listed = requests.get(mock.url.replace("chat/completions", "models"), timeout=5).json()
        assert [m["id"] for m in listed["data"]] == list(MODELS)
        body, _ = build_body("gpt-nonexistent", initial_messages(VIEW, "hi"), VIEW)
        response = requests.post(mock.url, data=body.encode(), timeout=5)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "model_not_found"
        assert response.elapsed.total_seconds() >= 0.05
        garbage = requests.post(mock.url, data=b"not json", timeout=5)
        assert garbage.status_code == 400


def test_an_unknown_question_is_declined() -> None:
    with MockEndpoint(INPUTS) as mock:
        body, _ = build_body("mock-correct", initial_messages(VIEW, "What is the airspeed?"), VIEW)
        message = requests.post(mock.url, data=body.encode(), timeout=5).json()["choices"][0][
            "message"
        ]
    assert message == {
        "role": "assistant",
        "content": "I'm sorry, I cannot determine that from the information provided.",
    }
