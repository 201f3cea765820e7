"""Which executions failed at the endpoint instead of yielding an outcome, and why, in short.

Such an execution is recorded as ``cell-deferred`` (see the engine's outage
policy); the verifier, the scorer and the engine all name its cause with
:func:`endpoint_failure`, so the transcript, the report and the terminal agree.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["ACCESS_STATUSES", "TRANSPORT_OUTCOMES", "deferral_cause", "endpoint_failure"]

TRANSPORT_OUTCOMES = frozenset({"transport-error", "timeout"})
ACCESS_STATUSES = frozenset({"401", "403", "404"})


def endpoint_failure(execution: Mapping[str, object]) -> str | None:
    """Why an execution failed at the endpoint rather than yielding an outcome, or None.

    ``execution`` is an ``ExecutionRecord``; its rounds and attempts are JSON objects,
    checked as they are read.
    """
    if execution.get("status") != "UNMEASURED" or execution.get("stopReason") != (
        "transport-exhausted"
    ):
        return None
    attempts = _last_attempts(execution.get("rounds"))
    if not attempts:
        return None
    last = attempts[-1]
    if all(a.get("outcome") in TRANSPORT_OUTCOMES for a in attempts):
        return f"{last.get('outcome')} after {len(attempts)} attempt(s): " + _in_short(
            str(last.get("error") or "")
        )
    if last.get("outcome") == "http-error" and last.get("httpStatus") in ACCESS_STATUSES:
        return f"the endpoint answered HTTP {last['httpStatus']}"
    return None


def _last_attempts(rounds: object) -> list[Mapping[str, object]]:
    """The attempts of the last of ``rounds`` (none when there is no such round)."""
    if not isinstance(rounds, list) or not rounds or not isinstance(rounds[-1], Mapping):
        return []
    attempts = rounds[-1].get("attempts")
    if not isinstance(attempts, list):
        return []
    return [a for a in attempts if isinstance(a, Mapping)]


_SHORT = (
    ("Connection refused", "connection refused (is anything listening at the URL?)"),
    ("Name or service not known", "the host name does not resolve"),
    ("Temporary failure in name resolution", "the host name does not resolve"),
    ("No route to host", "no route to the host"),
    ("Connection reset", "the connection was reset"),
    ("RemoteDisconnected", "the endpoint closed the connection without answering"),
    ("Connection aborted", "the connection was dropped"),
    ("no response within", "no response in time"),
)


def _in_short(error: str) -> str:
    """A recorded transport error in a few words (the record keeps the full text)."""
    for marker, words in _SHORT:
        if marker in error:
            return words
    return error[:160] or "no detail recorded"


def deferral_cause(execution: Mapping[str, object]) -> str:
    """The cause of a deferred execution in words (without its round, so causes count)."""
    cause = endpoint_failure(execution)
    if cause is not None:
        return cause
    reason = str(execution.get("statusReason") or "failed at the endpoint")
    if reason.startswith("round ") and ": " in reason:
        reason = reason.split(": ", 1)[1]
    return reason[:200]
