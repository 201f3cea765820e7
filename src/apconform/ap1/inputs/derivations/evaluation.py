"""Declarative derivations evaluated by the kit in exact decimal arithmetic.

A derivation is data: ordered steps, each an operation over typed inputs (a
fixture field, an earlier step or a declared constant). The kit evaluates it
against one item's delivered data, recording every field it reads, so the
ground truth is logic that the seal can perturb and inspect, never a literal.
The final is kept at full precision; quantisation happens once, elsewhere.
"""

from __future__ import annotations

import decimal
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from apconform.ap1.inputs.items import DeliveredContext
from apconform.ap1.numbers import arithmetic_context, parse_decimal_text
from apconform.models.ap1 import DerivationInput, ItemDerivation

__all__ = [
    "DerivationError",
    "Evaluation",
    "evaluate",
    "input_kind",
    "input_ref",
    "reference_intermediates",
]

_EXACTLY_TWO = {"subtract", "divide", "power"}
_AT_LEAST_TWO = {"add", "multiply", "min", "max"}
_AT_LEAST_THREE = {"multiply_then_divide"}


class DerivationError(Exception):
    """A derivation cannot be evaluated (bad reference or an arithmetic failure)."""


@dataclass(frozen=True)
class Evaluation:
    """The result of one evaluation: every intermediate in order, the final and the fields read."""

    intermediates: tuple[tuple[str, Decimal], ...]
    final: Decimal
    reads: frozenset[str]


def input_kind(item: DerivationInput) -> str:
    """Which of source, intermediate or constant the input is (the first present)."""
    for kind in ("source", "intermediate", "constant"):
        if kind in item.model_fields_set:
            return kind
    return ""


def input_ref(item: DerivationInput) -> str:
    kind = input_kind(item)
    return str(getattr(item, kind)) if kind else ""


def _apply(operation: str, args: list[Decimal], context: decimal.Context) -> Decimal:
    if operation in _EXACTLY_TWO and len(args) != 2:
        raise DerivationError(f"{operation} takes exactly two inputs, not {len(args)}")
    if operation in _AT_LEAST_TWO and len(args) < 2:
        raise DerivationError(f"{operation} takes at least two inputs, not {len(args)}")
    if operation in _AT_LEAST_THREE and len(args) < 3:
        raise DerivationError(f"{operation} takes at least three inputs, not {len(args)}")
    if operation == "negate" and len(args) != 1:
        raise DerivationError(f"negate takes exactly one input, not {len(args)}")
    if operation == "add":
        total = args[0]
        for value in args[1:]:
            total = context.add(total, value)
        return total
    if operation == "multiply":
        product = args[0]
        for value in args[1:]:
            product = context.multiply(product, value)
        return product
    if operation == "multiply_then_divide":
        value = context.multiply(args[0], args[1])
        for divisor in args[2:]:
            value = context.divide(value, divisor)
        return value
    if operation == "subtract":
        return context.subtract(args[0], args[1])
    if operation == "divide":
        return context.divide(args[0], args[1])
    if operation == "power":
        return context.power(args[0], args[1])
    if operation == "negate":
        return context.minus(args[0])
    if operation == "min":
        return min(args)
    if operation == "max":
        return max(args)
    raise DerivationError(f"unknown operation {operation!r}")


def evaluate(
    derivation: ItemDerivation,
    context: DeliveredContext,
    *,
    override: Mapping[str, Decimal] | None = None,
) -> Evaluation:
    """Evaluate over delivered data; ``override`` replaces field values (for perturbation)."""
    if not derivation.derivable or derivation.final is None:
        raise DerivationError(f"item {derivation.itemId} is declared underivable")
    arithmetic = arithmetic_context()
    constants = {c.name: parse_decimal_text(c.value) for c in derivation.constants}
    values: dict[str, Decimal] = {}
    reads: set[str] = set()
    ordered: list[tuple[str, Decimal]] = []
    for step in derivation.intermediates:
        args = [_operand(i, context, constants, values, reads, override) for i in step.inputs]
        try:
            value = _apply(str(step.operation), args, arithmetic)
        except decimal.DecimalException as exc:
            raise DerivationError(
                f"step {step.label}: {step.operation!s} failed ({type(exc).__name__})"
            ) from None
        if step.label in values:
            raise DerivationError(f"step label {step.label} is used twice")
        values[step.label] = value
        ordered.append((step.label, value))
    if derivation.final not in values:
        raise DerivationError(f"final {derivation.final} is not the label of a step")
    return Evaluation(tuple(ordered), values[derivation.final], frozenset(reads))


def _operand(
    item: DerivationInput,
    context: DeliveredContext,
    constants: Mapping[str, Decimal],
    values: Mapping[str, Decimal],
    reads: set[str],
    override: Mapping[str, Decimal] | None,
) -> Decimal:
    kind, ref = input_kind(item), input_ref(item)
    if kind == "constant":
        if ref not in constants:
            raise DerivationError(f"constant {ref} is not declared")
        return constants[ref]
    if kind == "intermediate":
        if ref not in values:
            raise DerivationError(f"intermediate {ref} is not an earlier step")
        return values[ref]
    if kind == "source":
        entity, _, field = ref.partition(".")
        if entity not in context or field not in context[entity]:
            raise DerivationError(f"field {ref} is not in the delivered data")
        reads.add(ref)
        if override is not None and ref in override:
            return override[ref]
        try:
            return parse_decimal_text(context[entity][field])
        except ValueError:
            raise DerivationError(f"field {ref} is a label, not an amount") from None
    raise DerivationError("an input names none of source, intermediate or constant")


def reference_intermediates(
    derivation: ItemDerivation, evaluation: Evaluation
) -> tuple[tuple[str, Decimal], ...]:
    """The evaluated steps that are reference intermediates (all of them in version 1).

    A version 2 step marked ``reference: false`` is a helper: it carries the
    computation but is neither a ladder step (iii) value nor a D7.2(b) target.
    """
    helpers = {step.label for step in derivation.intermediates if step.reference is False}
    return tuple((label, v) for label, v in evaluation.intermediates if label not in helpers)
