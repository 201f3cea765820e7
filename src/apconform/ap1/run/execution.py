"""One execution: the rounds of one (condition, item, repeat) cell, recorded in full.

The loop sends a round, reads the response only if it is a chat completion,
executes every tool call in order and sends the results back, until the model
answers without a tool call or the round limit is reached. Whatever happens
ends in exactly one status (EXECUTED, UNMEASURED, UNOBSERVABLE or VOID) with
its reason; nothing is scored here.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from apconform.ap1.calculator.evaluator import Calculator
from apconform.ap1.clock import elapsed_text, utc_now
from apconform.ap1.inputs.conditions import ConditionView
from apconform.ap1.inputs.items import delivered_context, render_user_message
from apconform.ap1.inputs.plan import Cell, RunInputs
from apconform.ap1.masking import Masker
from apconform.ap1.run.endpoint import Exchange, Interrupted
from apconform.ap1.run.record import (
    ExecutionRecord,
    RoundRecord,
    SentParameter,
    ToolCallRecord,
    new_execution_record,
)
from apconform.ap1.run.request import build_body, initial_messages
from apconform.ap1.run.shapes import CHAT, classify_shape, read_chat_message
from apconform.ap1.run.toolcall import run_tool_call
from apconform.core.canonical import sha256_hex
from apconform.models.ap1 import ExecutionStatus, StopReason, ToolCallOutcome

__all__ = ["ExecutionContext", "Interrupted", "RoundSender", "execute_cell"]


class RoundSender(Protocol):
    """What an execution sends its rounds through: the endpoint adapter, or a script."""

    mask: Masker

    def exchange(self, body_text: str, sampling_as_sent: list[SentParameter]) -> Exchange: ...


@dataclass(frozen=True)
class ExecutionContext:
    """What every execution of a run shares."""

    inputs: RunInputs
    endpoint: RoundSender
    calculator: Calculator
    stop: threading.Event


def execute_cell(cell: Cell, ctx: ExecutionContext) -> ExecutionRecord:
    """Run one cell and return its execution record (raise Interrupted when the run stops)."""
    inputs = ctx.inputs
    item = inputs.items[cell.item_id]
    view = inputs.config.condition(cell.condition)
    started_at, started = utc_now(), time.perf_counter()
    record = new_execution_record(
        cell_key=cell.key,
        condition=cell.condition,
        item_id=cell.item_id,
        repeat=str(cell.repeat),
        started_at=started_at,
        elapsed_seconds="0",
        delivered_context_sha256=sha256_hex(delivered_context(inputs.fixture, item)),
        tool_name=view.tool["name"],
    )
    if cell.void:
        reason = inputs.derivation_of[cell.item_id].reasonUnderivable or "underivable"
        record.update(
            {
                "status": ExecutionStatus.VOID.value,
                "statusReason": reason,
                "stopReason": StopReason.not_sent.value,
            }
        )
        return record
    message = inputs.config.model.request.message
    user = render_user_message(
        inputs.fixture,
        item,
        heading=message.contextHeading,
        question_prefix=message.questionPrefix,
        preamble=view.user_preamble,
    )
    messages = initial_messages(view, user)
    _loop(record, messages, view, ctx)
    record["elapsedSeconds"] = elapsed_text(started)
    record["evidenceInputs"]["roundsRecorded"] = str(len(record["rounds"]))
    return record


def _loop(
    record: ExecutionRecord,
    messages: list[dict[str, object]],
    view: ConditionView,
    ctx: ExecutionContext,
) -> None:
    max_turns = int(ctx.inputs.config.model.transport.maxTurns)
    model = ctx.inputs.config.model.endpoint.model
    tool = view.tool
    for number in range(1, max_turns + 1):
        if ctx.stop.is_set():
            raise Interrupted
        body_text, sampling = build_body(model, messages, view)
        exchange = ctx.endpoint.exchange(body_text, sampling)
        record["rounds"].append(_round(number, exchange))
        if not exchange.answered:
            record.update(
                {
                    "status": ExecutionStatus.UNMEASURED.value,
                    "statusReason": f"round {number}: {exchange.cause}",
                    "stopReason": StopReason.transport_exhausted.value,
                }
            )
            return
        shape, detail = classify_shape(exchange.body)
        if shape != CHAT:
            record["evidenceInputs"]["allRoundsReadable"] = False
            record.update(
                {
                    "status": ExecutionStatus.UNOBSERVABLE.value,
                    "statusReason": (
                        f"round {number}: the response is in the {shape} shape ({detail})"
                    ),
                    "stopReason": StopReason.unreadable_response.value,
                }
            )
            return
        chat = read_chat_message(exchange.body)
        record["finalText"] = ctx.endpoint.mask(chat.text) if chat.text is not None else None
        if not chat.tool_calls:
            return
        last = number == max_turns
        tool_messages: list[dict[str, object]] = []
        for index, call in enumerate(chat.tool_calls):
            entry, content = _tool_call(number, index, call, tool, ctx, execute=not last)
            record["toolCalls"].append(entry)
            if content is not None:
                tool_messages.append(
                    {"role": "tool", "tool_call_id": entry["id"] or "", "content": content}
                )
        if last:
            record["stopReason"] = StopReason.turn_limit.value
            return
        messages.append(chat.message)
        messages.extend(tool_messages)


def _tool_call(
    number: int,
    index: int,
    call: object,
    tool: Mapping[str, str],
    ctx: ExecutionContext,
    *,
    execute: bool,
) -> tuple[ToolCallRecord, str | None]:
    function = call.get("function") if isinstance(call, dict) else None
    function = function if isinstance(function, dict) else {}
    call_id = call.get("id") if isinstance(call, dict) else None
    name = function.get("name")
    arguments = function.get("arguments")
    entry: ToolCallRecord = {
        "round": str(number),
        "index": str(index),
        "id": call_id if isinstance(call_id, str) else None,
        "name": name if isinstance(name, str) else "",
        "argumentsRaw": ctx.endpoint.mask(arguments) if isinstance(arguments, str) else "",
        "returnRaw": None,
        "outcome": ToolCallOutcome.not_executed.value,
    }
    if not execute:
        return entry, None
    outcome = run_tool_call(
        entry["name"],
        arguments if isinstance(arguments, str) else "",
        tool_name=tool["name"],
        argument_name=tool["argumentName"],
        calculator=ctx.calculator,
    )
    entry.update({"returnRaw": outcome.content, "outcome": outcome.outcome})
    return entry, outcome.content


def _round(number: int, exchange: Exchange) -> RoundRecord:
    out: RoundRecord = {
        "round": str(number),
        "request": exchange.request,
        "attempts": exchange.attempts,
    }
    if exchange.response is not None:
        out["response"] = exchange.response
    return out
