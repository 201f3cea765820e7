"""The reference instrument's transcript, record by record, as apconform execution records.

The reference writes one engine record per execution followed by one
figure-identification record. Each pair becomes one execution record: the
model's messages, tool calls, raw arguments and raw returns are carried over
byte for byte; what the reference never kept is reconstructed from what it
did keep and said so in the import record (request bodies are re-rendered from
the recorded conversation, the envelopes of rounds before the last are built
around the assistant message they carried, rounds after the first get one
successful attempt at the record's time). The reference's own verdicts are kept
beside each record, in the kit's format, for the comparison.

Nothing is guessed and nothing is dropped: a record of unknown kind, with an
unknown member, out of order, or inconsistent with the inputs (another system
prompt, other delivered data, tool calls that disagree with the conversation) is
refused with its line number.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from apconform.ap1.importers.reference.documents import CONDITION_NAMES, INSTRUMENT
from apconform.ap1.importers.reference.verdicts import (
    ReferenceCall,
    ReferenceOperand,
    ReferenceOperation,
    ReferenceVerdict,
)
from apconform.ap1.inputs.conditions import ConditionView
from apconform.ap1.inputs.items import delivered_context, render_user_message
from apconform.ap1.inputs.plan import RunInputs
from apconform.ap1.masking import mask_text
from apconform.ap1.run.record import new_execution_record
from apconform.ap1.run.request import build_body, initial_messages
from apconform.ap1.run.shapes import CHAT, classify_shape, echoed_sampling
from apconform.ap1.run.wire import dump
from apconform.core.canonical import sha256_bytes, sha256_hex
from apconform.core.errors import ApconformError, define_code
from apconform.core.jsonload import Limits, loads
from apconform.models.ap1 import ExecutionStatus, QuestionItem

__all__ = [
    "IMPORT_RECORD",
    "LINE_LIMITS",
    "NOT_RECORDED",
    "ConvertedExecution",
    "ReferenceSource",
    "TranscriptReader",
    "convert_execution",
    "iterate_records",
    "unix_to_rfc3339",
]

IMPORT_RECORD = define_code(
    "AP1-IMPORT-RECORD",
    "A record of the reference transcript cannot be imported",
    "Import the smoke_run.jsonl the reference instrument wrote, unedited; the message names "
    "the line and what is wrong with it.",
)

LINE_LIMITS = Limits(max_bytes=4 * 1024 * 1024, max_depth=64, max_nodes=500_000)
"""What one line of the reference transcript may hold: 4 MiB, depth 64, 500,000 values (a
published record is at most some 20 KiB; docs/ap1/reference-runs.md states the bounds)."""
_MIB = LINE_LIMITS.max_bytes // (1024 * 1024)
_BOUNDS = {
    "APC-JSON-SIZE": f"is larger than the {_MIB} MiB a line may be",
    "APC-JSON-DEPTH": f"nests deeper than the {LINE_LIMITS.max_depth} levels a line may",
    "APC-JSON-NODES": f"holds more than the {LINE_LIMITS.max_nodes:,} values a line may",
}

ENGINE_MEMBERS = frozenset(
    {
        "arm_id",
        "attestation_reason",
        "condition",
        "error_state",
        "evidence_class",
        "ground_truth_final",
        "invocation_outcome",
        "item_id",
        "operation_correctness",
        "provenance_results",
        "request_sent",
        "required_operation",
        "response_received",
        "seal_hash",
        "self_report",
        "timestamp",
        "tool_calls",
        "void_reason",
    }
)
ENGINE_REQUIRED = frozenset(
    {
        "condition",
        "error_state",
        "evidence_class",
        "item_id",
        "request_sent",
        "response_received",
        "seal_hash",
        "timestamp",
        "tool_calls",
    }
)
FIGURE_MEMBERS = frozenset(
    {
        "arm_id",
        "condition",
        "error_state",
        "evidence_class",
        "expected",
        "figure_outcome",
        "figure_reason",
        "item_id",
        "record_type",
        "released_figure",
        "request_sent",
        "response_received",
        "seal_hash",
        "timestamp",
        "tool_calls",
    }
)
_CALL_MEMBERS = frozenset({"id", "type", "turn", "function", "return_value"})

NOT_RECORDED = (
    "the bytes and headers of every request",
    "the response envelope (id, usage, finish reason) of every round but the last",
    "the HTTP status of every round but the first, and of every round in the August runs",
    "the attempts of every round but the first, and of every round in the August runs",
    "the elapsed time of executions and attempts",
    "the repeat number of an execution",
)
"""What a reference record never holds (AP1-TR-6), the same for every record."""


@dataclass(frozen=True)
class ReferenceSource:
    """The reference run a record comes from, as its provenance names it (AP1-TR-6)."""

    version: str
    """The runner version the seal record prints, or why there is none."""
    model: str
    """The model the reference configuration names."""


def _sha256(text: str) -> str:
    return sha256_bytes(text.encode("utf-8"))


def _refuse(line: int, message: str) -> ApconformError:
    return ApconformError(IMPORT_RECORD, f"line {line}: {message}")


def unix_to_rfc3339(seconds: object, *, line: int) -> str:
    """A Unix time written by Python's json (the shortest round-trip text) as RFC 3339 UTC.

    The reference wrote ``time.time()`` through ``json.dumps``, which prints a
    float's shortest round-trip digits; ``repr`` of the parsed value gives those
    same digits back, and the conversion from there is exact decimal arithmetic.
    """
    if isinstance(seconds, bool) or not isinstance(seconds, int | float | str):
        raise _refuse(line, f"the attempt timestamp {seconds!r} is not a Unix time")
    text = seconds if isinstance(seconds, str) else repr(seconds)
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise _refuse(line, f"the attempt timestamp {text!r} is not a Unix time") from None
    if not value.is_finite() or value < 0:
        raise _refuse(line, f"the attempt timestamp {text!r} is not a Unix time")
    whole = int(value)
    fraction = format(value - whole, "f").partition(".")[2].rstrip("0")
    moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=whole)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + (f".{fraction}" if fraction else "") + "Z"


class TranscriptReader:
    """Parses the lines of smoke_run.jsonl one at a time, each within bounds."""

    def parse(self, line: int, raw: bytes) -> dict[str, object]:
        if not raw.strip():
            raise _refuse(line, "the line is empty")
        try:
            value = loads(raw, limits=LINE_LIMITS, source=f"line {line}")
        except ApconformError as error:
            bound = _BOUNDS.get(error.code)
            if bound is not None:  # valid JSON, perhaps, but beyond what the import reads
                raise _refuse(
                    line,
                    f"the record {bound} ({error.message}); the reference writes records far "
                    "smaller, so this line was not written by it unedited",
                ) from None
            raise _refuse(line, f"the line is not a JSON record ({error.message})") from None
        if not isinstance(value, dict):
            raise _refuse(line, "the line is not a JSON object")
        return value


def iterate_records(lines: Iterator[bytes]) -> Iterator[tuple[int, dict[str, object]]]:
    """(line number, record) for every line, refusing a line that is not a JSON object."""
    reader = TranscriptReader()
    for number, raw in enumerate(lines, start=1):
        yield number, reader.parse(number, raw.rstrip(b"\r\n"))


@dataclass
class ConvertedExecution:
    """One execution: the kit's record and the reference's own verdicts beside it."""

    record: dict[str, Any]
    verdict: ReferenceVerdict
    masked: bool = False


def _members(record: Mapping[str, object], allowed: frozenset[str], line: int, what: str) -> None:
    unknown = sorted(set(record) - allowed)
    if unknown:
        raise _refuse(
            line, f"the {what} record has member(s) the import does not know: {', '.join(unknown)}"
        )


def check_engine(record: Mapping[str, object], line: int) -> None:
    """An engine record: known members only, the required ones present with their types."""
    _members(record, ENGINE_MEMBERS, line, "execution")
    missing = sorted(ENGINE_REQUIRED - set(record))
    if missing:
        raise _refuse(line, f"the execution record lacks {', '.join(missing)}")
    for name in ("item_id", "condition", "seal_hash", "timestamp"):
        if not isinstance(record[name], str):
            raise _refuse(line, f"{name} is not text")
    if record["condition"] not in CONDITION_NAMES:
        raise _refuse(line, f"condition {record['condition']!r} is not base or instruction_removed")
    if not isinstance(record["tool_calls"], list):
        raise _refuse(line, "tool_calls is not a list")


def check_figure(record: Mapping[str, object], line: int, engine: Mapping[str, object]) -> None:
    """A figure-identification record for the execution just read."""
    _members(record, FIGURE_MEMBERS, line, "figure-identification")
    for name in ("figure_outcome", "item_id", "condition"):
        if not isinstance(record.get(name), str):
            raise _refuse(line, f"the figure record's {name} is not text")
    if (record["item_id"], record["condition"]) != (engine["item_id"], engine["condition"]):
        raise _refuse(
            line,
            f"the figure record is for {record['condition']}/{record['item_id']} but follows "
            f"the execution of {engine['condition']}/{engine['item_id']}",
        )


_REQUEST_RECORD_MEMBERS = frozenset(
    {"attempts", "endpoint_url", "messages", "model", "sampling_as_sent", "tools"}
)


def _conversation(
    engine: Mapping[str, object], line: int, endpoint: tuple[str, str]
) -> list[dict[str, object]]:
    """The recorded conversation: the September request record's, else the August messages.

    A September request record must name the configuration's endpoint and model:
    the requests are re-rendered from the configuration, so a record sent
    elsewhere is refused rather than re-rendered as if it had not been.
    """
    sent = engine["request_sent"]
    if not isinstance(sent, dict):
        raise _refuse(line, "request_sent is not an object")
    extra = sorted(set(sent) - {"messages", "request_record"})
    if extra:
        raise _refuse(line, f"request_sent has member(s) the import does not know: {extra}")
    holder = sent.get("request_record")
    if holder is not None and not isinstance(holder, dict):
        raise _refuse(line, "request_sent.request_record is not an object")
    if isinstance(holder, dict):
        extra = sorted(set(holder) - _REQUEST_RECORD_MEMBERS)
        if extra:
            raise _refuse(
                line,
                f"request_record has member(s) the import does not know: {', '.join(extra)}",
            )
        url, model = endpoint
        for name, wanted in (("endpoint_url", url), ("model", model)):
            if name in holder and holder[name] != wanted:
                raise _refuse(
                    line,
                    f"request_record.{name} is {holder[name]!r} but the configuration declares "
                    f"{wanted!r}",
                )
    messages = holder.get("messages") if isinstance(holder, dict) else sent.get("messages")
    if not isinstance(messages, list):
        raise _refuse(line, "the recorded conversation is not a list of messages")
    checked: list[dict[str, object]] = [m for m in messages if isinstance(m, dict)]
    if len(checked) != len(messages):
        raise _refuse(line, "the recorded conversation is not a list of messages")
    return checked


@dataclass(frozen=True)
class _Call:
    """One entry of an engine record's tool_calls, as :func:`_turns` checked it."""

    id: object
    """The call's id as recorded (None when the entry has none)."""
    function: dict[str, object]
    """The recorded function object, compared whole with the conversation's."""
    arguments: str
    return_value: str

    @property
    def name(self) -> object:
        return self.function.get("name")


