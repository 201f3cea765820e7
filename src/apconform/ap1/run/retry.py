"""The retry policy as pure functions, so the adapter and the vectors share one definition."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from apconform.ap1.numbers import arithmetic_context
from apconform.models.ap1 import TransportPolicy

__all__ = ["RETRYABLE", "RetryPolicy", "backoff_wait", "retry_after_seconds", "simulate"]

RETRYABLE = frozenset(
    {"rate-limited", "server-error", "malformed-body", "timeout", "transport-error"}
)


@dataclass(frozen=True)
class RetryPolicy:
    """The declared transport policy in exact numbers."""

    max_attempts: int
    initial: Decimal
    multiplier: Decimal
    cap: Decimal
    timeout: Decimal

    @classmethod
    def from_model(cls, policy: TransportPolicy) -> RetryPolicy:
        return cls(
            max_attempts=int(policy.maxAttempts),
            initial=Decimal(policy.backoffInitialSeconds),
            multiplier=Decimal(policy.backoffMultiplier),
            cap=Decimal(policy.backoffMaxSeconds),
            timeout=Decimal(policy.timeoutSeconds),
        )


def backoff_wait(policy: RetryPolicy, attempt: int, retry_after: Decimal | None = None) -> Decimal:
    """The wait after failed attempt ``attempt`` (1-based): initial x multiplier^(attempt-1),
    raised to Retry-After when given, capped at the declared maximum."""
    context = arithmetic_context()
    wait = context.multiply(policy.initial, context.power(policy.multiplier, attempt - 1))
    if retry_after is not None and retry_after > wait:
        wait = retry_after
    return min(wait, policy.cap)


def retry_after_seconds(header: str | None) -> Decimal | None:
    """A Retry-After header given in seconds (an HTTP date is ignored: the backoff applies)."""
    if header is None:
        return None
    text = header.strip()
    try:
        value = Decimal(text)
    except ArithmeticError:
        return None
    return value if value.is_finite() and value >= 0 else None


def simulate(policy: RetryPolicy, outcomes: list[tuple[str, Decimal | None]]) -> dict[str, object]:
    """What the adapter does with a sequence of attempt outcomes (outcome, Retry-After)."""
    waits: list[str] = []
    used = 0
    for used, (outcome, retry_after) in enumerate(outcomes[: policy.max_attempts], start=1):
        if outcome == "ok":
            return {"status": "answered", "attempts": str(used), "waits": waits, "cause": None}
        if outcome not in RETRYABLE or used == policy.max_attempts:
            break
        waits.append(str(backoff_wait(policy, used, retry_after)))
    last = outcomes[used - 1][0] if used else "none"
    return {
        "status": "UNMEASURED",
        "attempts": str(used),
        "waits": waits,
        "cause": f"{last} after {used} attempt{'s' if used != 1 else ''}",
    }
