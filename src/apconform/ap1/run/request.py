"""The request body of one round, and the record of every setting as sent or omitted."""

from __future__ import annotations

from collections.abc import Mapping

from apconform.ap1.inputs.conditions import ConditionView
from apconform.ap1.inputs.config import SAMPLING_PARAMETERS
from apconform.ap1.run.record import SentParameter
from apconform.ap1.run.wire import Raw, dump

__all__ = ["NUMERIC_PARAMETERS", "build_body", "initial_messages", "tool_definition"]

NUMERIC_PARAMETERS = frozenset(
    {
        "temperature",
        "top_p",
        "presence_penalty",
        "frequency_penalty",
        "seed",
        "max_tokens",
        "max_completion_tokens",
        "top_k",
    }
)


def tool_definition(tool: Mapping[str, str]) -> dict[str, object]:
    """The OpenAI function-tool object for the calculator."""
    argument = tool["argumentName"]
    return {
        "type": "function",
        "function": {
            "name": tool["name"],
            "description": tool["description"],
            "parameters": {
                "type": "object",
                "properties": {
                    argument: {"type": "string", "description": tool["argumentDescription"]}
                },
                "required": [argument],
            },
        },
    }


def initial_messages(view: ConditionView, user_message: str) -> list[dict[str, object]]:
    """System message (when the condition has one) and the user message."""
    messages: list[dict[str, object]] = []
    if view.system_prompt:
        messages.append({"role": "system", "content": view.system_prompt})
    messages.append({"role": "user", "content": user_message})
    return messages


def _setting(
    name: str, setting: Mapping[str, str], numeric: bool
) -> tuple[str | None, SentParameter]:
    """(value to write or None, the samplingAsSent entry)."""
    if "send" in setting:
        token = Raw(setting["send"]) if numeric else setting["send"]
        return token, {"name": name, "sent": dump(token)}
    entry: SentParameter = {"name": name, "omitted": setting["omit"]}
    if "detail" in setting:
        entry["detail"] = setting["detail"]
    return None, entry


def build_body(
    model: str, messages: list[dict[str, object]], view: ConditionView
) -> tuple[str, list[SentParameter]]:
    """The exact body text and the record of every setting (tool_choice, then sampling)."""
    body: dict[str, object] = {
        "model": model,
        "messages": messages,
        "tools": [tool_definition(view.tool)],
    }
    record: list[SentParameter] = []
    value, entry = _setting("tool_choice", view.tool_choice, numeric=False)
    record.append(entry)
    if value is not None:
        body["tool_choice"] = value
    for name in SAMPLING_PARAMETERS:
        value, entry = _setting(name, view.sampling[name], numeric=name in NUMERIC_PARAMETERS)
        record.append(entry)
        if value is not None:
            body[name] = value
    return dump(body), record
