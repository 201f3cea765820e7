"""Seal-time checks that make a derivation set trustworthy ground truth, failing closed.

For every item: the derivation exists and agrees with the question's
derivable flag; its structure resolves (inputs name delivered amount fields,
earlier steps or declared constants; every step feeds the final); it reads no
field it does not declare; every declared field moves the final when
perturbed (+1, and times 2 when non-zero, so a zero-valued field is tested too);
no undeclared amount field moves it; every declared constant is used (the
reference's E3 defect), or in version 2 is declared unused with its role (an
alternative route or a structural constant); and the final agrees with the
question's informational expected value, at full precision or quantised once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from decimal import Decimal

from apconform.ap1.inputs.config import RunConfig
from apconform.ap1.inputs.derivations.evaluation import (
    DerivationError,
    evaluate,
    input_kind,
    input_ref,
)
from apconform.ap1.inputs.derivations.structure import (
    is_amount,
    structure_violations,
    underivable_violations,
)
from apconform.ap1.inputs.derivations.version import format_version, version_violations
from apconform.ap1.inputs.items import DeliveredContext, delivered_context
from apconform.ap1.numbers import arithmetic_context, parse_decimal_text, quantise
from apconform.ap1.refusal import violation
from apconform.core.errors import Violation, define_code
from apconform.models.ap1 import (
    Ap1DerivationSet,
    Ap1Fixture,
    Ap1QuestionSet,
    ItemDerivation,
    QuestionItem,
)

__all__ = ["derivation_violations", "perturbations"]

COVERAGE = define_code(
    "AP1-DRV-COVERAGE",
    "Questions and derivations do not correspond one to one",
    "Give every question item exactly one derivation with the same itemId and derivable flag.",
    exit_status=1,
)
UNDECLARED_READ = define_code(
    "AP1-DRV-UNDECLARED-READ",
    "A derivation reads a field it does not declare",
    "List every field the derivation reads in sourceFields.",
    exit_status=1,
)
INERT_FIELD = define_code(
    "AP1-DRV-INERT-FIELD",
    "A declared source field does not move the final when perturbed",
    "Remove the field from sourceFields, or fix the derivation so that it uses the field.",
    exit_status=1,
)
UNDECLARED_MOVES = define_code(
    "AP1-DRV-UNDECLARED-MOVES",
    "An undeclared field moves the final when perturbed",
    "Declare the field in sourceFields, or stop the derivation depending on it.",
    exit_status=1,
)
UNUSED_CONSTANT = define_code(
    "AP1-DRV-UNUSED-CONSTANT",
    "A declared constant is never used",
    "Remove it: every declared constant widens what counts as a traced operand. In version 2 "
    "of the format, a constant kept for an alternative route or as a structural constant "
    "declares that role instead.",
    exit_status=1,
)
CONSTANT_ROLE = define_code(
    "AP1-DRV-CONSTANT-ROLE",
    "A constant's declared role does not match how the derivation uses it",
    "Declare role used for a constant a step uses, and alternative-route or structural only "
    "for one no step uses.",
    exit_status=1,
)
EXPECTED = define_code(
    "AP1-DRV-EXPECTED",
    "A derivation disagrees with the question's expected value",
    "Fix the derivation or the question's expectedValue; they must agree at full precision "
    "or after the one declared quantisation.",
    exit_status=1,
)
EVALUATION = define_code(
    "AP1-DRV-EVALUATION",
    "A derivation cannot be evaluated",
    "Fix the step the message names (division by zero, a domain error, an overflow).",
    exit_status=1,
)


def perturbations(value: Decimal) -> list[Decimal]:
    """The perturbed values a field is tried with: +1 always, times 2 when non-zero."""
    context = arithmetic_context()
    out = [context.add(value, 1)]
    if not value.is_zero():
        out.append(context.multiply(value, 2))
    return out


def derivation_violations(
    derivations: Ap1DerivationSet,
    questions: Ap1QuestionSet,
    fixture: Ap1Fixture,
    config: RunConfig,
) -> list[Violation]:
    """Every reason the derivation set cannot be sealed (empty when it can)."""
    out: list[Violation] = []
    by_item = Counter(d.itemId for d in derivations.derivations)
    question_ids = {q.id for q in questions.items}
    for index, derivation in enumerate(derivations.derivations):
        if derivation.itemId not in question_ids:
            out.append(
                violation(
                    COVERAGE,
                    f"$.derivations[{index}].itemId",
                    f"derivation for {derivation.itemId}, which is not a question item",
                )
            )
        elif by_item[derivation.itemId] > 1:
            out.append(
                violation(
                    COVERAGE,
                    f"$.derivations[{index}].itemId",
                    f"item {derivation.itemId} has {by_item[derivation.itemId]} derivations",
                )
            )
    positions = {d.itemId: i for i, d in enumerate(derivations.derivations)}
    for item in questions.items:
        if item.id not in positions:
            out.append(violation(COVERAGE, "$.derivations", f"item {item.id} has no derivation"))
            continue
        index = positions[item.id]
        out.extend(
            _item(
                derivations.derivations[index],
                index,
                item,
                fixture,
                config,
                format_version(derivations),
            )
        )
    return out


def _item(
    derivation: ItemDerivation,
    index: int,
    item: QuestionItem,
    fixture: Ap1Fixture,
    config: RunConfig,
    version: int,
) -> Iterator[Violation]:
    where = f"$.derivations[{index}]"
    if derivation.derivable != item.derivable:
        yield violation(
            COVERAGE,
            f"{where}.derivable",
            f"item {item.id}: the question says derivable={str(item.derivable).lower()} but the "
            f"derivation says {str(derivation.derivable).lower()}",
        )
        return
    if not derivation.derivable:
        yield from underivable_violations(derivation, where)
        return
    context = delivered_context(fixture, item)
    problems = list(version_violations(derivation, where, version))
    problems += structure_violations(derivation, where, context, item, version=version)
    if problems:
        yield from problems
        return
    try:
        base = evaluate(derivation, context)
    except DerivationError as exc:
        yield violation(EVALUATION, where, f"item {item.id}: {exc}")
        return
    declared = list(derivation.sourceFields)
    for ref in sorted(base.reads - set(declared)):
        yield violation(
            UNDECLARED_READ,
            f"{where}.sourceFields",
            f"item {item.id} reads {ref} but does not declare it in sourceFields",
        )
    for position, ref in enumerate(declared):
        yield from _declared_moves(
            derivation, context, ref, base.final, f"{where}.sourceFields[{position}]", item.id
        )
    for ref in _amount_fields(context):
        if ref not in declared:
            yield from _undeclared_inert(derivation, context, ref, base.final, where, item.id)
    used = {
        input_ref(i)
        for s in derivation.intermediates
        for i in s.inputs
        if input_kind(i) == "constant"
    }
    yield from _constant_violations(derivation, where, item, used, version)
    if "expectedValue" in item.model_fields_set and item.expectedValue is not None:
        expected = parse_decimal_text(item.expectedValue)
        quantised = quantise(base.final, config.places, config.rounding)
        if expected != base.final and expected != quantised:
            yield violation(
                EXPECTED,
                where,
                f"item {item.id}: the derivation gives {base.final} ({quantised} quantised to "
                f"{config.places} places, {config.rounding}) but the question expects "
                f"{item.expectedValue}",
            )


def _constant_violations(
    derivation: ItemDerivation, where: str, item: QuestionItem, used: set[str], version: int
) -> Iterator[Violation]:
    for position, constant in enumerate(derivation.constants):
        at = f"{where}.constants[{position}]"
        role = "used" if constant.role is None else str(constant.role)
        if constant.name in used and role != "used":
            yield violation(
                CONSTANT_ROLE,
                f"{at}.role",
                f"item {item.id} declares constant {constant.name} as {role}, but a step uses "
                "it; declare it used",
            )
        elif constant.name not in used and role == "used":
            extra = (
                "; declare its role (alternative-route with its basis, or structural) if it is "
                "kept on purpose"
                if version == 2
                else ""
            )
            yield violation(
                UNUSED_CONSTANT,
                at,
                f"item {item.id} declares constant {constant.name} = {constant.value} "
                f"but never uses it{extra}",
            )


def _amount_fields(context: DeliveredContext) -> list[str]:
    return [f"{e}.{f}" for e, fields in context.items() for f, v in fields.items() if is_amount(v)]


def _field_value(context: DeliveredContext, ref: str) -> Decimal:
    entity, _, field = ref.partition(".")
    return parse_decimal_text(context[entity][field])


def _finals(derivation: ItemDerivation, context: DeliveredContext, ref: str) -> list[Decimal | str]:
    """The final under each perturbation of one field; an evaluation failure is kept as text."""
    out: list[Decimal | str] = []
    for value in perturbations(_field_value(context, ref)):
        try:
            out.append(evaluate(derivation, context, override={ref: value}).final)
        except DerivationError as exc:
            out.append(str(exc))
    return out


def _declared_moves(
    derivation: ItemDerivation,
    context: DeliveredContext,
    ref: str,
    final: Decimal,
    where: str,
    item_id: str,
) -> Iterator[Violation]:
    results = _finals(derivation, context, ref)
    if any(isinstance(r, Decimal) and r != final for r in results):
        return
    failed = [r for r in results if isinstance(r, str)]
    detail = f" (perturbed evaluation failed: {failed[0]})" if failed else ""
    yield violation(
        INERT_FIELD,
        where,
        f"item {item_id}: perturbing declared field {ref} (value {_field_value(context, ref)}; "
        f"tried +1{' and x2' if len(results) > 1 else ''}) leaves the final at {final}{detail}",
    )


def _undeclared_inert(
    derivation: ItemDerivation,
    context: DeliveredContext,
    ref: str,
    final: Decimal,
    where: str,
    item_id: str,
) -> Iterator[Violation]:
    results = _finals(derivation, context, ref)
    if all(isinstance(r, Decimal) and r == final for r in results):
        return
    yield violation(
        UNDECLARED_MOVES,
        f"{where}.sourceFields",
        f"item {item_id}: perturbing undeclared field {ref} changes the final "
        f"({final} becomes {results[0]})",
    )
