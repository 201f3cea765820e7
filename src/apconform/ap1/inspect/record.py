"""One Inspect sample as an AP-1 execution record, checked against the sealed plan on the way.

The record has the native record's members, filled from what Inspect
recorded and what the task's loop kept in the sample's store: the rounds
pair each attempt the loop made with its model event (``rounds``), the tool
calls and returns are the ones the loop executed, and ``provenance`` says
what Inspect does not record and which members were derived. Everything is
checked first: the sample must belong to the sealed plan, open with the
messages the instrument renders, its attempts must be the model events
Inspect recorded, and its tool returns must be what the instrument's
calculator returns for the recorded argument text; a sample that fails a
check is refused, never repaired.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from apconform.ap1.inputs.items import delivered_context
from apconform.ap1.inputs.plan import Cell
from apconform.ap1.inspect.context import SealedContext
from apconform.ap1.inspect.rounds import (
    EPOCH,
    Round,
    SampleRefused,
    output_message,
    pair_rounds,
    seconds,
    stamp,
)
from apconform.ap1.inspect.toolcalls import INSPECT_PARSED, raw_arguments
from apconform.ap1.masking import Masker
from apconform.ap1.run.record import (
    ExecutionRecord,
    RecordProvenance,
    ToolCallRecord,
    new_execution_record,
)
from apconform.ap1.run.shapes import CHAT, classify_shape, read_chat_message
from apconform.ap1.run.toolcall import run_tool_call
from apconform.core.canonical import sha256_hex
from apconform.models.ap1 import ExecutionStatus, StopReason, ToolCallOutcome

__all__ = ["NOT_RECORDED", "SOURCE", "InspectSample", "SampleRefused", "execution_record"]

SOURCE = "inspect-ai"
NOT_RECORDED = (
    "the bytes sent and received over HTTP: request and response bodies are the objects "
    "Inspect recorded, so bodySha256 is the hash of their RFC 8785 text, not of the bytes "
    "on the wire",
    "request and response headers",
    "the argument text of a tool call when the provider returns the arguments already parsed, "
    "or when Inspect kept no provider response for the round",
)


@dataclass(frozen=True)
class InspectSample:
    """What the import (or the scorer) read from one Inspect sample, as plain JSON values."""

    metadata: Mapping[str, Any]
    """The sample's apconform metadata (cell key, condition, item, repeat, void, seal)."""
    store: Mapping[str, Any] | None
    """The task loop's record of the sample (rounds, attempts, stop reason, tool calls)."""
    model_events: list[dict[str, Any]]
    """Every model event of the sample, in order, as JSON with attachments resolved."""
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


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""


