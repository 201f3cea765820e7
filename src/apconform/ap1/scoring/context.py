"""What the scorer knows before reading a record: the sealed rules and each item's traced values.

Everything a ladder step compares against is computed once per item from the
sealed inputs (delivered values, declared constants, permitted
transformations of both, the reference intermediates raw, transformed and
quantised, their negations) and kept in dictionaries keyed by ``Decimal``.
``Decimal`` hashes by numeric value, so ``15.2`` and ``15.200`` meet in one
lookup and equality stays exact; no tolerance is involved.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from apconform.ap1.inputs.derivations.evaluation import evaluate, reference_intermediates
from apconform.ap1.inputs.items import DeliveredContext, delivered_context
from apconform.ap1.inputs.plan import RunInputs
from apconform.ap1.numbers import arithmetic_context, parse_decimal_text, quantise
from apconform.ap1.scoring.results import CandidateJson

__all__ = [
    "TRANSFORMATIONS",
    "Candidate",
    "ItemContext",
    "Rules",
    "ScoringInputs",
    "build_item",
    "scoring_inputs",
]

_C = arithmetic_context()
TRANSFORMATIONS = {
    "percent_to_fraction": lambda v: _C.divide(v, 100),
    "fraction_to_percent": lambda v: _C.multiply(v, 100),
    "abs_value": lambda v: _C.abs(v),
}
"""The transformations an operator may permit, by their sealed names."""


@dataclass(frozen=True)
class Rules:
    """The sealed rules of reading and comparing (the configuration's answer section and more)."""

    places: int
    rounding: str
    tolerance: Decimal
    transformations: tuple[str, ...]
    decimal_separator: str = "."
    grouping_separator: str | None = ","
    currency_symbols: tuple[str, ...] = ()
    decline_markers: tuple[str, ...] = ()
    structured_field: str | None = None

    def q(self, value: Decimal) -> Decimal:
        """Quantise at the declared point with the declared rounding mode."""
        return quantise(value, self.places, self.rounding)


@dataclass(frozen=True)
class Candidate:
    """One way a value is traced: a ladder step, what matched, and how."""

    step: str
    kind: str
    ref: str
    transformation: str | None = None

    def to_json(self) -> CandidateJson:
        out: CandidateJson = {"step": self.step, "kind": self.kind, "ref": self.ref}
        if self.transformation is not None:
            out["transformation"] = self.transformation
        return out


def _add(table: dict[Decimal, list[Candidate]], value: Decimal, candidate: Candidate) -> None:
    entries = table.setdefault(value, [])
    if candidate not in entries:
        entries.append(candidate)


@dataclass(frozen=True)
class ItemContext:
    """One item's sealed facts and lookup tables."""

    item_id: str
    category: str
    text: str
    required_operation: str
    derivable: bool
    sources: tuple[tuple[str, Decimal], ...]
    constants: tuple[tuple[str, Decimal], ...]
    intermediates: tuple[tuple[str, Decimal], ...]
    final: Decimal | None
    expected_quantised: Decimal | None
    collisions: tuple[str, ...]
    delivered: DeliveredContext = field(default_factory=dict)
    step1: dict[Decimal, list[Candidate]] = field(default_factory=dict)
    step2: dict[Decimal, list[Candidate]] = field(default_factory=dict)
    step3: dict[Decimal, list[Candidate]] = field(default_factory=dict)
    negated: dict[Decimal, list[Candidate]] = field(default_factory=dict)
    negated_constants: dict[Decimal, list[Candidate]] = field(default_factory=dict)
    targets: tuple[tuple[str, Decimal], ...] = ()
    resolutions: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)
    """Operand resolutions already made for this item (see ``resolve_operand``)."""
    scored_calls: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)
    """Calls already scored for this item (see ``score_calls``)."""