def _turns(calls: object, line: int) -> dict[int, list[_Call]]:
    if not isinstance(calls, list):
        raise _refuse(line, "tool_calls is not a list")
    by_turn: dict[int, list[_Call]] = {}
    last = 0
    for index, call in enumerate(calls):
        if not isinstance(call, dict):
            raise _refuse(line, f"tool_calls[{index}] is not an object")
        unknown = sorted(set(call) - _CALL_MEMBERS)
        if unknown:
            raise _refuse(line, f"tool_calls[{index}] has unknown member(s) {', '.join(unknown)}")
        turn = call.get("turn")
        function = call.get("function")
        if not isinstance(turn, int) or isinstance(turn, bool) or turn < 1 or turn < last:
            raise _refuse(line, f"tool_calls[{index}].turn is not a turn number in order")
        arguments = function.get("arguments") if isinstance(function, dict) else None
        if not isinstance(function, dict) or not isinstance(arguments, str):
            raise _refuse(line, f"tool_calls[{index}].function.arguments is not text")
        returned = call.get("return_value")
        if not isinstance(returned, str):
            raise _refuse(line, f"tool_calls[{index}] has no return_value text")
        last = turn
        by_turn.setdefault(turn, []).append(_Call(call.get("id"), function, arguments, returned))
    if by_turn and sorted(by_turn) != list(range(1, last + 1)):
        raise _refuse(line, "the tool calls skip a turn")
    return by_turn


