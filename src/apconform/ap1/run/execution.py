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
from dataclasses import dataclass
from typing import Any

from apconform.ap1.calculator.evaluator import Calculator
from apconform.ap1.clock import elapsed_text, utc_now
from apconform.ap1.inputs.items import delivered_context, render_user_message
from apconform.ap1.inputs.plan import Cell, RunInputs
from apconform.ap1.run.endpoint import Endpoint, Exchange, Interrupted
from apconform.ap1.run.request import build_body, initial_messages
from apconform.ap1.run.shapes import CHAT, classify_shape, read_chat_message
from apconform.ap1.run.toolcall import run_tool_call
from apconform.core.canonical import sha256_hex

__all__ = ["ExecutionContext", "Interrupted", "execute_cell"]


@dataclass(frozen=True)
class ExecutionContext:
    """What every execution of a run shares."""

    inputs: RunInputs
    endpoint: Endpoint
    calculator: Calculator
    stop: threading.Event


def execute_cell(cell: Cell, ctx: ExecutionContext) -> dict[str, Any]:
    """Run one cell and return its execution record (raise Interrupted when the run stops)."""
    inputs = ctx.inputs
    item = inputs.items[cell.item_id]
    view = inputs.config.condition(cell.condition)
    started_at, started = utc_now(), time.perf_counter()
    record: dict[str, Any] = {
        "cellKey": cell.key,
        "condition": cell.condition,
        "itemId": cell.item_id,
        "repeat": str(cell.repeat),
        "status": "EXECUTED",
        "statusReason": None,
        "stopReason": "final-answer",
        "startedAt": started_at,
        "elapsedSeconds": "0",
        "deliveredContextSha256": sha256_hex(delivered_context(inputs.fixture, item)),
        "rounds": [],
        "toolCalls": [],
        "finalText": None,
        "evidenceInputs": {
            "toolsOffered": True,
            "toolName": view.tool["name"],
            "roundsRecorded": "0",
            "allRoundsReadable": True,
        },
    }
    if cell.void:
        reason = inputs.derivation_of[cell.item_id].reasonUnderivable or "underivable"
        record.update(status="VOID", statusReason=reason, stopReason="not-sent")
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
    record: dict[str, Any], messages: list[dict[str, Any]], view: Any, ctx: ExecutionContext
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
                status="UNMEASURED",
                statusReason=f"round {number}: {exchange.cause}",
                stopReason="transport-exhausted",
            )
            return
        shape, detail = classify_shape(exchange.body)
        if shape != CHAT:
            record["evidenceInputs"]["allRoundsReadable"] = False
            record.update(
                status="UNOBSERVABLE",
                statusReason=f"round {number}: the response is in the {shape} shape ({detail})",
                stopReason="unreadable-response",
            )
            return
        chat = read_chat_message(exchange.body)
        record["finalText"] = ctx.endpoint.mask(chat.text) if chat.text is not None else None
        if not chat.tool_calls:
            return
        last = number == max_turns
        tool_messages = []
        for index, call in enumerate(chat.tool_calls):
            entry, content = _tool_call(number, index, call, tool, ctx, execute=not last)
            record["toolCalls"].append(entry)
            if content is not None:
                tool_messages.append(
                    {"role": "tool", "tool_call_id": entry["id"] or "", "content": content}
                )
        if last:
            record["stopReason"] = "turn-limit"
            return
        messages.append(chat.message)
        messages.extend(tool_messages)


def _tool_call(
    number: int,
    index: int,
    call: Any,
    tool: dict[str, Any],
    ctx: ExecutionContext,
    *,
    execute: bool,
) -> tuple[dict[str, Any], str | None]:
    function = call.get("function") if isinstance(call, dict) else None
    function = function if isinstance(function, dict) else {}
    call_id = call.get("id") if isinstance(call, dict) else None
    name = function.get("name")
    arguments = function.get("arguments")
    entry: dict[str, Any] = {
        "round": str(number),
        "index": str(index),
        "id": call_id if isinstance(call_id, str) else None,
        "name": name if isinstance(name, str) else "",
        "argumentsRaw": ctx.endpoint.mask(arguments) if isinstance(arguments, str) else "",
        "returnRaw": None,
        "outcome": "not-executed",
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
    entry.update(returnRaw=outcome.content, outcome=outcome.outcome)
    return entry, outcome.content


def _round(number: int, exchange: Exchange) -> dict[str, Any]:
    out: dict[str, Any] = {
        "round": str(number),
        "request": exchange.request,
        "attempts": exchange.attempts,
    }
    if exchange.response is not None:
        out["response"] = exchange.response
    return out
