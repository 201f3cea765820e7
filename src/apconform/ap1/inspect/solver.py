"""The AP-1 tool loop inside Inspect: the instrument's rounds, with Inspect generating each one.

Each round is sent by the sealed transport policy (``transport``): every
attempt is one Inspect ``generate``, so Inspect's connection limits, sample
limits and model roles apply while the retries, backoff and attempt timeout
are the sealed ones, and a round whose attempts all fail ends the execution
as UNMEASURED, one answered in a shape that is not a chat completion as
UNOBSERVABLE, as the native engine records them. The loop then executes every
tool call itself: the name and the parsed arguments come from the model
output Inspect hands the solver, the argument text from the provider's
response Inspect recorded (with Inspect's attachments resolved), with the
instrument's calculator and argument rules, and sends back the instrument's
return text; in the last allowed round the calls are recorded and not
executed. What was sent and executed is kept in the sample's store for the
import and the scorer.
"""

from __future__ import annotations

import copy
from typing import Any

from inspect_ai.log import transcript
from inspect_ai.model import ChatMessageTool, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolCall

from apconform.ap1.inspect.attachments import resolve
from apconform.ap1.inspect.context import METADATA_KEY, STORE_KEY, sealed_context
from apconform.ap1.inspect.sampling import generate_settings
from apconform.ap1.inspect.tool import calculator_tool
from apconform.ap1.inspect.toolcalls import raw_arguments
from apconform.ap1.inspect.transport import (
    LoopAttempt,
    RoundSent,
    attempt_settings,
    prepare_provider,
    send_round,
)
from apconform.ap1.run.retry import RetryPolicy
from apconform.ap1.run.toolcall import run_tool_call

__all__ = ["ap1_tool_loop"]


def _response(sent: RoundSent) -> Any:
    """The answered response: as it arrived when the task kept its bytes, else as Inspect recorded
    it (attachments resolved), else None."""
    if sent.body is not None:
        return sent.body
    call = sent.event.call if sent.event is not None else None
    if call is None:
        return None
    return resolve(call.response, transcript().attachments)


@solver(name="ap1_tool_loop")
def ap1_tool_loop(run_dir: str) -> Solver:
    """The AP-1 execution of one planned cell (see the module docstring)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        context = sealed_context(run_dir)
        cell = state.metadata[METADATA_KEY]
        record: dict[str, Any] = {
            "cellKey": cell["cellKey"],
            "rounds": 0,
            "attempts": [],
            "toolCalls": [],
        }

        def keep() -> None:
            state.store.set(STORE_KEY, copy.deepcopy(record))

        if cell["void"]:
            record["stopReason"] = "not-sent"
            keep()
            state.completed = True
            return state
        view = context.run.inputs.config.condition(cell["condition"])
        settings = generate_settings(view)
        policy = RetryPolicy.from_model(context.run.inputs.config.model.transport)
        tool = view.tool
        state.tools = [calculator_tool(tool, context.calculator)]
        state.tool_choice = settings.tool_choice  # type: ignore[assignment]
        _, rounded = attempt_settings(policy)
        record.update(
            stopReason="final-answer",
            unapplied=settings.unapplied,
            transport=[*prepare_provider(get_model()), *([rounded] if rounded else [])],
        )
        keep()  # kept even if a limit stops round 1

        def attempted(entry: LoopAttempt) -> None:
            record["attempts"].append(entry)
            keep()

        for number in range(1, context.max_turns + 1):
            record["rounds"] = number
            sent = await send_round(state, generate, number, settings.config, policy, attempted)
            if sent.cause is not None:
                record.update(
                    status="UNMEASURED",
                    statusReason=f"round {number}: {sent.cause}",
                    stopReason="transport-exhausted",
                )
                break
            if sent.unreadable is not None:
                shape, detail = sent.unreadable
                record.update(
                    status="UNOBSERVABLE",
                    statusReason=f"round {number}: the response is in the {shape} shape ({detail})",
                    stopReason="unreadable-response",
                )
                break
            keep()
            calls = _calls(state.output)
            if not calls:
                break
            last = number == context.max_turns
            texts = raw_arguments(_response(sent), [(c.id, c.arguments) for c in calls])
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
            keep()
            if last:
                record["stopReason"] = "turn-limit"
        keep()
        return state

    return solve


def _calls(output: ModelOutput) -> list[ToolCall]:
    if not output.choices:
        return []
    return list(output.message.tool_calls or [])