def build_item(
    *,
    item_id: str,
    rules: Rules,
    sources: Iterable[tuple[str, Decimal]],
    constants: Iterable[tuple[str, Decimal]],
    intermediates: Iterable[tuple[str, Decimal]],
    final: Decimal | None,
    category: str = "",
    text: str = "",
    required_operation: str = "calculator",
    delivered: DeliveredContext | None = None,
) -> ItemContext:
    """Precompute an item's ladder tables (also used directly by the vectors' operations)."""
    sources, constants = tuple(sources), tuple(constants)
    intermediates = tuple(intermediates)
    step1: dict[Decimal, list[Candidate]] = {}
    step2: dict[Decimal, list[Candidate]] = {}
    step3: dict[Decimal, list[Candidate]] = {}
    negated: dict[Decimal, list[Candidate]] = {}
    negated_constants: dict[Decimal, list[Candidate]] = {}
    for ref, value in sources:
        _add(step1, value, Candidate("i", "source", ref))
        for name in rules.transformations:
            _add(
                step2,
                TRANSFORMATIONS[name](value),
                Candidate("ii", "transformed-source", ref, name),
            )
    for name, value in constants:
        _add(step1, value, Candidate("i", "constant", name))
        if not value.is_zero():
            _add(negated_constants, -value, Candidate("i", "constant", name))
    for label, value in intermediates:
        _add(step3, value, Candidate("iii", "intermediate", label))
    for label, value in intermediates:
        for name in rules.transformations:
            transformed = TRANSFORMATIONS[name](value)
            if transformed != value:
                _add(step3, transformed, Candidate("iii", "transformed-intermediate", label, name))
    for label, value in intermediates:
        if rules.q(value) != value:
            _add(step3, rules.q(value), Candidate("iii", "quantised-intermediate", label))
    for table in (step1, step2, step3):
        for value, entries in table.items():
            if value.is_zero():
                continue
            for candidate in entries:
                if candidate.kind != "constant":
                    _add(negated, -value, candidate)
    targets: list[tuple[str, Decimal]] = []
    expected_q = rules.q(final) if final is not None else None
    if final is not None and expected_q is not None:
        targets += [("expected", final), ("expected (quantised)", expected_q)]
    # The same precedence as ladder step (iii): every raw intermediate, then every transformed
    # one, then every quantised one, so D7.2(a) and D7.2(b) name the same intermediate.
    targets += [(f"intermediate:{label}", value) for label, value in intermediates]
    for label, value in intermediates:
        for name in rules.transformations:
            targets.append((f"intermediate:{label} ({name})", TRANSFORMATIONS[name](value)))
    targets += [(f"intermediate:{label} (quantised)", rules.q(v)) for label, v in intermediates]
    collisions = tuple(
        ref for ref, value in sources if final is not None and value in (final, expected_q)
    )
    return ItemContext(
        item_id=item_id,
        category=category,
        text=text,
        required_operation=required_operation,
        derivable=final is not None,
        sources=sources,
        constants=constants,
        intermediates=intermediates,
        final=final,
        expected_quantised=expected_q,
        collisions=collisions,
        delivered=delivered or {},
        step1=step1,
        step2=step2,
        step3=step3,
        negated=negated,
        negated_constants=negated_constants,
        targets=tuple(targets),
    )


def _numeric_sources(context: DeliveredContext) -> list[tuple[str, Decimal]]:
    out = []
    for entity, fields in context.items():
        for name, text in fields.items():
            try:
                out.append((f"{entity}.{name}", parse_decimal_text(text)))
            except ValueError:
                continue  # a label such as a direction
    return out


@dataclass(frozen=True)
class ScoringInputs:
    """Everything the scorer needs from the sealed inputs, prepared once."""

    inputs: RunInputs
    rules: Rules
    items: Mapping[str, ItemContext]
    tools: Mapping[str, tuple[str, str]]
    claimed: tuple[str, ...]
    repeats: int


def _rules(inputs: RunInputs) -> Rules:
    answer = inputs.config.model.answer
    return Rules(
        places=inputs.config.places,
        rounding=inputs.config.rounding,
        tolerance=parse_decimal_text(answer.tolerance),
        transformations=tuple(str(t) for t in inputs.config.model.permittedTransformations),
        decimal_separator=answer.decimalSeparator,
        grouping_separator=answer.groupingSeparator,
        currency_symbols=tuple(answer.currencySymbols),
        decline_markers=tuple(answer.declineMarkers),
        structured_field=answer.structuredAnswerField,
    )


def scoring_inputs(inputs: RunInputs) -> ScoringInputs:
    """Prepare the scorer's view of a checked input bundle (about a millisecond per item)."""
    rules = _rules(inputs)
    items: dict[str, ItemContext] = {}
    for item in inputs.questions.items:
        derivation = inputs.derivation_of[item.id]
        context = delivered_context(inputs.fixture, item)
        final = None
        intermediates: tuple[tuple[str, Decimal], ...] = ()
        if item.derivable:
            evaluation = evaluate(derivation, context)
            final = evaluation.final
            intermediates = reference_intermediates(derivation, evaluation)
        items[item.id] = build_item(
            item_id=item.id,
            rules=rules,
            sources=_numeric_sources(context),
            constants=[(c.name, parse_decimal_text(c.value)) for c in derivation.constants],
            intermediates=intermediates,
            final=final,
            category=item.category,
            text=item.text,
            required_operation=item.requiredOperation,
            delivered=context,
        )
    tools = {
        name: (str(view.tool["name"]), str(view.tool["argumentName"]))
        for name in ("base", "instruction-removed")
        for view in [inputs.config.condition(name)]
    }
    return ScoringInputs(
        inputs=inputs,
        rules=rules,
        items=items,
        tools=tools,
        claimed=tuple(str(d) for d in inputs.config.model.dimensionsClaimed),
        repeats=inputs.config.repeats,
    )
