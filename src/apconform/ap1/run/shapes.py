"""Recognising the shape of a response body, and reading a chat completion when it is one.

Only the OpenAI chat-completion shape is read. Other providers' shapes are
named so the execution can be declared UNOBSERVABLE with a diagnostic, never
scored as an answer or as a missing tool call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from apconform.ap1.inputs.config import SAMPLING_PARAMETERS
from apconform.ap1.run.record import EchoedParameter, ResponseRecord
from apconform.ap1.run.wire import dump
from apconform.models.ap1 import ResponseShape

__all__ = [
    "CHAT",
    "ChatMessage",
    "classify_shape",
    "echoed_sampling",
    "read_chat_message",
    "response_record",
]

CHAT = ResponseShape.openai_chat_completion.value


def classify_shape(body: object) -> tuple[str, str | None]:
    """(shape, detail); the detail says what identified a shape other than a chat completion."""
    if not isinstance(body, dict):
        kind = "array" if isinstance(body, list) else type(body).__name__
        return ResponseShape.unrecognised.value, f"the body is a JSON {kind}, not an object"
    choices = body.get("choices")
    if (
        isinstance(choices, list)
        and choices
        and isinstance(choices[0], dict)
        and isinstance(choices[0].get("message"), dict)
    ):
        return CHAT, None
    if body.get("type") == "message" and isinstance(body.get("content"), list):
        return (
            ResponseShape.anthropic_messages.value,
            'type "message" with a content list (Anthropic Messages API)',
        )
    if isinstance(body.get("candidates"), list):
        return (
            ResponseShape.gemini_generate_content.value,
            "a candidates list (Gemini generateContent)",
        )
    if body.get("object") == "response" or (
        isinstance(body.get("output"), list) and "status" in body
    ):
        return (
            ResponseShape.openai_responses.value,
            'object "response" with an output list (OpenAI Responses API)',
        )
    if "error" in body and set(body) <= {"error", "code", "status", "message"}:
        return ResponseShape.error_object.value, "an error object instead of a completion"
    keys = ", ".join(sorted(str(k) for k in body)[:12]) or "none"
    return ResponseShape.unrecognised.value, f"top-level keys: {keys}"


def echoed_sampling(body: object) -> list[EchoedParameter]:
    """Sampling parameters (and tool_choice) the body reports at its top level, verbatim."""
    if not isinstance(body, dict):
        return []
    names = ("tool_choice", *SAMPLING_PARAMETERS)
    return [{"name": n, "valueJson": dump(body[n])} for n in names if n in body]


def response_record(
    status: str | None, text: str, digest: str, body: object, mask: Callable[[str], str]
) -> ResponseRecord:
    """The record of a response as received: its text (masked), the digest of its bytes, its
    shape and the sampling it echoes (``body`` is the text parsed, or None when it is not JSON)."""
    masked = mask(text)
    shape, detail = (
        classify_shape(body) if body is not None else (ResponseShape.unrecognised.value, "not JSON")
    )
    record: ResponseRecord = {
        "httpStatus": status,
        "bodyText": masked,
        "bodySha256": digest,
        "masked": masked != text,
        "shape": shape,
        "samplingEchoed": echoed_sampling(body),
    }
    if detail is not None:
        record["shapeDetail"] = detail
    return record


@dataclass(frozen=True)
class ChatMessage:
    """The first choice's message: verbatim, plus its text and tool calls."""

    message: dict[str, object]
    text: str | None
    tool_calls: list[object]
    finish_reason: str | None


def read_chat_message(body: object) -> ChatMessage:
    """Read the first choice of a body already classified as a chat completion."""
    choices = body.get("choices") if isinstance(body, dict) else None
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(choice, dict) or not isinstance(message, dict):
        raise ValueError("the body is not a chat completion (classify_shape it first)")
    content = message.get("content")
    if isinstance(content, list):  # some servers send content parts
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        content = "".join(p for p in parts if isinstance(p, str))
    text = content if isinstance(content, str) else None
    calls = message.get("tool_calls")
    finish = choice.get("finish_reason")
    return ChatMessage(
        message=message,
        text=text,
        tool_calls=list(calls) if isinstance(calls, list) else [],
        finish_reason=finish if isinstance(finish, str) else None,
    )