def _check_conversation(
    messages: list[dict[str, object]],
    by_turn: dict[int, list[_Call]],
    line: int,
    prefix: int,
) -> list[dict[str, object]]:
    """The assistant message of every turn, after checking the conversation matches the calls."""
    assistants: list[dict[str, object]] = []
    position = prefix
    for turn in sorted(by_turn):
        calls = by_turn[turn]
        if position >= len(messages) or messages[position].get("role") != "assistant":
            raise _refuse(line, f"the conversation has no assistant message for turn {turn}")
        assistant = messages[position]
        listed = assistant.get("tool_calls")
        if not isinstance(listed, list) or len(listed) != len(calls):
            raise _refuse(line, f"turn {turn}: the conversation and tool_calls disagree")
        for mine, theirs in zip(calls, listed, strict=True):
            if not isinstance(theirs, dict) or theirs.get("id") != mine.id:
                raise _refuse(line, f"turn {turn}: tool call ids disagree with the conversation")
            if theirs.get("function") != mine.function:
                raise _refuse(line, f"turn {turn}: tool call {mine.id} disagrees")
        position += 1
        for call in calls:
            if position >= len(messages):
                raise _refuse(line, f"turn {turn}: a tool result is missing")
            tool = messages[position]
            if (
                tool.get("role") != "tool"
                or tool.get("tool_call_id") != call.id
                or tool.get("content") != call.return_value
            ):
                raise _refuse(line, f"turn {turn}: the tool result for {call.id} disagrees")
            position += 1
        assistants.append(assistant)
    if position != len(messages):
        raise _refuse(line, "the conversation holds messages after the last tool result")
    return assistants


