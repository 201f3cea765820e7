"""The rounds of one Inspect sample: the loop's record of each attempt, paired with its model event.

The tool loop keeps, for every attempt, its round, its number, its outcome
and the id of the model event Inspect recorded for it (``transport``). A
round of the execution record is then built from its attempts: the request
from the provider request Inspect recorded (RFC 8785 text of the object),
each attempt from the loop's record, and the response of the last attempt
from the provider response Inspect recorded (or, for an attempt answered with
an HTTP error, from the body the provider's SDK handed the loop). Model
events that no attempt claims may only follow the claimed ones, in a sample
Inspect ended early (a limit or an error): each becomes a round of its own,
derived from the event alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from apconform.ap1.inputs.conditions import ConditionView
from apconform.ap1.inspect.sampling import recorded_sampling
from apconform.ap1.masking import Masker
from apconform.ap1.run.record import AttemptRecord, RequestRecord, ResponseRecord, RoundRecord
from apconform.ap1.run.shapes import response_record
from apconform.ap1.run.wire import parse_body
from apconform.core.canonical import canonical_text, sha256_bytes
from apconform.core.errors import ApconformError
from apconform.models.ap1 import AttemptOutcome

__all__ = [
    "EPOCH",
    "Round",
    "SampleRefused",
    "output_message",
    "pair_rounds",
    "seconds",
    "stamp",
]

EPOCH = "1970-01-01T00:00:00.000000Z"
_URL = re.compile(r"^https?://[!-.0-~]+(/[!-~]*)?$")
_ATTEMPT_MEMBERS = ("attempt", "startedAt", "elapsedSeconds", "outcome")


class SampleRefused(ValueError):
    """The sample cannot become a record of this sealed run; the message says why."""


def stamp(value: object) -> str | None:
    """A recorded timestamp as the records write it (UTC, microseconds, Z), or None."""
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    return moment.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def seconds(value: object) -> str:
    """A duration in seconds as decimal text in milliseconds ("0" for anything unusable)."""
    if not isinstance(value, int | float) or value != value or value < 0:
        return "0"
    return str(Decimal(round(value * 1000)).scaleb(-3))


def _between(start: object, end: object) -> float | None:
    a, b = stamp(start), stamp(end)
    if a is None or b is None:
        return None
    moment = datetime.fromisoformat
    return (moment(b.replace("Z", "+00:00")) - moment(a.replace("Z", "+00:00"))).total_seconds()


def output_message(event: Mapping[str, Any]) -> dict[str, Any]:
    """The assistant message Inspect parsed from an event's output ({} when there is none)."""
    try:
        message = event["output"]["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        return {}
    return message if isinstance(message, dict) else {}


def _parsed(value: object, what: str) -> tuple[str, object]:
    """The RFC 8785 text of a recorded object, and that text parsed with Decimal numbers."""
    try:
        text = canonical_text(value)
        return text, parse_body(text.encode("utf-8"))
    except (ApconformError, ValueError) as exc:
        reason = exc.message if isinstance(exc, ApconformError) else str(exc)
        raise SampleRefused(f"{what} cannot be written as RFC 8785 text ({reason})") from None


def _call(event: Mapping[str, Any]) -> dict[str, Any]:
    call = event.get("call")
    return call if isinstance(call, dict) else {}


@dataclass
class Round:
    """One round of the record, and what the rest of the record reads from it."""

    record: RoundRecord
    answer: Mapping[str, Any] | None
    """The model event whose answer was read (None when the round was not answered)."""
    body: object = None
    """The answered response parsed with Decimal numbers, when Inspect recorded it."""


@dataclass
class _Pairing:
    where: str
    view: ConditionView
    masker: Masker
    model: str
    base_url: str | None
    derived: list[str] = field(default_factory=list)

    def refuse(self, message: str) -> SampleRefused:
        return SampleRefused(f"{self.where}: {message}")

    def request(self, number: int, event: Mapping[str, Any]) -> RequestRecord:
        request_obj = _call(event).get("request")
        if not isinstance(request_obj, dict):
            request_obj = {k: event.get(k) for k in ("input", "tools", "tool_choice", "config")}
            self.derived.append(
                f"rounds[{number - 1}].request.bodyText: Inspect recorded no provider request; "
                "this is the model event's input, tools, tool choice and configuration"
            )
        text, body = _parsed(request_obj, f"{self.where}: round {number}: the recorded request")
        url = self.base_url if _URL.match(self.base_url or "") else None
        return {
            "url": url,
            "headers": [],
            "bodyText": self.masker(text),
            "bodySha256": sha256_bytes(text.encode("utf-8")),
            "samplingAsSent": recorded_sampling(
                self.view, body if isinstance(body, dict) else None, self.model
            ),
        }

    def recorded_response(
        self, number: int, event: Mapping[str, Any]
    ) -> tuple[ResponseRecord | None, object]:
        """(response record, parsed body) of the provider response Inspect recorded, if any."""
        response = _call(event).get("response")
        if not isinstance(response, dict):
            return None, None
        text, body = _parsed(response, f"{self.where}: round {number}: the recorded response")
        ids = [r for r in event.get("request_ids") or [] if isinstance(r, dict)]
        status = ids[-1].get("status") if ids else None
        return self._response(
            text, body, str(status) if isinstance(status, int) and status > 0 else None
        ), body

    def kept_response(self, attempt: Mapping[str, Any]) -> tuple[ResponseRecord | None, object]:
        """(response record, parsed body) of an attempt whose body the loop kept as it arrived."""
        text = attempt.get("responseText")
        if not isinstance(text, str):
            return None, None
        try:
            body: object = parse_body(text.encode("utf-8"))
        except (ApconformError, ValueError):
            body = None
        if attempt.get("responseTruncated"):
            self.derived.append(
                f"round {attempt.get('round')} attempt {attempt.get('attempt')}: the error "
                "response's body is cut at the length the loop keeps"
            )
        digest = attempt.get("responseSha256")
        record = self._response(
            text,
            body,
            str(attempt.get("httpStatus") or "") or None,
            digest if isinstance(digest, str) else None,
        )
        return record, body

    def _response(
        self, text: str, body: object, status: str | None, digest: str | None = None
    ) -> ResponseRecord:
        digest = digest or sha256_bytes(text.encode("utf-8"))
        return response_record(status, text, digest, body, self.masker)

    def attempt(self, entry: Mapping[str, Any], number: int) -> AttemptRecord:
        if not all(isinstance(entry.get(m), str) for m in _ATTEMPT_MEMBERS):
            raise self.refuse(f"round {number}: an attempt of the task's record is incomplete")
        out: AttemptRecord = {
            "attempt": str(entry["attempt"]),
            "startedAt": str(entry["startedAt"]),
            "elapsedSeconds": str(entry["elapsedSeconds"]),
            "outcome": str(entry["outcome"]),
        }
        if entry.get("httpStatus") is not None:
            out["httpStatus"] = str(entry["httpStatus"])
        if entry.get("error") is not None:
            out["error"] = self.masker(str(entry["error"]))[:2000]
        if entry.get("waitSeconds") is not None:
            out["waitSeconds"] = str(entry["waitSeconds"])
        return out

    def event_attempt(self, number: int, event: Mapping[str, Any], started: str) -> AttemptRecord:
        """The one attempt of a round the loop never recorded, derived from its model event."""
        elapsed = _between(event.get("timestamp"), event.get("completed"))
        ids = [r for r in event.get("request_ids") or [] if isinstance(r, dict)]
        status = ids[-1].get("status") if ids else None
        out: AttemptRecord = {
            "attempt": "1",
            "startedAt": stamp(event.get("timestamp")) or started,
            "elapsedSeconds": seconds(
                elapsed if elapsed is not None else event.get("working_time")
            ),
            "outcome": AttemptOutcome.ok.value,
        }
        if isinstance(status, int) and status > 0:
            out["httpStatus"] = str(status)
        if event.get("error"):
            out["outcome"] = AttemptOutcome.transport_error.value
            out["error"] = self.masker(str(event["error"]))[:2000]
        self.derived.append(
            f"rounds[{number - 1}].attempts: Inspect ended the sample during this round, before "
            "the task recorded it; the attempt is read from Inspect's model event"
        )
        return out


def _claimed(store: Mapping[str, Any], where: str) -> list[list[Mapping[str, Any]]]:
    """The loop's attempts grouped by round (rounds 1..n, attempts 1..m each), checked."""
    attempts = store.get("attempts")
    if not isinstance(attempts, list):
        raise SampleRefused(
            f"{where}: the task's record holds no attempts (the log was made by an earlier "
            "version of the apconform task); run the task again with this version"
        )
    rounds: list[list[Mapping[str, Any]]] = []
    for entry in attempts:
        if not isinstance(entry, dict):
            raise SampleRefused(f"{where}: an attempt of the task's record is not an object")
        number, attempt = str(entry.get("round")), str(entry.get("attempt"))
        if number == str(len(rounds) + 1) and attempt == "1":
            rounds.append([entry])
        elif rounds and number == str(len(rounds)) and attempt == str(len(rounds[-1]) + 1):
            rounds[-1].append(entry)
        else:
            raise SampleRefused(
                f"{where}: the task's record numbers round {number} attempt {attempt} out of order"
            )
    return rounds


def pair_rounds(
    store: Mapping[str, Any],
    events: list[dict[str, Any]],
    *,
    view: ConditionView,
    where: str,
    masker: Masker,
    model: str,
    base_url: str | None,
    started: str,
    ended_early: bool,
) -> tuple[list[Round], list[str]]:
    """Every round of the sample (see the module docstring), and the derived-member notes."""
    pairing = _Pairing(where, view, masker, model, base_url)
    claimed = _claimed(store, where)
    order = [str(a.get("event")) for attempts in claimed for a in attempts]
    found = [str(e.get("uuid")) for e in events[: len(order)]]
    if found != order:
        raise pairing.refuse(
            "the model events Inspect recorded are not the attempts the task's record names, "
            "in the same order"
        )
    rounds: list[Round] = []
    position = 0
    for number, attempts in enumerate(claimed, start=1):
        mine = events[position : position + len(attempts)]
        position += len(attempts)
        last, last_event = attempts[-1], mine[-1]
        with_request = next(
            (e for e in reversed(mine) if isinstance(_call(e).get("request"), dict)), last_event
        )
        record: RoundRecord = {
            "round": str(number),
            "request": pairing.request(number, with_request),
            "attempts": [pairing.attempt(a, number) for a in attempts],
        }
        answer: Mapping[str, Any] | None = None
        response, body = pairing.kept_response(last)
        if last.get("outcome") == AttemptOutcome.ok.value and not last.get("unreadable"):
            answer = last_event
            if response is None:
                response, body = pairing.recorded_response(number, last_event)
                pairing.derived.append(
                    f"rounds[{number - 1}].response: the provider response object Inspect "
                    "recorded, as RFC 8785 text (the task kept no bytes of it)"
                    if response is not None
                    else f"rounds[{number - 1}].response: neither the task nor Inspect kept it"
                )
        if response is not None:
            record["response"] = response
        rounds.append(Round(record, answer, body))
    trailing = events[position:]
    if trailing and not ended_early:
        raise pairing.refuse(
            f"Inspect recorded {len(trailing)} model call(s) the task's record does not name"
        )
    for event in trailing:
        number = len(rounds) + 1
        record = {
            "round": str(number),
            "request": pairing.request(number, event),
            "attempts": [pairing.event_attempt(number, event, started)],
        }
        response, body = pairing.recorded_response(number, event)
        if response is not None:
            record["response"] = response
        rounds.append(Round(record, None if event.get("error") else event, body))
    return rounds, pairing.derived
