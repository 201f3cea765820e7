"""One round sent through Inspect under the sealed transport policy, every attempt recorded.

The native adapter sends a round up to ``maxAttempts`` times, waits the sealed
backoff between retryable failures, and gives each attempt ``timeoutSeconds``.
Here each attempt is one Inspect ``generate`` with Inspect's own retries off
(``max_retries=0``) and its attempt timeout set to the sealed timeout, so an
abandoned attempt is an attempt of the round (its model event is kept in the
log, with the error), never a round of its own. The provider SDK's own
retries are switched off as well where the SDK offers it (OpenAI-compatible
and Anthropic clients): otherwise one attempt could be several requests the
record cannot see. What each attempt did is returned for the sample's store,
naming its model event so the import can pair them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Required, TypedDict

import anyio
from inspect_ai.event import ModelEvent
from inspect_ai.log import transcript
from inspect_ai.solver import Generate, TaskState

from apconform.ap1.clock import elapsed_text, utc_now
from apconform.ap1.inspect.arrival import Arrival, listen, listening
from apconform.ap1.inspect.faults import classify
from apconform.ap1.run.retry import RETRYABLE, RetryPolicy, backoff_wait
from apconform.ap1.run.shapes import CHAT, classify_shape
from apconform.ap1.run.wire import not_json, parse_body
from apconform.core.canonical import sha256_bytes
from apconform.core.errors import ApconformError
from apconform.models.ap1 import AttemptOutcome

__all__ = ["RoundSent", "attempt_settings", "prepare_provider", "send_round"]


@dataclass
class RoundSent:
    """What became of one round: why it failed when it did, else the answered attempt's event."""

    attempts: int = 0
    cause: str | None = None
    """Set when every attempt failed: the native adapter's cause text."""
    unreadable: tuple[str, str] | None = None
    """(shape, detail) when the answer arrived in a shape that is not a chat completion."""
    event: ModelEvent | None = None
    """The model event of the attempt that was answered."""
    body: object = None
    """The answered response's body as it arrived, parsed, when the task could keep it."""


def attempt_settings(policy: RetryPolicy) -> tuple[dict[str, Any], str | None]:
    """Inspect's settings for one attempt, and a note when the sealed timeout had to be rounded.

    Inspect takes its attempt timeout in whole seconds; a fractional sealed
    timeout is rounded up (never down: an attempt is never cut shorter than sealed).
    """
    seconds = max(1, math.ceil(policy.timeout))
    note = None
    if Decimal(seconds) != policy.timeout:
        note = (
            f"attempt timeout: Inspect takes whole seconds, so the sealed {policy.timeout} s "
            f"ran as {seconds} s"
        )
    return {"max_retries": 0, "attempt_timeout": seconds}, note


def prepare_provider(model: Any) -> list[str]:
    """Make ``model``'s provider send each attempt once and keep what Inspect cannot read.

    Switches off the retries a provider's SDK makes inside one attempt (where
    its client offers ``with_options(max_retries=...)``) and listens on its
    HTTP client (``arrival``). Returns what was done, for the record.
    """
    api = getattr(model, "api", None)
    client = getattr(api, "client", None)
    retries = getattr(client, "max_retries", None)
    with_options = getattr(client, "with_options", None)
    name = type(api).__name__
    notes = []
    if isinstance(retries, int) and callable(with_options):
        if retries > 0:
            api.client = with_options(max_retries=0)  # type: ignore[union-attr]
        notes.append(f"the {name} client's own retries were switched off (max_retries 0)")
    else:
        notes.append(
            f"the provider {name} offers no switch for retries inside its SDK; an attempt may "
            "hide retried requests"
        )
    if not listen(model):
        notes.append(
            f"the provider {name} has no HTTP client the task can listen on: an answer Inspect "
            "cannot read ends the sample with Inspect's error instead of UNOBSERVABLE"
        )
    return notes


def _last_event() -> ModelEvent | None:
    event = transcript().history.find_last(lambda e: isinstance(e, ModelEvent))
    return event if isinstance(event, ModelEvent) else None


def _new_event(before: ModelEvent | None) -> ModelEvent | None:
    event = _last_event()
    if event is None or (before is not None and event.uuid == before.uuid):
        return None
    return event


class LoopAttempt(TypedDict, total=False):
    """The task loop's record of one attempt, kept in the sample's store (members set as the
    attempt proceeds); the import pairs it with Inspect's model event."""

    round: Required[str]
    attempt: Required[str]
    startedAt: str
    elapsedSeconds: str
    event: str | None
    httpStatus: str
    responseText: str
    responseSha256: str
    responseNotKept: str
    responseTruncated: bool
    outcome: str
    unreadable: str
    error: str
    waitSeconds: str