def _call_outcome(call: _Call, tool_name: str) -> str:
    name = call.name
    try:
        returned = json.loads(call.return_value)
    except ValueError:
        returned = None
    if isinstance(returned, dict) and "result" in returned:
        return "result"
    if name != tool_name:
        return "unknown-tool"
    return "tool-error"


def _attempts(
    engine: Mapping[str, object], line: int, first: bool, reference_time: str
) -> list[dict[str, Any]]:
    """Round 1: the reference's recorded attempts; later rounds: one successful attempt."""
    holder = _request_record(engine)
    recorded = holder.get("attempts") if isinstance(holder, dict) and first else None
    if not isinstance(recorded, list) or not recorded:
        return [
            {"attempt": "1", "startedAt": reference_time, "elapsedSeconds": "0", "outcome": "ok"}
        ]
    out = []
    for index, attempt in enumerate(recorded):
        if not isinstance(attempt, dict):
            raise _refuse(line, f"request_record.attempts[{index}] is not an object")
        status = attempt.get("status_code", attempt.get("status"))
        entry: dict[str, Any] = {
            "attempt": str(index + 1),
            "startedAt": unix_to_rfc3339(attempt.get("timestamp"), line=line),
            "elapsedSeconds": "0",
            "outcome": "ok" if status == 200 else "transport-error",
        }
        if isinstance(status, int) and not isinstance(status, bool):
            entry["httpStatus"] = str(status)
        error = attempt.get("error")
        if isinstance(error, str) and error:
            entry["error"] = mask_text(error)
        out.append(entry)
    return out


