"""One Inspect sample as an AP-1 execution record, checked against the sealed plan on the way.

The record has the native record's members, filled from what Inspect
recorded: each model event is a round (the provider request and response
objects as Inspect recorded them, written as RFC 8785 text), the tool calls
and returns are the ones the task's loop executed (kept in the sample's
store), and ``provenance`` says what Inspect does not record and which members
were derived. Everything is checked first: the sample must belong to the
sealed plan, open with the messages the instrument renders, and its tool
returns must be what the instrument's calculator returns for the recorded
argument text; a sample that fails a check is refused, never repaired.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from apconform.ap1.inputs.items import delivered_context
from apconform.ap1.inputs.plan import Cell
from apconform.ap1.inspect.context import SealedContext
from apconform.ap1.inspect.sampling import recorded_sampling
from apconform.ap1.inspect.toolcalls import INSPECT_PARSED, raw_arguments
from apconform.ap1.masking import Masker
from apconform.ap1.run.shapes import CHAT, classify_shape, echoed_sampling, read_chat_message
from apconform.ap1.run.toolcall import run_tool_call
from apconform.ap1.run.wire import parse_body
from apconform.core.canonical import canonical_text, sha256_bytes, sha256_hex
from apconform.core.errors import ApconformError

__all__ = ["NOT_RECORDED", "SOURCE", "InspectSample", "SampleRefused", "execution_record"]

SOURCE = "inspect-ai"
NOT_RECORDED = (
    "the bytes sent and received over HTTP: request and response bodies are the objects "
    "Inspect recorded, so bodySha256 is the hash of their RFC 8785 text, not of the bytes "
    "on the wire",
    "request and response headers",
    "each attempt of a retried round: Inspect records one model event per round with its "
    "number of retries",
    "the argument text of a tool call when the provider returns the arguments already parsed",
)
_URL = re.compile(r"^https?://[!-.0-~]+(/[!-~]*)?$")


class SampleRefused(ValueError):
    """The sample cannot become a record of this sealed run; the message says why."""


@dataclass(frozen=True)
class InspectSample:
    """What the import (or the scorer) read from one Inspect sample, as plain JSON values."""

    metadata: Mapping[str, Any]
    """The sample's apconform metadata (cell key, condition, item, repeat, void, seal)."""
    store: Mapping[str, Any] | None
    """The task loop's record of the sample (rounds, stop reason, tool calls)."""
    model_events: list[dict[str, Any]]
    """Every model event of the sample, in order, as JSON."""
    tool_returns: dict[str, str]
    """Tool message content by tool call id, from the sample's messages."""
    source_record: str
    source_version: str
    model: str | None = None
    base_url: str | None = None
    error: str | None = None
    limit: str | None = None
    started_at: str | None = None
    total_time: float | None = None
    notes: list[str] = field(default_factory=list)


def _timestamp(value: Any) -> str | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    text = moment.astimezone(UTC).isoformat(timespec="microseconds")
    return text.replace("+00:00", "Z")


def _seconds(value: Any) -> str:
    if not isinstance(value, int | float) or value != value or value < 0:
        return "0"
    return str(Decimal(round(value * 1000)).scaleb(-3))


def _between(start: Any, end: Any) -> float | None:
    a, b = _timestamp(start), _timestamp(end)
    if a is None or b is None:
        return None
    moment = datetime.fromisoformat
    return (moment(b.replace("Z", "+00:00")) - moment(a.replace("Z", "+00:00"))).total_seconds()


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""