def _answered_body(answered: Round) -> object:
    """The answered response the argument text is read from: as it arrived when kept, else as
    Inspect recorded it."""
    if answered.body is not None:
        return answered.body
    call = answered.answer.get("call") if answered.answer is not None else None
    return call.get("response") if isinstance(call, dict) else None


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

    def final_text(self, number: int, answered: Round) -> str | None:
        assert answered.answer is not None
        if answered.body is not None and classify_shape(answered.body)[0] == CHAT:
            text = read_chat_message(answered.body).text
        else:
            message = output_message(answered.answer)
            text = _text(message.get("content"))
            if not text and message.get("tool_calls"):
                text = None
            self.derived.append(
                f"finalText (round {number}): the text of the message Inspect parsed; Inspect "
                "kept no chat completion for the round"
            )
        return None if text is None else self.masker(text)

    def tool_calls(self, rounds: list[Round], store: Mapping[str, Any]) -> list[ToolCallRecord]:
        entries = store.get("toolCalls")
        if not isinstance(entries, list):
            raise self.refuse("the task's record of its tool calls is missing")
        tool = self.context.run.inputs.config.condition(self.cell.condition).tool
        calls: list[ToolCallRecord] = []
        for position, entry in enumerate(entries):
            if not isinstance(entry, dict):
                raise self.refuse(f"tool call {position} of the task's record is not an object")
            number = int(entry.get("round", "0"))
            answered = rounds[number - 1] if 1 <= number <= len(rounds) else None
            if answered is None or answered.answer is None:
                raise self.refuse(
                    f"tool call {position} names round {number}, which has no recorded answer"
                )
            made = [
                c
                for c in output_message(answered.answer).get("tool_calls") or []
                if isinstance(c, dict)
            ]
            index = int(entry.get("index", "-1"))
            if not 0 <= index < len(made) or made[index].get("id") != entry.get("id"):
                raise self.refuse(
                    f"tool call {position} is not the call the model made in round {number}"
                )
            pairs = [(str(c.get("id")), c.get("arguments") or {}) for c in made]
            text, source = raw_arguments(_answered_body(answered), pairs)[index]
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
                    "RFC 8785 text (Inspect kept no provider response holding the argument text)"
                )
            returned = entry.get("returnRaw")
            if returned is None:
                if entry.get("outcome") != ToolCallOutcome.not_executed.value:
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
        return calls + self.unrecorded_calls(rounds, calls)

    def unrecorded_calls(
        self, rounds: list[Round], calls: list[ToolCallRecord]
    ) -> list[ToolCallRecord]:
        """Calls the model made that the loop never reached (Inspect stopped the sample first)."""
        seen = {(c["round"], c["index"]) for c in calls}
        out: list[ToolCallRecord] = []
        for number, answered in enumerate(rounds, start=1):
            if answered.answer is None:
                continue
            made = [
                c
                for c in output_message(answered.answer).get("tool_calls") or []
                if isinstance(c, dict)
            ]
            pairs = [(str(c.get("id")), c.get("arguments") or {}) for c in made]
            texts = raw_arguments(_answered_body(answered), pairs)
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
                        "outcome": ToolCallOutcome.not_executed.value,
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
) -> ExecutionRecord:
    """The execution record of one sample; raises :class:`SampleRefused` when a check fails."""
    cell = _cell(context, sample)
    builder = _Builder(context, sample, cell, masker or Masker([]))
    inputs = context.run.inputs
    item = inputs.items[cell.item_id]
    view = inputs.config.condition(cell.condition)
    events = sample.model_events
    started = (
        stamp(sample.started_at) or (stamp(events[0].get("timestamp")) if events else None) or EPOCH
    )
    record = new_execution_record(
        cell_key=cell.key,
        condition=cell.condition,
        item_id=cell.item_id,
        repeat=str(cell.repeat),
        started_at=started,
        elapsed_seconds=seconds(sample.total_time),
        delivered_context_sha256=sha256_hex(delivered_context(inputs.fixture, item)),
        tool_name=view.tool["name"],
    )
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
        record.update(
            {
                "status": ExecutionStatus.VOID.value,
                "statusReason": reason,
                "stopReason": StopReason.not_sent.value,
            }
        )
    else:
        if events:
            builder.opening(events[0])
        rounds, derived = pair_rounds(
            store,
            events,
            view=view,
            where=sample.source_record,
            masker=builder.masker,
            model=sample.model or "?",
            base_url=sample.base_url,
            started=started,
            ended_early=sample.error is not None or sample.limit is not None,
        )
        builder.derived.extend(derived)
        for event in events:
            tools = [t.get("name") for t in event.get("tools") or [] if isinstance(t, dict)]
            if view.tool["name"] not in tools:
                record["evidenceInputs"]["toolsOffered"] = False
        for number, answered in enumerate(rounds, start=1):
            record["rounds"].append(answered.record)
            if answered.answer is not None:
                record["finalText"] = builder.final_text(number, answered)
        record["toolCalls"] = builder.tool_calls(rounds, store)
        unapplied = store.get("unapplied")
        for name, why in (unapplied if isinstance(unapplied, dict) else {}).items():
            builder.derived.append(
                f"samplingAsSent {name}: sealed as sent, but the task could not hand it to "
                f"Inspect ({why})"
            )
        transport = store.get("transport")
        for note in transport if isinstance(transport, list) else []:
            builder.derived.append(f"transport: {note}")
        record["stopReason"] = str(store.get("stopReason") or StopReason.final_answer.value)
        _ending(record, sample, rounds, store, builder.masker)
    record["evidenceInputs"]["roundsRecorded"] = str(len(record["rounds"]))
    if record["startedAt"] == EPOCH and not cell.void:
        builder.derived.append("startedAt: Inspect recorded no start time for the sample")
    if builder.derived or not cell.void:
        builder.derived.insert(
            0,
            "deliveredContextSha256: computed from the sealed inputs (the sample's opening "
            "messages were checked against them)",
        )
    provenance: RecordProvenance = {
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


_STOPPED = {
    ExecutionStatus.UNMEASURED.value: StopReason.transport_exhausted.value,
    ExecutionStatus.UNOBSERVABLE.value: StopReason.unreadable_response.value,
}


def _ending(
    record: ExecutionRecord,
    sample: InspectSample,
    rounds: list[Round],
    store: Mapping[str, Any],
    masker: Masker,
) -> None:
    """The status the loop ended on, or the one of a sample Inspect ended early (error, limit)."""
    status = store.get("status")
    if status in _STOPPED and store.get("stopReason") == _STOPPED[status]:
        record.update(
            {"status": status, "statusReason": masker(str(store.get("statusReason")))[:2000]}
        )
        if status == ExecutionStatus.UNOBSERVABLE.value:
            record["evidenceInputs"]["allRoundsReadable"] = False
        return
    if sample.error is not None:
        first = sample.error.strip().splitlines()[0] if sample.error.strip() else "an error"
        failed = bool(rounds) and rounds[-1].answer is None
        record.update(
            {
                "status": ExecutionStatus.UNMEASURED.value,
                "statusReason": masker(f"Inspect ended the sample with an error: {first}")[:2000],
                "stopReason": (
                    StopReason.transport_exhausted.value
                    if failed or not rounds
                    else StopReason.interrupted.value
                ),
            }
        )
        return
    if sample.limit is not None:
        record.update(
            {
                "status": ExecutionStatus.UNMEASURED.value,
                "statusReason": f"Inspect's {sample.limit} ended the sample",
                "stopReason": StopReason.interrupted.value,
            }
        )
        return
    if int(store.get("rounds") or 0) != len(rounds):
        raise SampleRefused(
            f"{sample.source_record}: the task's loop records {store.get('rounds')} round(s) but "
            f"{len(rounds)} were paired with Inspect's model calls"
        )