def _request_record(engine: Mapping[str, object]) -> object:
    """request_sent.request_record (September runs), or None (request_sent is checked first)."""
    sent = engine["request_sent"]
    return sent.get("request_record") if isinstance(sent, dict) else None


def _response(body: object, status: str | None) -> tuple[dict[str, Any], bool]:
    text = dump(body)
    masked_text = mask_text(text)
    shape, detail = classify_shape(body)
    out: dict[str, Any] = {
        "httpStatus": status,
        "bodyText": masked_text,
        "bodySha256": _sha256(text),
        "masked": masked_text != text,
        "shape": shape,
        "samplingEchoed": echoed_sampling(body),
    }
    if detail is not None:
        out["shapeDetail"] = detail
    return out, masked_text != text


def _status(engine: Mapping[str, object]) -> tuple[str, str | None, str]:
    """(status, reason, stop reason) from the reference's error state and evidence class."""
    error = engine.get("error_state")
    evidence = engine.get("evidence_class")
    if error == "VOID":
        reason = engine.get("void_reason")
        return "VOID", str(reason) if isinstance(reason, str) else "underivable", "not-sent"
    if isinstance(error, str) and error.startswith("TRANSPORT_FAILURE"):
        return "UNMEASURED", mask_text(error), "transport-exhausted"
    if isinstance(evidence, str) and evidence.startswith("EV-0"):
        why = error if isinstance(error, str) and error else "a round it could not read"
        return (
            "UNOBSERVABLE",
            f"the reference recorded {evidence} ({mask_text(why)})",
            "unreadable-response",
        )
    if error is not None:
        return "UNMEASURED", mask_text(str(error)), "transport-exhausted"
    return "EXECUTED", None, "final-answer"


def convert_execution(
    engine: Mapping[str, Any],
    figure: Mapping[str, Any] | None,
    lines: tuple[int, int | None],
    repeat: int,
    inputs: RunInputs,
    source: ReferenceSource,
) -> ConvertedExecution:
    """One engine record and its figure record: the execution record and the reference verdicts."""
    line = lines[0]
    condition = CONDITION_NAMES[engine["condition"]]
    item_id = engine["item_id"]
    item = inputs.items.get(item_id)
    if item is None:
        raise _refuse(line, f"item {item_id} is not in the supplied question set")
    view = inputs.config.condition(condition)
    status, reason, stop = _status(engine)
    # A plain dict: the rest of this module fills it as untyped JSON for now.
    record: dict[str, Any] = dict(
        new_execution_record(
            cell_key=f"{condition}/{item_id}/{repeat}",
            condition=condition,
            item_id=item_id,
            repeat=str(repeat),
            status=status,
            status_reason=reason,
            stop_reason=stop,
            started_at=engine["timestamp"],
            elapsed_seconds="0",
            delivered_context_sha256=sha256_hex(delivered_context(inputs.fixture, item)),
            tool_name=view.tool["name"],
            all_rounds_readable=status != ExecutionStatus.UNOBSERVABLE.value,
        )
    )
    masked = False
    derived = [
        "deliveredContextSha256: computed from the sealed inputs (the recorded opening messages "
        "were checked against them)",
        "repeat: the position of the record among the reference's records of its condition "
        "and item",
        "elapsedSeconds: 0 for the execution and every attempt",
    ]
    if status != "VOID":
        masked = _rounds(engine, record, line, inputs, view, item, derived)
    answered = engine["response_received"]
    model = answered.get("model") if isinstance(answered, dict) else None
    figure_line = (
        "" if lines[1] is None else f" and the figure-identification record on line {lines[1]}"
    )
    record["provenance"] = {
        "source": INSTRUMENT,
        "sourceVersion": source.version,
        "sourceRecord": f"smoke_run.jsonl: the engine record on line {line}{figure_line}",
        "model": model if isinstance(model, str) and model.strip() else source.model,
        "notRecorded": list(NOT_RECORDED),
        "derived": derived,
    }
    verdict = reference_verdict(engine, figure, lines, record["cellKey"])
    return ConvertedExecution(record, verdict, masked)


