"""The AP-1 tool loop inside Inspect: the instrument's rounds, with Inspect generating each one.

Each round is one Inspect ``generate`` (so Inspect's retries, connection
limits, sample limits and model roles apply). The loop then executes every
tool call itself, from the argument text exactly as the provider returned it,
with the instrument's calculator and argument rules, and sends back the
instrument's return text; in the last allowed round the calls are recorded and
not executed, as the native engine does. What was executed is kept in the
sample's store for the import and the scorer.
"""

from __future__ import annotations

import copy
from typing import Any

from inspect_ai.log import transcript
from inspect_ai.model import ChatMessageTool, ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolCall

from apconform.ap1.inspect.context import METADATA_KEY, STORE_KEY, sealed_context
from apconform.ap1.inspect.sampling import generate_settings
from apconform.ap1.inspect.tool import calculator_tool
from apconform.ap1.inspect.toolcalls import raw_arguments
from apconform.ap1.run.toolcall import run_tool_call

__all__ = ["ap1_tool_loop"]


def _last_response() -> Any:
    events = [e for e in transcript().events if e.event == "model"]
    call = events[-1].call if events else None
    return None if call is None else call.response


@solver(name="ap1_tool_loop")
def ap1_tool_loop(run_dir: str) -> Solver:
    """The AP-1 execution of one planned cell (see the module docstring)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        context = sealed_context(run_dir)
        cell = state.metadata[METADATA_KEY]
        record: dict[str, Any] = {"cellKey": cell["cellKey"], "rounds": 0, "toolCalls": []}
        if cell["void"]:
            record["stopReason"] = "not-sent"
            state.store.set(STORE_KEY, copy.deepcopy(record))
            state.completed = True
            return state
        view = context.run.inputs.config.condition(cell["condition"])
        settings = generate_settings(view)
        tool = view.tool
        state.tools = [calculator_tool(tool, context.calculator)]
        state.tool_choice = settings.tool_choice  # type: ignore[assignment]
        record["stopReason"] = "final-answer"
        record["unapplied"] = settings.unapplied
        state.store.set(STORE_KEY, copy.deepcopy(record))  # kept even if a limit stops round 1
        for number in range(1, context.max_turns + 1):
            state = await generate(state, tool_calls="none", **settings.config)
            record["rounds"] = number
            state.store.set(STORE_KEY, copy.deepcopy(record))
            calls = _calls(state.output)
            if not calls:
                break
            last = number == context.max_turns
            texts = raw_arguments(_last_response(), [(c.id, c.arguments) for c in calls])
            for index, (call, (text, source)) in enumerate(zip(calls, texts, strict=True)):
                entry = {
                    "round": str(number),
                    "index": str(index),
                    "id": call.id,
                    "name": call.function,
                    "argumentsRaw": text,
                    "argumentsSource": source,
                    "returnRaw": None,
                    "outcome": "not-executed",
                }
                if not last:
                    outcome = run_tool_call(
                        call.function,
                        text,
                        tool_name=tool["name"],
                        argument_name=tool["argumentName"],
                        calculator=context.calculator,
                    )
                    entry.update(returnRaw=outcome.content, outcome=outcome.outcome)
                    state.messages.append(
                        ChatMessageTool(
                            content=outcome.content, tool_call_id=call.id, function=call.function
                        )
                    )
                record["toolCalls"].append(entry)
            state.store.set(STORE_KEY, copy.deepcopy(record))
            if last:
                record["stopReason"] = "turn-limit"
        state.store.set(STORE_KEY, copy.deepcopy(record))
        return state

    return solve


def _calls(output: ModelOutput) -> list[ToolCall]:
    if not output.choices:
        return []
    return list(output.message.tool_calls or [])
