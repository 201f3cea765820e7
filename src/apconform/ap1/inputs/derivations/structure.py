"""Whether a derivation resolves: the structural half of the seal's derivation checks.

Every input names exactly one thing that exists (a delivered amount field, an
earlier step, a declared constant), labels are unique, each operation has its
number of inputs, every step feeds the final, and the item's declared number
of steps is the derivation's. Behaviour (reads, perturbation, constants) is
checked in :mod:`apconform.ap1.inputs.derivations.checks` once this passes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from apconform.ap1.inputs.derivations.evaluation import input_kind, input_ref
from apconform.ap1.inputs.items import DeliveredContext
from apconform.ap1.numbers import parse_decimal_text
from apconform.ap1.refusal import violation
from apconform.core.errors import Violation, define_code
from apconform.models.ap1 import ItemDerivation, QuestionItem

__all__ = ["STRUCTURE", "is_amount", "structure_violations", "underivable_violations"]

STRUCTURE = define_code(
    "AP1-DRV-STRUCTURE",
    "A derivation does not resolve",
    "Each input names exactly one of a delivered amount field, an earlier step or a declared "
    "constant; labels are unique; every step feeds the final.",
    exit_status=1,
)

_ARITY = {
    "subtract": (2, 2),
    "divide": (2, 2),
    "power": (2, 2),
    "negate": (1, 1),
    "multiply_then_divide": (3, 1_000),
}


def underivable_violations(derivation: ItemDerivation, where: str) -> Iterator[Violation]:
    if not derivation.reasonUnderivable:
        yield violation(
            STRUCTURE, f"{where}.reasonUnderivable", "an underivable item needs reasonUnderivable"
        )
    if (
        derivation.intermediates
        or derivation.final is not None
        or derivation.constants
        or derivation.sourceFields
    ):
        yield violation(
            STRUCTURE,
            where,
            f"item {derivation.itemId} is underivable, so it has no steps, final, "
            "constants or fields",
        )


def structure_violations(
    derivation: ItemDerivation,
    where: str,
    context: DeliveredContext,
    item: QuestionItem,
    *,
    version: int = 1,
) -> Iterator[Violation]:
    labels: set[str] = set()
    constants = Counter(c.name for c in derivation.constants)
    for name, count in constants.items():
        if count > 1:
            yield violation(
                STRUCTURE, f"{where}.constants", f"constant {name} is declared {count} times"
            )
    for ref, count in Counter(derivation.sourceFields).items():
        if count > 1:
            yield violation(
                STRUCTURE, f"{where}.sourceFields", f"field {ref} is listed {count} times"
            )
    for position, ref in enumerate(derivation.sourceFields):
        entity, _, field = ref.partition(".")
        if entity not in context or not is_amount(context[entity].get(field, "")):
            yield violation(
                STRUCTURE,
                f"{where}.sourceFields[{position}]",
                f"declared field {ref} is not an amount delivered with item {item.id}",
            )
    uses: dict[str, set[str]] = {}
    for s_index, step in enumerate(derivation.intermediates):
        at = f"{where}.intermediates[{s_index}]"
        if step.label in labels:
            yield violation(STRUCTURE, f"{at}.label", f"label {step.label} is used twice")
        low, high = _ARITY.get(str(step.operation), (2, 1_000))
        if not low <= len(step.inputs) <= high:
            yield violation(
                STRUCTURE,
                f"{at}.inputs",
                f"{step.operation!s} cannot take {len(step.inputs)} input(s)",
            )
        uses[step.label] = set()
        for i_index, operand in enumerate(step.inputs):
            path = f"{at}.inputs[{i_index}]"
            kinds = operand.model_fields_set & {"source", "intermediate", "constant"}
            if len(kinds) != 1:
                yield violation(
                    STRUCTURE,
                    path,
                    "an input names exactly one of source, intermediate or constant",
                )
                continue
            kind, ref = input_kind(operand), input_ref(operand)
            if kind == "intermediate":
                if ref not in labels:
                    yield violation(STRUCTURE, path, f"{ref} is not the label of an earlier step")
                uses[step.label].add(ref)
            elif kind == "constant" and ref not in constants:
                yield violation(STRUCTURE, path, f"constant {ref} is not declared")
            elif kind == "source":
                entity, _, field = ref.partition(".")
                if entity not in item.sourceEntities:
                    yield violation(
                        STRUCTURE,
                        path,
                        f"{ref}: entity {entity} is not delivered with item {item.id}",
                    )
                elif field not in context[entity]:
                    yield violation(STRUCTURE, path, f"{ref}: entity {entity} has no field {field}")
                elif not is_amount(context[entity][field]):
                    yield violation(STRUCTURE, path, f"{ref} is a label, not an amount")
        labels.add(step.label)
    if derivation.final is None or derivation.final not in labels:
        yield violation(
            STRUCTURE, f"{where}.final", f"final {derivation.final!r} is not the label of a step"
        )
        return
    reached, todo = set(), [derivation.final]
    while todo:
        label = todo.pop()
        if label not in reached:
            reached.add(label)
            todo.extend(uses.get(label, ()))
    for s_index, step in enumerate(derivation.intermediates):
        if step.label not in reached:
            yield violation(
                STRUCTURE,
                f"{where}.intermediates[{s_index}]",
                f"step {step.label} does not feed the final {derivation.final}",
            )
    if version == 1 and int(item.steps) != len(derivation.intermediates):
        yield violation(
            STRUCTURE,
            f"{where}.intermediates",
            f"item {item.id} says it takes {item.steps} steps but the derivation has "
            f"{len(derivation.intermediates)}",
        )


def is_amount(text: str) -> bool:
    try:
        parse_decimal_text(text)
    except ValueError:
        return False
    return True
