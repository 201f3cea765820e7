"""The JSON bodies the built-in endpoint answers with, named member by member.

The endpoint speaks OpenAI-style chat completions: a completion whose one
choice carries the assistant's message (text, or tool calls), or an error
object. The ``foreign-shape`` persona answers in other providers' shapes
instead (an Anthropic message, a Gemini ``generateContent`` response, an
OpenAI Responses object), which a run must refuse to read as a completion.
Each is a :class:`~typing.TypedDict`: at run time a plain dict, built in the
order its members are sent, so the bytes served are unchanged.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

__all__ = [
    "AnthropicMessage",
    "AssistantMessage",
    "ChatCompletion",
    "Choice",
    "ErrorBody",
    "ErrorDetail",
    "ForeignBody",
    "FunctionCall",
    "GeminiResponse",
    "ResponsesObject",
    "ToolCall",
    "Usage",
]


class FunctionCall(TypedDict):
    """The function a tool call names, with its arguments as JSON text."""

    name: str
    arguments: str


class ToolCall(TypedDict):
    """One tool call of an assistant message."""

    id: str
    type: str
    function: FunctionCall


class AssistantMessage(TypedDict):
    """The assistant's message: text, or (content null) tool calls."""

    role: str
    content: str | None
    tool_calls: NotRequired[list[ToolCall]]


class Choice(TypedDict):
    """The one choice of a completion."""

    index: int
    message: AssistantMessage
    finish_reason: str


class Usage(TypedDict):
    """Token counts (the built-in endpoint counts none)."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(TypedDict):
    """A chat completion; the sampling parameters a request sent are echoed back."""

    id: str
    object: str
    created: int
    model: str
    system_fingerprint: str
    choices: list[Choice]
    usage: Usage
    temperature: NotRequired[object]
    top_p: NotRequired[object]
    seed: NotRequired[object]


class ErrorDetail(TypedDict):
    """What went wrong, as OpenAI-compatible endpoints say it."""

    message: str
    type: str
    code: str


class ErrorBody(TypedDict):
    """An error response's body."""

    error: ErrorDetail


class _TextBlock(TypedDict):
    type: str
    text: str


class AnthropicMessage(TypedDict):
    """An answer in the Anthropic Messages shape."""

    id: str
    type: str
    role: str
    model: str
    content: list[_TextBlock]
    stop_reason: str


class _GeminiPart(TypedDict):
    text: str


class _GeminiContent(TypedDict):
    role: str
    parts: list[_GeminiPart]


class _GeminiCandidate(TypedDict):
    content: _GeminiContent
    finishReason: str


class GeminiResponse(TypedDict):
    """An answer in the Gemini ``generateContent`` shape."""

    candidates: list[_GeminiCandidate]
    modelVersion: str


class _ResponsesMessage(TypedDict):
    type: str
    role: str
    content: list[_TextBlock]


class ResponsesObject(TypedDict):
    """An answer in the OpenAI Responses shape."""

    id: str
    object: str
    status: str
    model: str
    output: list[_ResponsesMessage]


ForeignBody = AnthropicMessage | GeminiResponse | ResponsesObject
"""What the foreign-shape persona answers with instead of a chat completion."""
