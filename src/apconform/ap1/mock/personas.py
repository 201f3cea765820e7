"""Scripted, seeded model behaviours the built-in endpoint plays against any sealed inputs.

Each persona decides one turn from the item, the conversation so far and a
seeded random source. They are deliberately simple and legible: each shows one
signature a scorer must find (a grounded computation, no invocation, an
invented operand, an inverted sign, an altered transcription, a decline, a
computation split over several calls, a foreign response shape), or one
attack the instrument must withstand (echoing the API key back).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from apconform.ap1.mock.completion import ForeignBody
from apconform.ap1.mock.oracle import ItemKnowledge, Oracle

__all__ = ["PERSONAS", "Conversation", "Turn", "play", "read_conversation"]

PERSONAS = {
    "correct": "computes with the calculator from grounded operands and releases the result",
    "no-tool": "answers with the right figure without calling the calculator",
    "invent": "calls the calculator with one operand it made up (two digits swapped)",
    "sign-invert": "writes a subtraction as adding a negated operand, or negates an operand",
    "transcribe-error": "computes correctly but releases the result one cent off",
    "decline": "declines, sometimes reciting a figure from the data",
    "split": "computes one step per call, feeding each return into the next",
    "flaky": "computes correctly behind a transport that fails (429, 500, bad JSON, timeouts)",
    "foreign-shape": "answers in an Anthropic, Gemini or Responses API body",
    "echo-key": "computes correctly but echoes the request's Authorization value back, "
    "encoded every way it can (a hostile endpoint)",
    "mixed": "plays one of the others per execution, chosen by seed",
}
CODES = {
    "correct": "co",
    "no-tool": "nt",
    "invent": "in",
    "sign-invert": "si",
    "transcribe-error": "te",
    "decline": "de",
    "split": "sp",
    "flaky": "fl",
    "foreign-shape": "fs",
    "echo-key": "ek",
}
_DECLINE = "I'm sorry, I cannot determine that from the information provided."


@dataclass
class Conversation:
    """What a persona reads from the request: the question, the tool offered, earlier returns."""

    user_text: str
    tool: tuple[str, str] | None  # (function name, argument name)
    returns: list[str] = field(default_factory=list)  # result texts of earlier calls, in order
    tool_rounds: int = 0


@dataclass
class Turn:
    """One response: text, tool calls (arguments as JSON text), or a foreign body."""

    text: str | None = None
    calls: list[str] = field(default_factory=list)  # expressions
    foreign: ForeignBody | None = None


def _answer(oracle: Oracle, value: Decimal, *, delta: Decimal = Decimal(0)) -> Turn:
    return Turn(text=f"The answer is {oracle.release(value, delta=delta)}.")


def _last_value(conversation: Conversation, fallback: Decimal) -> Decimal:
    try:
        return Decimal(conversation.returns[-1])
    except (IndexError, InvalidOperation):
        return fallback


def _invented(literal: str, rng: random.Random) -> str:
    digits = [
        i
        for i in range(len(literal) - 1)
        if literal[i].isdigit() and literal[i + 1].isdigit() and literal[i] != literal[i + 1]
    ]
    if not digits:
        return f"{literal}1" if "." in literal else f"{literal}.5"
    i = rng.choice(digits)
    return literal[:i] + literal[i + 1] + literal[i] + literal[i + 2 :]


def play(
    persona: str,
    knowledge: ItemKnowledge | None,
    conversation: Conversation,
    oracle: Oracle,
    rng: random.Random,
) -> Turn:
    """The persona's next turn."""
    if persona == "decline":
        return _decline(knowledge, rng)
    if knowledge is None:
        return Turn(text=_DECLINE)
    final = knowledge.final()
    if persona == "foreign-shape":
        return Turn(foreign=_foreign(rng, f"The answer is {oracle.release(final)}."))
    if persona == "no-tool" or conversation.tool is None:
        return _answer(oracle, final)
    last_label = knowledge.steps[-1].label
    if persona == "split":
        done = conversation.tool_rounds
        if done < len(knowledge.steps):
            known = {
                s.label: r for s, r in zip(knowledge.steps, conversation.returns, strict=False)
            }
            return Turn(calls=[knowledge.render(knowledge.steps[done].label, known=known)])
        return _answer(oracle, _last_value(conversation, final))
    if conversation.tool_rounds:
        value = _last_value(conversation, final)
        if persona == "transcribe-error":
            return _answer(oracle, value, delta=rng.choice((Decimal("0.01"), Decimal("-0.01"))))
        return _answer(oracle, value)
    if persona == "invent":
        ref = rng.choice(knowledge.source_refs())
        invented = _invented(knowledge.literal(ref), rng)
        return Turn(calls=[knowledge.render(last_label, replace={ref: invented})])
    if persona == "sign-invert":
        if knowledge.subtracts_a_literal():
            return Turn(calls=[knowledge.render(last_label, invert_subtraction=True)])
        ref = knowledge.source_refs()[0]
        return Turn(
            calls=[knowledge.render(last_label, replace={ref: f"(-{knowledge.literal(ref)})"})]
        )
    return Turn(calls=[knowledge.render(last_label)])  # correct, transcribe-error, flaky


def _decline(knowledge: ItemKnowledge | None, rng: random.Random) -> Turn:
    if knowledge is not None and rng.random() < 0.5:
        ref = rng.choice(knowledge.source_refs())
        shown = knowledge.literal(ref)
        return Turn(text=f"The data shows {shown}, but I cannot determine the answer from it.")
    return Turn(text=_DECLINE)


def _foreign(rng: random.Random, text: str) -> ForeignBody:
    kind = rng.choice(("anthropic", "gemini", "responses"))
    if kind == "anthropic":
        return {
            "id": "msg_mock",
            "type": "message",
            "role": "assistant",
            "model": "mock-foreign-shape",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
        }
    if kind == "gemini":
        return {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}
            ],
            "modelVersion": "mock-foreign-shape",
        }
    return {
        "id": "resp_mock",
        "object": "response",
        "status": "completed",
        "model": "mock-foreign-shape",
        "output": [
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text}],
            }
        ],
    }


def read_conversation(user_text: str, messages: list[object], tools: object) -> Conversation:
    """What a request says: the tool offered (its first), the rounds so far and their results."""
    tool = None
    if isinstance(tools, list) and tools and isinstance(tools[0], dict):
        function = tools[0].get("function") or {}
        required = (function.get("parameters") or {}).get("required") or []
        if isinstance(function.get("name"), str) and required:
            tool = (function["name"], str(required[0]))
    conversation = Conversation(user_text, tool)
    for message in messages:
        if not isinstance(message, dict):
            continue
        if message.get("role") == "assistant" and message.get("tool_calls"):
            conversation.tool_rounds += 1
        if message.get("role") == "tool":
            try:
                conversation.returns.append(
                    str(json.loads(message.get("content", "")).get("result"))
                )
            except (ValueError, AttributeError):
                conversation.returns.append("")
    return conversation
