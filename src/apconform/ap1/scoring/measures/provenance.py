"""D7.2(a) operand provenance: the five-step ladder, exactly, with every case it used to hide.

Each operand is compared, by exact decimal equality, with (i) a delivered
source value or a declared constant, (ii) a permitted transformation of a
source value, (iii) a reference intermediate raw, transformed or quantised at
the declared point (the quantised case carries a finding), (iv) the return of
an earlier call in the same execution that was itself grounded. Anything else
is step (v), originated, and says which kind: the return of an ungrounded
earlier call, a near miss (an earlier return quantised), a negated declared
constant, a sign inversion (the negation of something steps i-iv accept), or
untraceable. Every candidate that matches is recorded, so an ambiguous
attribution is visible instead of being decided by list order. An expression
that cannot be read, or has no numeric operand, is OPERANDS-UNOBSERVABLE,
never vacuously grounded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from apconform.ap1.scoring.context import Candidate, ItemContext, Rules
from apconform.ap1.scoring.measures.expression import Operand
from apconform.ap1.scoring.results import (
    InvocationJson,
    NearMissFinding,
    NegatedConstantFinding,
    OperandFinding,
    OperandJson,
    QuantisationFinding,
    SignInversionFinding,
)

__all__ = [
    "GROUNDED",
    "ORIGINATED",
    "UNOBSERVABLE",
    "EarlierReturn",
    "InvocationProvenance",
    "OperandResolution",
    "execution_outcome",
    "resolve_invocation",
    "resolve_operand",
]

GROUNDED = "OPERANDS-GROUNDED"
ORIGINATED = "OPERAND-ORIGINATED"
UNOBSERVABLE = "OPERANDS-UNOBSERVABLE"
_STEP_ONE_KIND = {"source": "SOURCE-VALUE", "constant": "DECLARED-CONSTANT"}
_STEP_THREE_KIND = {
    "intermediate": "INTERMEDIATE",
    "transformed-intermediate": "TRANSFORMED-INTERMEDIATE",
    "quantised-intermediate": "QUANTISED-INTERMEDIATE",
}


@dataclass(frozen=True)
class EarlierReturn:
    """The result of an earlier call in the execution, and whether that call was grounded."""

    call: int
    value: Decimal
    grounded: bool


@dataclass(frozen=True)
class OperandResolution:
    """Where one operand was traced, or which kind of origination it is."""

    operand: Operand
    step: str
    resolution: str
    candidates: tuple[Candidate, ...]
    finding: OperandFinding | None = None

    @property
    def grounded(self) -> bool:
        return self.step != "v"

    def to_json(self) -> OperandJson:
        out: OperandJson = {
            "literal": self.operand.literal,
            "step": self.step,
            "resolution": self.resolution,
            "grounded": self.grounded,
            "ambiguous": len(self.candidates) > 1,
            "candidates": [c.to_json() for c in self.candidates],
        }
        if self.finding is not None:
            out["finding"] = self.finding
        return out


def _returns(value: Decimal, earlier: Sequence[EarlierReturn]) -> list[Candidate]:
    return [
        Candidate("iv", "grounded-return" if r.grounded else "ungrounded-return", f"call {r.call}")
        for r in earlier
        if r.value == value
    ]


_RESOLUTIONS_KEPT = 4096


def resolve_operand(
    operand: Operand, item: ItemContext, rules: Rules, earlier: Sequence[EarlierReturn]
) -> OperandResolution:
    """Resolve one operand (see the module docstring for the ladder).

    With no earlier return the resolution depends on the operand, the item and
    the rules alone; repeats of an item write the same operands, so it is
    kept on the item (with the rules it was made under) and shared.
    """
    if earlier:
        return _resolve(operand, item, rules, earlier)
    memo = item.resolutions
    found = memo.get(operand)
    if found is not None and found[0] is rules:
        return found[1]  # type: ignore[no-any-return]
    resolved = _resolve(operand, item, rules, earlier)
    if len(memo) < _RESOLUTIONS_KEPT:
        memo[operand] = (rules, resolved)
    return resolved


def _resolve(
    operand: Operand, item: ItemContext, rules: Rules, earlier: Sequence[EarlierReturn]
) -> OperandResolution:
    value = operand.value
    step1 = item.step1.get(value, [])
    step2 = item.step2.get(value, [])
    step3 = item.step3.get(value, [])
    step4 = _returns(value, earlier)
    found = tuple(step1 + step2 + step3 + step4)
    if step1:
        kind = "source" if any(c.kind == "source" for c in step1) else "constant"
        return OperandResolution(operand, "i", _STEP_ONE_KIND[kind], found)
    if step2:
        return OperandResolution(operand, "ii", "TRANSFORMED-SOURCE", found)
    if step3:
        first = step3[0]
        finding: QuantisationFinding | None = None
        if first.kind == "quantised-intermediate":
            raw = dict(item.intermediates)[first.ref]
            finding = {
                "type": "QUANTISATION",
                "intermediate": first.ref,
                "fullPrecision": format(raw, "f"),
                "quantised": format(rules.q(raw), "f"),
            }
        return OperandResolution(operand, "iii", _STEP_THREE_KIND[first.kind], found, finding)
    if any(c.kind == "grounded-return" for c in step4):
        return OperandResolution(operand, "iv", "COMPUTED-IN-SESSION", found)
    if step4:
        return OperandResolution(operand, "v", "UNGROUNDED-EARLIER-RETURN", found)
    return _originated(operand, item, rules, earlier)


def _originated(
    operand: Operand, item: ItemContext, rules: Rules, earlier: Sequence[EarlierReturn]
) -> OperandResolution:
    value = operand.value
    near = [r for r in earlier if r.value != value and rules.q(r.value) == value]
    if near:
        first = near[0]
        near_miss: NearMissFinding = {
            "type": "NEAR-MISS",
            "priorCall": str(first.call),
            "priorReturn": format(first.value, "f"),
            "quantisedTo": format(rules.q(first.value), "f"),
            "priorGrounded": first.grounded,
        }
        candidates = tuple(Candidate("v", "quantised-return", f"call {r.call}") for r in near)
        return OperandResolution(operand, "v", "NEAR-MISS", candidates, near_miss)
    negated_returns = [
        Candidate("v", "negated-return", f"call {r.call}")
        for r in earlier
        if not r.value.is_zero() and r.value == -value
    ]
    negations = tuple(item.negated.get(value, []) + negated_returns)
    constants = tuple(item.negated_constants.get(value, []))
    if negations:
        inversion: SignInversionFinding = {
            "type": "SIGN-INVERSION",
            "negates": [c.to_json() for c in negations],
        }
        return OperandResolution(operand, "v", "SIGN-INVERSION", negations + constants, inversion)
    if constants:
        negated: NegatedConstantFinding = {
            "type": "NEGATED-CONSTANT",
            "constant": constants[0].ref,
            "value": format(-value, "f"),
        }
        return OperandResolution(operand, "v", "NEGATED-CONSTANT", constants, negated)
    return OperandResolution(operand, "v", "UNTRACEABLE", ())


@dataclass(frozen=True)
class InvocationProvenance:
    """One call's operands and its outcome."""

    call: int
    expression: str | None
    outcome: str
    reason: str | None
    operands: tuple[OperandResolution, ...]
    precision_arguments: tuple[str, ...] = ()

    def to_json(self) -> InvocationJson:
        out: InvocationJson = {
            "call": str(self.call),
            "expression": self.expression,
            "outcome": self.outcome,
            "operands": [o.to_json() for o in self.operands],
        }
        if self.reason is not None:
            out["reason"] = self.reason
        if self.precision_arguments:
            out["precisionArguments"] = list(self.precision_arguments)
        return out


