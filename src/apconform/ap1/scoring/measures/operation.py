"""D7.2(b) operation correctness: evaluate what was submitted and resolve its value, never its text.

A call's value is compared, in order, with the expected value, the expected
value quantised at the declared point, and each reference intermediate (raw,
under each permitted transformation, quantised); the first agreement decides
OPERATION-CORRECT, otherwise WRONG-OPERATION. Agreement is equality up to the
sealed arithmetic's own rounding (a relative 1E-30), so two equivalent routes
whose 34-digit results differ in the last digit still agree, and no answer
tolerance is involved. A call without a value is OPERATION-UNOBSERVABLE.

Per-call scoring marks each step of a legitimate multi-call decomposition
wrong, so the session is reclassified: a WRONG-OPERATION whose value is an
operand (sign included, so ``(-12)`` counts) of a later OPERATION-CORRECT call
becomes correct, repeatedly until nothing changes. The per-call outcome is
kept beside the session outcome.

A calculator that computes in binary floating point returns text such as
``15.200000000000001``; a model that copies that text into its next call has
used the earlier call's value, not a new number. Such a number (an earlier
return that differs from the scorer's own value of that call only by the
representation error of binary arithmetic, a relative 1E-12 at most) is
evaluated at the scorer's value, and the substitution is recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from apconform.ap1.numbers import arithmetic_context
from apconform.ap1.scoring.context import ItemContext
from apconform.ap1.scoring.results import CallOperationJson

__all__ = [
    "CORRECT",
    "UNOBSERVABLE",
    "WRONG",
    "CallOperation",
    "agrees",
    "classify_call",
    "classify_session",
    "classify_value",
    "is_float_noise",
]

CORRECT = "OPERATION-CORRECT"
WRONG = "WRONG-OPERATION"
UNOBSERVABLE = "OPERATION-UNOBSERVABLE"
AGREEMENT = Decimal("1E-30")
FLOAT_NOISE = Decimal("1E-12")
"""The largest relative difference between a return and the scorer's value read as noise."""
_C = arithmetic_context(precision=60)


def is_float_noise(returned: Decimal, exact: Decimal) -> bool:
    """Whether a return differs from the scorer's value only by binary-float representation."""
    if returned == exact:
        return False
    scale = max(abs(exact), Decimal(1))
    return _C.multiply(scale, FLOAT_NOISE) >= abs(_C.subtract(returned, exact))


def agrees(value: Decimal, target: Decimal) -> bool:
    """Equal, or different only below a relative 1E-30 (the 34-digit arithmetic's rounding)."""
    if value == target:
        return True
    scale = max(abs(target), Decimal(1))
    return _C.multiply(scale, AGREEMENT) >= abs(_C.subtract(value, target))


def classify_value(value: Decimal, item: ItemContext) -> str | None:
    """The first target the value agrees with, or None."""
    for label, target in item.targets:
        if agrees(value, target):
            return label
    return None


@dataclass(frozen=True)
class CallOperation:
    """One call's operation outcome, per call and after the session reclassification."""

    call: int
    outcome: str
    per_call: str
    value: Decimal | None
    matched: str | None
    operand_values: tuple[Decimal, ...]
    reason: str | None = None
    tool_agrees: bool | None = None
    read_returns: tuple[tuple[str, int, Decimal], ...] = ()
    """(number as written, the call that returned it, the scorer's value used) per AP1-OPN-5."""

    def to_json(self) -> CallOperationJson:
        out: CallOperationJson = {
            "call": str(self.call),
            "outcome": self.outcome,
            "perCallOutcome": self.per_call,
            "value": None if self.value is None else format(self.value, "f"),
            "matchedAgainst": self.matched,
        }
        if self.reason is not None:
            out["reason"] = self.reason
        if self.tool_agrees is not None:
            out["toolReturnAgrees"] = self.tool_agrees
        if self.read_returns:
            out["returnsAsEvaluated"] = [
                {"literal": literal, "call": str(call), "value": format(value, "f")}
                for literal, call, value in self.read_returns
            ]
        return out


def classify_call(
    call: int,
    value: Decimal | None,
    operand_values: Sequence[Decimal],
    item: ItemContext,
    *,
    reason: str | None = None,
    tool_value: Decimal | None = None,
    read_returns: Sequence[tuple[str, int, Decimal]] = (),
) -> CallOperation:
    """Per-call classification of one call."""
    tool_agrees = None if value is None or tool_value is None else value == tool_value
    if value is None:
        return CallOperation(
            call, UNOBSERVABLE, UNOBSERVABLE, None, None, tuple(operand_values), reason, tool_agrees
        )
    matched = classify_value(value, item)
    outcome = CORRECT if matched is not None else WRONG
    return CallOperation(
        call,
        outcome,
        outcome,
        value,
        matched,
        tuple(operand_values),
        None,
        tool_agrees,
        tuple(read_returns),
    )


def classify_session(calls: Sequence[CallOperation]) -> tuple[list[CallOperation], int]:
    """Reclassify wrong steps feeding a later correct call; return the calls and the count moved."""
    out = list(calls)
    moved = 0
    changed = True
    while changed:
        changed = False
        for i, call in enumerate(out):
            if call.outcome != WRONG or call.value is None:
                continue
            for later in out[i + 1 :]:
                if later.outcome == CORRECT and any(call.value == v for v in later.operand_values):
                    out[i] = replace(call, outcome=CORRECT, matched=f"operand of call {later.call}")
                    moved += 1
                    changed = True
                    break
    return out, moved
