"""The argument text of a model's tool call, from the provider's response.

AP-1 keeps a call's arguments as the model wrote them, because the operands
are read from that text. Inspect parses the arguments into a mapping; the
provider's own text survives in the response as it arrived (which the task
keeps for providers it can listen on) and in the response object Inspect
recorded (when it kept one), and only for providers whose responses carry
text (chat completions do).
"""

from __future__ import annotations

from typing import Any

from apconform.core.canonical import canonical_text

__all__ = ["INSPECT_PARSED", "PROVIDER", "raw_arguments"]

PROVIDER = "provider"
INSPECT_PARSED = "inspect-parsed"


def raw_arguments(response: Any, calls: list[tuple[str, Any]]) -> list[tuple[str, str]]:
    """(argument text, where it came from) for each (call id, parsed arguments) of a round.

    The text is the provider's own argument string when ``response`` is a chat
    completion carrying the same call ids; otherwise it is the RFC 8785 text of
    the arguments Inspect parsed (the provider returned no raw text, or no
    response was kept).
    """
    recorded: dict[str, str] = {}
    try:
        for entry in response["choices"][0]["message"]["tool_calls"] or []:
            arguments = entry["function"]["arguments"]
            if isinstance(entry.get("id"), str) and isinstance(arguments, str):
                recorded[entry["id"]] = arguments
    except (KeyError, IndexError, TypeError):
        recorded = {}
    out = []
    for call_id, parsed in calls:
        if call_id in recorded:
            out.append((recorded[call_id], PROVIDER))
        else:
            out.append((canonical_text(parsed), INSPECT_PARSED))
    return out