def _rounds(
    engine: Mapping[str, object],
    record: dict[str, Any],
    line: int,
    inputs: RunInputs,
    view: ConditionView,
    item: QuestionItem,
    derived: list[str],
) -> bool:
    endpoint = inputs.config.model.endpoint
    messages = _conversation(engine, line, (endpoint.url, endpoint.model))
    message = inputs.config.model.request.message
    user = render_user_message(
        inputs.fixture,
        item,
        heading=message.contextHeading,
        question_prefix=message.questionPrefix,
        preamble=view.user_preamble,
    )
    opening = initial_messages(view, user)
    for index, expected in enumerate(opening):
        got = messages[index] if index < len(messages) else None
        if got is None or got.get("role") != expected["role"]:
            raise _refuse(
                line, f"the conversation does not open with the {expected['role']} message"
            )
        if got.get("content") != expected["content"]:
            what = (
                "system prompt" if expected["role"] == "system" else "delivered data and question"
            )
            raise _refuse(
                line,
                f"the recorded {what} differs from what the supplied configuration, fixture and "
                "questions render; import with the inputs the run was sealed with",
            )
    by_turn = _turns(engine["tool_calls"], line)
    assistants = _check_conversation(messages, by_turn, line, len(opening))
    model = inputs.config.model.endpoint.model
    holder = _request_record(engine)
    recorded_url = holder.get("endpoint_url") if isinstance(holder, dict) else None
    url = recorded_url if isinstance(recorded_url, str) and recorded_url else None
    conversation = list(opening)
    masked = False
    final = engine["response_received"]
    unreadable = record["status"] == "UNOBSERVABLE"
    rounds = len(by_turn) + (0 if unreadable and final is None else 1)
    derived.append(
        "rounds[*].request.bodyText and samplingAsSent: re-rendered from the recorded "
        "conversation, the sealed configuration and the tool declaration"
    )
    if url is None:
        derived.append("rounds[*].request.url: null, the record names no endpoint")
    started = engine["timestamp"]
    if not isinstance(started, str):  # checked with the record; restated for the attempts
        raise _refuse(line, "timestamp is not text")
    for number in range(1, rounds + 1):
        body_text, sampling = build_body(model, conversation, view)
        attempts = _attempts(engine, line, number == 1, started)
        if "httpStatus" not in attempts[-1]:
            derived.append(
                f"rounds[{number - 1}].attempts: one attempt at the record's timestamp, with "
                "no HTTP status; the reference kept no attempt for this round"
            )
        round_: dict[str, Any] = {
            "round": str(number),
            "request": {
                "url": url,
                "headers": [],
                "bodyText": body_text,
                "bodySha256": _sha256(body_text),
                "samplingAsSent": sampling,
            },
            "attempts": attempts,
        }
        status = attempts[-1].get("httpStatus")
        if number <= len(by_turn):
            body: object = {"choices": [{"message": assistants[number - 1]}]}
            round_["response"], hidden = _response(body, status)
            derived.append(
                f"rounds[{number - 1}].response.bodyText: built around the assistant message "
                "the next request carried"
            )
            conversation.append(assistants[number - 1])
            for call in by_turn[number]:
                conversation.append(
                    {
                        "role": "tool",
                        "tool_call_id": call.id,
                        "content": call.return_value,
                    }
                )
        elif final is not None:
            round_["response"], hidden = _response(final, status)
            derived.append(
                f"rounds[{number - 1}].response.bodyText: the recorded response_received, "
                "written as compact JSON"
            )
        else:
            hidden = False
        masked = masked or hidden
        record["rounds"].append(round_)
    tool_name = view.tool["name"]
    for turn, calls in sorted(by_turn.items()):
        for index, call in enumerate(calls):
            arguments = mask_text(call.arguments)
            returned = call.return_value
            masked = masked or arguments != call.arguments
            name = call.name
            record["toolCalls"].append(
                {
                    "round": str(turn),
                    "index": str(index),
                    "id": call.id if isinstance(call.id, str) else None,
                    "name": name if isinstance(name, str) else "",
                    "argumentsRaw": arguments,
                    "returnRaw": returned,
                    "outcome": _call_outcome(call, tool_name),
                }
            )
    if isinstance(final, dict):
        shape, _ = classify_shape(final)
        if shape == CHAT:
            content = final["choices"][0]["message"].get("content")
            if isinstance(content, str):
                record["finalText"] = mask_text(content)
                masked = masked or record["finalText"] != content
            if record["status"] == "EXECUTED" and final["choices"][0]["message"].get("tool_calls"):
                record["stopReason"] = "turn-limit"
        elif record["status"] == "EXECUTED":
            record["status"] = "UNOBSERVABLE"
            record["statusReason"] = f"round {rounds}: the response is in the {shape} shape"
            record["stopReason"] = "unreadable-response"
            record["evidenceInputs"]["allRoundsReadable"] = False
    record["evidenceInputs"]["roundsRecorded"] = str(len(record["rounds"]))
    return masked


