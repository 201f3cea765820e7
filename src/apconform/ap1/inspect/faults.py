"""What went wrong in one attempt of a round inside Inspect, in the instrument's own terms.

The native endpoint adapter names every failed attempt with one outcome
(``timeout``, ``transport-error``, ``rate-limited``, ``server-error``,
``http-error``, ``malformed-body``) and retries the retryable ones by the
sealed policy. Inside Inspect the same failures arrive as exceptions of the
provider's SDK or of Inspect itself; :func:`classify` reads them back into
those outcomes, from the exception's type and HTTP status, never from its
wording. An exception that is none of these is not a transport fault: the
tool loop decides what it is from the response Inspect recorded (an answer in
a shape that cannot be read), or lets Inspect end the sample with it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from apconform.ap1.run.retry import retry_after_seconds

__all__ = ["ERROR_BODY_LIMIT", "Fault", "classify"]

ERROR_BODY_LIMIT = 65_536
"""The most of an error response's body an attempt keeps (the rest is cut, and said so)."""

# Exception classes by name, as SDKs and Inspect spell them: the name is the stable part
# (the module they live in is private and moves between releases).
_TIMEOUTS = frozenset(
    {
        "AttemptTimeoutError",  # Inspect abandoned the attempt (its attempt timeout)
        "StreamIdleTimeoutError",
        "APITimeoutError",  # openai, anthropic and other Stainless SDKs
        "TimeoutException",
        "ReadTimeout",
        "ConnectTimeout",
        "WriteTimeout",
        "PoolTimeout",
        "TimeoutError",
    }
)
_TRANSPORT = frozenset(
    {
        "APIConnectionError",
        "ConnectError",
        "RemoteProtocolError",
        "ReadError",
        "WriteError",
        "NetworkError",
        "ConnectionError",
        "ConnectionResetError",
        "ConnectionRefusedError",
    }
)


@dataclass(frozen=True)
class Fault:
    """One failed attempt, as the native adapter would have recorded it."""

    outcome: str
    error: str
    http_status: int | None = None
    retry_after: Decimal | None = None
    response_text: str | None = None
    """The error response's body as the SDK received it (cut at ERROR_BODY_LIMIT)."""
    truncated: bool = False


def _names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def _chain(exc: BaseException) -> list[BaseException]:
    """The exception and those it was raised from (Inspect wraps provider errors)."""
    out: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in out and len(out) < 8:
        out.append(current)
        last = getattr(current, "last_attempt", None)  # tenacity's RetryError wraps the attempt
        inner = last.exception() if last is not None and hasattr(last, "exception") else None
        current = inner if isinstance(inner, BaseException) else current.__cause__
    return out


def _status(exc: BaseException) -> int | None:
    for item in _chain(exc):
        status = getattr(item, "status_code", None)
        if isinstance(status, int) and 100 <= status <= 599:
            return status
    return None


def _response(exc: BaseException) -> Any:
    for item in _chain(exc):
        response = getattr(item, "response", None)
        if response is not None and hasattr(response, "headers"):
            return response
    return None


def _body(exc: BaseException, response: object) -> tuple[str | None, bool]:
    text: str | None = None
    try:
        candidate = getattr(response, "text", None) if response is not None else None
        text = candidate if isinstance(candidate, str) else None
    except Exception:  # a streamed body that was never read has no text
        text = None
    if text is None:
        body = next((getattr(i, "body", None) for i in _chain(exc) if hasattr(i, "body")), None)
        if body is not None:
            try:
                text = json.dumps(body, ensure_ascii=False)
            except (TypeError, ValueError):
                text = str(body)
    if text is None:
        return None, False
    if len(text) > ERROR_BODY_LIMIT:
        return text[:ERROR_BODY_LIMIT], True
    return text, False


def _detail(exc: BaseException) -> str:
    message = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {message[0] if message else ''}"[:2000]


def classify(exc: BaseException, timeout: Decimal) -> Fault | None:
    """The attempt outcome an exception means, or None when it is no transport fault."""
    names = set().union(*(_names(item) for item in _chain(exc)))
    status = _status(exc)
    if status is not None:
        response = _response(exc)
        header = None
        if response is not None:
            try:
                header = response.headers.get("retry-after")
            except Exception:
                header = None
        text, truncated = _body(exc, response)
        excerpt = (text or "")[:500]
        if status == 429:
            outcome = "rate-limited"
        elif 500 <= status <= 599:
            outcome = "server-error"
        else:
            outcome = "http-error"
        return Fault(
            outcome,
            f"HTTP {status}: {excerpt}",
            http_status=status,
            retry_after=retry_after_seconds(header),
            response_text=text,
            truncated=truncated,
        )
    if names & _TIMEOUTS:
        named = next(i for i in _chain(exc) if _names(i) & _TIMEOUTS)
        return Fault("timeout", f"no response within {timeout} s ({type(named).__name__})")
    if "JSONDecodeError" in names:
        return Fault(
            "malformed-body", f"a successful response whose body is not JSON ({_detail(exc)})"
        )
    if names & _TRANSPORT:
        return Fault("transport-error", _detail(exc))
    return None