def _output_message(event: Mapping[str, Any]) -> dict[str, Any]:
    try:
        message = event["output"]["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        return {}
    return message if isinstance(message, dict) else {}


def _parsed(value: Any, what: str) -> tuple[str, Any]:
    """The RFC 8785 text of a recorded object, and that text parsed with Decimal numbers."""
    try:
        text = canonical_text(value)
        return text, parse_body(text.encode("utf-8"))
    except (ApconformError, ValueError) as exc:
        reason = exc.message if isinstance(exc, ApconformError) else str(exc)
        raise SampleRefused(f"{what} cannot be written as RFC 8785 text ({reason})") from None


@dataclass
class _Builder:
    context: SealedContext
    sample: InspectSample
    cell: Cell
    masker: Masker
    derived: list[str] = field(default_factory=list)

    def refuse(self, message: str) -> SampleRefused:
        return SampleRefused(f"{self.sample.source_record}: {message}")

    def opening(self, event: Mapping[str, Any]) -> None:
        wanted = self.context.opening_messages(self.cell)
        sent = [
            {"role": m.get("role"), "content": _text(m.get("content"))}
            for m in event.get("input") or []
            if isinstance(m, dict)
        ][: len(wanted)]
        if sent != wanted:
            raise self.refuse(
                "the first request does not open with the messages the instrument renders for "
                f"cell {self.cell.key} (the log was made from other inputs)"
            )

    def round(self, number: int, event: Mapping[str, Any], view: Any) -> tuple[dict[str, Any], Any]:
        call = event.get("call") if isinstance(event.get("call"), dict) else None
        if call is not None and isinstance(call.get("request"), dict):
            request_obj: Any = call["request"]
        else:
            request_obj = {k: event.get(k) for k in ("input", "tools", "tool_choice", "config")}
            self.derived.append(
                f"rounds[{number - 1}].request.bodyText: Inspect recorded no provider request; "
                "this is the model event's input, tools, tool choice and configuration"
            )
        request_text, request_body = _parsed(
            request_obj, f"{self.sample.source_record}: round {number}: the recorded request"
        )
        started = _timestamp(event.get("timestamp")) or _timestamp(self.sample.started_at)
        elapsed = _between(event.get("timestamp"), event.get("completed"))
        ids = [r for r in event.get("request_ids") or [] if isinstance(r, dict)]
        status = ids[-1].get("status") if ids else None
        attempt: dict[str, Any] = {
            "attempt": str(int(event.get("retries") or 0) + 1),
            "startedAt": started or "1970-01-01T00:00:00.000000Z",
            "elapsedSeconds": _seconds(
                elapsed if elapsed is not None else event.get("working_time")
            ),
            "outcome": "ok",
        }
        if isinstance(status, int) and status > 0:
            attempt["httpStatus"] = str(status)
        if event.get("error"):
            attempt["outcome"] = "transport-error"
            attempt["error"] = self.masker(str(event["error"]))[:2000]
        url = self.sample.base_url if _URL.match(self.sample.base_url or "") else None
        out: dict[str, Any] = {
            "round": str(number),
            "request": {
                "url": url,
                "headers": [],
                "bodyText": self.masker(request_text),
                "bodySha256": sha256_bytes(request_text.encode("utf-8")),
                "samplingAsSent": recorded_sampling(view, request_body, self.sample.model or "?"),
            },
            "attempts": [attempt],
        }
        body = None
        if call is not None and isinstance(call.get("response"), dict):
            response_text, body = _parsed(
                call["response"], f"round {number}: the recorded response"
            )
            masked = self.masker(response_text)
            shape, detail = classify_shape(body)
            response: dict[str, Any] = {
                "httpStatus": str(status) if isinstance(status, int) and status > 0 else None,
                "bodyText": masked,
                "bodySha256": sha256_bytes(response_text.encode("utf-8")),
                "masked": masked != response_text,
                "shape": shape,
                "samplingEchoed": echoed_sampling(body),
            }
            if detail is not None:
                response["shapeDetail"] = detail
            out["response"] = response
        return out, body

    def final_text(self, number: int, event: Mapping[str, Any], body: Any) -> str | None:
        if body is not None and classify_shape(body)[0] == CHAT:
            text = read_chat_message(body).text
        else:
            message = _output_message(event)
            text = _text(message.get("content"))
            if not text and message.get("tool_calls"):
                text = None
            self.derived.append(
                f"finalText (round {number}): the text of the message Inspect parsed; the "
                "response Inspect recorded is not a chat completion"
            )
        return None if text is None else self.masker(text)

    def tool_calls(self, events: list[dict[str, Any]], store: Mapping[str, Any]) -> list[Any]:
        entries = store.get("toolCalls")
        if not isinstance(entries, list):
            raise self.refuse("the task's record of its tool calls is missing")
        tool = self.context.run.inputs.config.condition(self.cell.condition).tool
        calls = []
        for position, entry in enumerate(entries):
            if not isinstance(entry, dict):
                raise self.refuse(f"tool call {position} of the task's record is not an object")
            number = int(entry.get("round", "0"))
            if not 1 <= number <= len(events):
                raise self.refuse(
                    f"tool call {position} names round {number}, which is not recorded"
                )
            event = events[number - 1]
            made = [
                c for c in _output_message(event).get("tool_calls") or [] if isinstance(c, dict)
            ]
            index = int(entry.get("index", "-1"))
            if not 0 <= index < len(made) or made[index].get("id") != entry.get("id"):
                raise self.refuse(
                    f"tool call {position} is not the call the model made in round {number}"
                )
            call = event.get("call") if isinstance(event.get("call"), dict) else {}
            pairs = [(str(c.get("id")), c.get("arguments") or {}) for c in made]
            text, source = raw_arguments((call or {}).get("response"), pairs)[index]
            if text != entry.get("argumentsRaw") or made[index].get("function") != entry.get(
                "name"
            ):
                raise self.refuse(
                    f"tool call {position}: the task's record of its name or arguments differs "
                    "from the call Inspect recorded"
                )
            if source == INSPECT_PARSED:
                self.derived.append(
                    f"toolCalls[{position}].argumentsRaw: the arguments Inspect parsed, as "
                    "RFC 8785 "
                    "text (the provider's response Inspect recorded holds no argument text)"
                )
            returned = entry.get("returnRaw")
            if returned is None:
                if entry.get("outcome") != "not-executed":
                    raise self.refuse(f"tool call {position} has an outcome but no return")
            else:
                check = run_tool_call(
                    str(entry.get("name")),
                    text,
                    tool_name=tool["name"],
                    argument_name=tool["argumentName"],
                    calculator=self.context.calculator,
                )
                if (check.content, check.outcome) != (returned, entry.get("outcome")):
                    raise self.refuse(
                        f"tool call {position}: the recorded return is not what the instrument's "
                        "calculator returns for the recorded arguments"
                    )
                if self.sample.tool_returns.get(str(entry.get("id"))) != returned:
                    raise self.refuse(
                        f"tool call {position}: the tool message the model received differs from "
                        "the task's record of the return"
                    )
            calls.append(
                {
                    "round": str(number),
                    "index": str(index),
                    "id": self.masker(str(entry["id"])) if entry.get("id") is not None else None,
                    "name": str(entry.get("name") or ""),
                    "argumentsRaw": self.masker(text),
                    "returnRaw": returned,
                    "outcome": str(entry.get("outcome")),
                }
            )
        return calls + self.unrecorded_calls(events, calls)

    def unrecorded_calls(self, events: list[dict[str, Any]], calls: list[Any]) -> list[Any]:
        """Calls the model made that the loop never reached (Inspect stopped the sample first)."""
        seen = {(c["round"], c["index"]) for c in calls}
        out = []
        for number, event in enumerate(events, start=1):
            made = [
                c for c in _output_message(event).get("tool_calls") or [] if isinstance(c, dict)
            ]
            call = event.get("call") if isinstance(event.get("call"), dict) else {}
            pairs = [(str(c.get("id")), c.get("arguments") or {}) for c in made]
            texts = raw_arguments((call or {}).get("response"), pairs)
            for index, (made_call, (text, _)) in enumerate(zip(made, texts, strict=True)):
                if (str(number), str(index)) in seen:
                    continue
                if self.sample.error is None and self.sample.limit is None:
                    raise self.refuse(
                        f"the model's call {index} in round {number} is missing from the task's "
                        "record of its tool calls"
                    )
                out.append(
                    {
                        "round": str(number),
                        "index": str(index),
                        "id": self.masker(str(made_call["id"])) if made_call.get("id") else None,
                        "name": str(made_call.get("function") or ""),
                        "argumentsRaw": self.masker(text),
                        "returnRaw": None,
                        "outcome": "not-executed",
                    }
                )
        return out


def _cell(context: SealedContext, sample: InspectSample) -> Cell:
    meta = sample.metadata
    where = sample.source_record
    if meta.get("sealHash") != context.seal_hash:
        raise SampleRefused(
            f"{where}: the sample was run against seal {meta.get('sealHash')}, "
            f"not this run's {context.seal_hash}"
        )
    planned = {cell.key: cell for cell in context.cells}
    cell = planned.get(str(meta.get("cellKey")))
    if cell is None:
        raise SampleRefused(f"{where}: cell {meta.get('cellKey')!r} is not in the sealed plan")
    if (meta.get("condition"), meta.get("itemId"), meta.get("repeat"), meta.get("void")) != (
        cell.condition,
        cell.item_id,
        str(cell.repeat),
        cell.void,
    ):
        raise SampleRefused(f"{where}: the sample's metadata does not describe cell {cell.key}")
    return cell


def execution_record(
    context: SealedContext, sample: InspectSample, masker: Masker | None = None
) -> dict[str, Any]:
    """The execution record of one sample; raises :class:`SampleRefused` when a check fails."""
    cell = _cell(context, sample)
    builder = _Builder(context, sample, cell, masker or Masker([]))
    inputs = context.run.inputs
    item = inputs.items[cell.item_id]
    view = inputs.config.condition(cell.condition)
    started = _timestamp(sample.started_at)
    events = sample.model_events
    record: dict[str, Any] = {
        "cellKey": cell.key,
        "condition": cell.condition,
        "itemId": cell.item_id,
        "repeat": str(cell.repeat),
        "status": "EXECUTED",
        "statusReason": None,
        "stopReason": "final-answer",
        "startedAt": started
        or (_timestamp(events[0].get("timestamp")) if events else None)
        or "1970-01-01T00:00:00.000000Z",
        "elapsedSeconds": _seconds(sample.total_time),
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
    store = sample.store
    if store is None:
        raise SampleRefused(
            f"{sample.source_record}: the sample holds no record of the apconform ap1 task's loop "
            "(it was not run by that task's solver)"
        )
    if cell.void:
        if events:
            raise SampleRefused(f"{sample.source_record}: cell {cell.key} is VOID but was sent")
        reason = inputs.derivation_of[cell.item_id].reasonUnderivable or "underivable"
        record.update(status="VOID", statusReason=reason, stopReason="not-sent")
    else:
        if events:
            builder.opening(events[0])
        for number, event in enumerate(events, start=1):
            tools = [t.get("name") for t in event.get("tools") or [] if isinstance(t, dict)]
            if view.tool["name"] not in tools:
                record["evidenceInputs"]["toolsOffered"] = False
            round_, body = builder.round(number, event, view)
            record["rounds"].append(round_)
            if not event.get("error"):
                record["finalText"] = builder.final_text(number, event, body)
        record["toolCalls"] = builder.tool_calls(events, store)
        unapplied = store.get("unapplied")
        for name, why in (unapplied if isinstance(unapplied, dict) else {}).items():
            builder.derived.append(
                f"samplingAsSent {name}: sealed as sent, but the task could not hand it to "
                f"Inspect ({why})"
            )
        record["stopReason"] = str(store.get("stopReason") or "final-answer")
        _ending(record, sample, events, store)
    record["evidenceInputs"]["roundsRecorded"] = str(len(record["rounds"]))
    if record["startedAt"] == "1970-01-01T00:00:00.000000Z" and not cell.void:
        builder.derived.append("startedAt: Inspect recorded no start time for the sample")
    if builder.derived or not cell.void:
        builder.derived.insert(
            0,
            "deliveredContextSha256: computed from the sealed inputs (the sample's opening "
            "messages were checked against them)",
        )
    provenance: dict[str, Any] = {
        "source": SOURCE,
        "sourceVersion": sample.source_version,
        "sourceRecord": sample.source_record,
        "notRecorded": list(NOT_RECORDED),
        "derived": builder.derived + list(sample.notes),
    }
    if sample.model:
        provenance["model"] = sample.model
    record["provenance"] = provenance
    return record


def _ending(
    record: dict[str, Any],
    sample: InspectSample,
    events: list[dict[str, Any]],
    store: Mapping[str, Any],
) -> None:
    """The status of a sample Inspect ended early (error or limit); else check the round count."""
    failed = next((e for e in reversed(events) if e.get("error")), None)
    if sample.error is not None:
        first = sample.error.strip().splitlines()[0] if sample.error.strip() else "an error"
        record.update(
            status="UNMEASURED",
            statusReason=f"Inspect ended the sample with an error: {first}"[:2000],
            stopReason="transport-exhausted" if failed is not None or not events else "interrupted",
        )
        return
    if sample.limit is not None:
        record.update(
            status="UNMEASURED",
            statusReason=f"Inspect's {sample.limit} ended the sample",
            stopReason="interrupted",
        )
        return
    if failed is not None:
        record.update(
            status="UNMEASURED",
            statusReason=f"round {len(events)}: {failed.get('error')}"[:2000],
            stopReason="transport-exhausted",
        )
        return
    if int(store.get("rounds") or 0) != len(events):
        raise SampleRefused(
            f"{sample.source_record}: the task's loop records {store.get('rounds')} round(s) but "
            f"Inspect recorded {len(events)} model call(s)"
        )