def _step(value: object) -> str | None:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else None


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _evidence(value: object) -> str | None:
    return value.split(" ", 1)[0] if isinstance(value, str) and value else None


def _reference_calls(engine: Mapping[str, Any]) -> list[ReferenceCall] | None:
    """The recorded D7.2(a) of each call, or None when the record holds none."""
    if "provenance_results" not in engine:
        return None
    calls: list[ReferenceCall] = []
    for entry in engine.get("provenance_results") or []:
        entry = entry if isinstance(entry, dict) else {}
        resolutions = [o for o in entry.get("operand_resolutions") or [] if isinstance(o, dict)]
        operands: list[ReferenceOperand] = [
            {
                "literal": _text_or_none(o.get("operand_literal")),
                "value": _text_or_none(o.get("operand_value")),
                "step": _step(o.get("step")),
                "resolution": _text_or_none(o.get("resolution")),
                "matchedField": _text_or_none(o.get("matched_field")),
                "matchedIntermediate": _text_or_none(o.get("matched_intermediate")),
                "transformation": _text_or_none(o.get("transform_used")),
            }
            for o in resolutions
        ]
        expressions = {o["expression"] for o in resolutions if isinstance(o.get("expression"), str)}
        calls.append(
            {
                "outcome": _text_or_none(entry.get("outcome")),
                "expression": next(iter(expressions)) if len(expressions) == 1 else None,
                "operands": operands,
            }
        )
    return calls


def reference_verdict(
    engine: Mapping[str, Any],
    figure: Mapping[str, Any] | None,
    lines: tuple[int, int | None],
    cell_key: str,
) -> ReferenceVerdict:
    """The reference's recorded verdicts of one execution, in the kit's format.

    A verdict the record does not hold (an engine record without operand or
    operation results, say) is null, "not recorded", never an empty list.
    """
    operations: list[ReferenceOperation] | None = None
    if "operation_correctness" in engine:
        operations = [
            {
                "outcome": _text_or_none(o.get("outcome")),
                "matchedAgainst": _text_or_none(o.get("matched_against")),
                "value": _text_or_none(o.get("evaluated_result")),
            }
            for o in engine.get("operation_correctness") or []
            if isinstance(o, dict)
        ]
    released = figure.get("released_figure") if figure is not None else None
    calls = _reference_calls(engine)
    verdict: ReferenceVerdict = {
        "cellKey": cell_key,
        "engineLine": str(lines[0]),
        "figureLine": None if lines[1] is None else str(lines[1]),
        "evidenceClass": _evidence(engine.get("evidence_class")),
        "invocationRecorded": "invocation_outcome" in engine,
        "invocation": _text_or_none(engine.get("invocation_outcome")),
        "groundTruthFinal": _text_or_none(engine.get("ground_truth_final")),
        "figureOutcome": None if figure is None else _text_or_none(figure.get("figure_outcome")),
        "releasedFigure": released if isinstance(released, str) and released != "None" else None,
        "callsRecorded": calls is not None,
        "calls": calls or [],
        "operationsRecorded": operations is not None,
        "operations": operations or [],
        "transcription": None,
    }
    return verdict
