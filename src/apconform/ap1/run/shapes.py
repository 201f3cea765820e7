"""Recognising the shape of a response body, and reading a chat completion when it is one.

Only the OpenAI chat-completion shape is read. Other providers' shapes are
named so the execution can be declared UNOBSERVABLE with a diagnostic, never
scored as an answer or as a missing tool call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from apconform.ap1.inputs.config import SAMPLING_PARAMETERS
from apconform.ap1.run.wire import dump

__all__ = [
    "CHAT",
    "ChatMessage",
    "classify_shape",
    "echoed_sampling",
    "read_chat_message",
    "response_record",
]

CHAT = "openai-chat-completion"


def classify_shape(body: Any) -> tuple[str, str | None]:
    """(shape, detail); the detail says what identified a shape other than a chat completion."""
    if not isinstance(body, dict):
        kind = "array" if isinstance(body, list) else type(body).__name__
        return "unrecognised", f"the body is a JSON {kind}, not an object"
    choices = body.get("choices")
    if (
        isinstance(choices, list)
        and choices
        and isinstance(choices[0], dict)
        and isinstance(choices[0].get("message"), dict)
    ):
        return CHAT, None
    if body.get("type") == "message" and isinstance(body.get("content"), list):
        return "anthropic-messages", 'type "message" with a content list (Anthropic Messages API)'
    if isinstance(body.get("candidates"), list):
        return "gemini-generate-content", "a candidates list (Gemini generateContent)"
    if body.get("object") == "response" or (
        isinstance(body.get("output"), list) and "status" in body
    ):
        return "openai-responses", 'object "response" with an output list (OpenAI Responses API)'
    if "error" in body and set(body) <= {"error", "code", "status", "message"}:
        return "error-object", "an error object instead of a completion"
    keys = ", ".join(sorted(str(k) for k in body)[:12]) or "none"
    return "unrecognised", f"top-level keys: {keys}"


def echoed_sampling(body: Any) -> list[dict[str, str]]:
    """Sampling parameters (and tool_choice) the body reports at its top level, verbatim."""
    if not isinstance(body, dict):
        return []
    names = ("tool_choice", *SAMPLING_PARAMETERS)
    return [{"name": n, "valueJson": dump(body[n])} for n in names if n in body]


def response_record(
    status: str | None, text: str, digest: str, body: Any, mask: Callable[[str], str]
) -> dict[str, Any]:
    """The record of a response as received: its text (masked), the digest of its bytes, its
    shape and the sampling it echoes (``body`` is the text parsed, or None when it is not JSON)."""
    masked = mask(text)
    shape, detail = classify_shape(body) if body is not None else ("unrecognised", "not JSON")
    record: dict[str, Any] = {
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

    message: dict[str, Any]
    text: str | None
    tool_calls: list[Any]
    finish_reason: str | None


def read_chat_message(body: dict[str, Any]) -> ChatMessage:
    """Read the first choice of a body already classified as a chat completion."""
    choice = body["choices"][0]
    message = choice["message"]
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