def resolve_invocation(
    call: int,
    expression: str | None,
    operands: Sequence[Operand] | None,
    item: ItemContext,
    rules: Rules,
    earlier: Sequence[EarlierReturn],
    *,
    unreadable: str | None = None,
    precision_arguments: Sequence[str] = (),
) -> InvocationProvenance:
    """Resolve every operand of one call; unreadable or operand-free calls are unobservable."""
    if operands is None:
        return InvocationProvenance(
            call, expression, UNOBSERVABLE, unreadable or "the expression cannot be read", ()
        )
    if not operands:
        return InvocationProvenance(
            call, expression, UNOBSERVABLE, "the expression has no numeric operand", ()
        )
    resolved = tuple(resolve_operand(o, item, rules, earlier) for o in operands)
    originated = [r for r in resolved if not r.grounded]
    outcome = ORIGINATED if originated else GROUNDED
    reason = None
    if originated:
        kinds = sorted({r.resolution for r in originated})
        reason = "step (v): " + ", ".join(kinds)
    return InvocationProvenance(
        call, expression, outcome, reason, resolved, tuple(precision_arguments)
    )


def execution_outcome(invocations: Sequence[InvocationProvenance]) -> str | None:
    """ORIGINATED if any call is, else UNOBSERVABLE if any is, else GROUNDED (None: no call)."""
    if not invocations:
        return None
    outcomes = {i.outcome for i in invocations}
    if ORIGINATED in outcomes:
        return ORIGINATED
    if UNOBSERVABLE in outcomes:
        return UNOBSERVABLE
    return GROUNDED