def _keep(entry: LoopAttempt, arrival: Arrival) -> None:
    """Put what arrived for the attempt into its record: the status, and the body's exact bytes
    (as text, with their SHA-256) when it was a success the hook could read."""
    if arrival.status is not None:
        entry["httpStatus"] = str(arrival.status)
    if arrival.body is not None:
        entry["responseText"] = arrival.body.decode("utf-8", "replace")
        entry["responseSha256"] = sha256_bytes(arrival.body)
    elif arrival.note is not None:
        entry["responseNotKept"] = arrival.note


def _error(error: str, outcome: str, arrival: Arrival) -> str:
    """The attempt's error text; for a body that is not JSON, the native adapter's own words
    from the bytes that arrived."""
    if (
        outcome != AttemptOutcome.malformed_body.value
        or arrival.body is None
        or arrival.status is None
    ):
        return error
    try:
        parse_body(arrival.body)
    except (ApconformError, ValueError) as exc:
        return not_json(arrival.status, exc)
    return error


def _unreadable(arrival: Arrival) -> tuple[str, str] | None:
    """The shape of a successful response Inspect could not read, when it is no chat completion."""
    if arrival.body is None:
        return None
    try:
        body = parse_body(arrival.body)
    except (ApconformError, ValueError):
        return None
    shape, detail = classify_shape(body)
    if shape == CHAT:
        return None
    return shape, detail or shape


async def send_round(
    state: TaskState,
    generate: Generate,
    number: int,
    config: dict[str, Any],
    policy: RetryPolicy,
    record: Callable[[LoopAttempt], None],
) -> RoundSent:
    """Send round ``number`` (the sample's messages so far) by the sealed policy.

    ``record`` receives each attempt as soon as it ends, so the store holds the
    attempts of a round that Inspect ends midway. Raises what Inspect raises
    for anything that is neither a transport fault nor an unreadable answer (a
    limit, a cancelled sample, a provider's refusal of the request shape).
    """
    sent = RoundSent()
    settings, _ = attempt_settings(policy)
    for attempt in range(1, policy.max_attempts + 1):
        before = _last_event()
        started_at, started = utc_now(), time.perf_counter()
        entry: LoopAttempt = {"round": str(number), "attempt": str(attempt)}
        try:
            with listening() as arrival:
                await generate(state, tool_calls="none", **config, **settings)
        except Exception as exc:
            event = _new_event(before)
            entry.update({"startedAt": started_at, "elapsedSeconds": elapsed_text(started)})
            entry["event"] = event.uuid if event is not None else None
            fault = classify(exc, policy.timeout)
            if fault is None:
                shape = _unreadable(arrival)
                if shape is None or arrival.body is None:
                    raise
                first = str(exc).strip().splitlines()
                _keep(entry, arrival)
                entry.update(
                    {
                        "outcome": AttemptOutcome.ok.value,
                        "unreadable": f"{type(exc).__name__}: {first[0] if first else ''}"[:2000],
                    }
                )
                sent.attempts += 1
                record(entry)
                sent.unreadable = shape
                return sent
            _keep(entry, arrival)
            entry.update(
                {"outcome": fault.outcome, "error": _error(fault.error, fault.outcome, arrival)}
            )
            if fault.http_status is not None:
                entry["httpStatus"] = str(fault.http_status)
            if fault.response_text is not None:
                entry["responseText"] = fault.response_text
                if fault.truncated:
                    entry["responseTruncated"] = True
            plural = "s" if attempt != 1 else ""
            sent.cause = f"{fault.outcome} after {attempt} attempt{plural}: {entry['error']}"
            retry = fault.outcome in RETRYABLE and attempt < policy.max_attempts
            wait = backoff_wait(policy, attempt, fault.retry_after) if retry else None
            if wait is not None:
                entry["waitSeconds"] = str(wait)
            sent.attempts += 1
            record(entry)
            if wait is None:
                return sent
            await anyio.sleep(float(wait))
            continue
        event = _new_event(before)
        entry.update(
            {
                "startedAt": started_at,
                "elapsedSeconds": elapsed_text(started),
                "event": event.uuid if event is not None else None,
                "outcome": AttemptOutcome.ok.value,
            }
        )
        _keep(entry, arrival)
        sent.attempts += 1
        record(entry)
        sent.cause, sent.event = None, event
        sent.body = _chat(arrival)
        return sent
    return sent


def _chat(arrival: Arrival) -> object:
    """The answered body as parsed JSON (Decimal numbers), when the hook kept its bytes."""
    if arrival.body is None:
        return None
    try:
        return parse_body(arrival.body)
    except (ApconformError, ValueError):
        return None
