"""Executing one tool call exactly as the model made it, and what the model gets back.

The arguments string is kept verbatim for the transcript; it is parsed with the
bounded loader and must be a JSON object holding exactly the declared argument
as a string. Anything else (an unknown tool, malformed arguments, a calculator
failure) is answered with an error object the model can read and act on.
"""

from __future__ import annotations

from dataclasses import dataclass

from apconform.ap1.calculator.evaluator import Calculator
from apconform.core.canonical import canonical_text
from apconform.core.errors import ApconformError
from apconform.core.jsonload import Limits, loads

__all__ = ["ToolOutcome", "run_tool_call"]

_ARGUMENT_LIMITS = Limits(max_bytes=65_536, max_depth=8, max_nodes=1_000)


@dataclass(frozen=True)
class ToolOutcome:
    """What happened to one call (a ToolCallOutcome value) and the content sent back."""

    outcome: str
    content: str


def _error(outcome: str, message: str) -> ToolOutcome:
    return ToolOutcome(outcome, canonical_text({"error": message}))


def run_tool_call(
    name: str, arguments_raw: str, *, tool_name: str, argument_name: str, calculator: Calculator
) -> ToolOutcome:
    """Run one call; never raises."""
    if name != tool_name:
        return _error("unknown-tool", f"unknown tool {name!r}; the only tool is {tool_name!r}")
    try:
        arguments = loads(arguments_raw.encode("utf-8", "surrogatepass"), limits=_ARGUMENT_LIMITS)
    except (ApconformError, UnicodeError) as exc:
        reason = exc.message if isinstance(exc, ApconformError) else "not valid UTF-8"
        return _error(
            "malformed-arguments",
            f'the arguments are not a JSON object like {{"{argument_name}": "..."}} ({reason})',
        )
    if not isinstance(arguments, dict) or not isinstance(arguments.get(argument_name), str):
        return _error(
            "malformed-arguments",
            f'the arguments must be a JSON object with a string member "{argument_name}"',
        )
    extra = sorted(set(arguments) - {argument_name})
    if extra:
        return _error(
            "malformed-arguments",
            f"unexpected argument(s) {', '.join(repr(k) for k in extra)}; "
            f'send only "{argument_name}"',
        )
    result = calculator(arguments[argument_name])
    return ToolOutcome("result" if result.ok else "tool-error", result.tool_content)
