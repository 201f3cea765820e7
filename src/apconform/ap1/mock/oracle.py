"""What the built-in endpoint knows: the items of any sealed input set and how to compute them.

It finds the question in a user message, writes a derivation as calculator
expressions (whole, or one step at a time over earlier returns), and formats a
released figure at the run's declared precision. Personas build their
behaviour, right or deliberately wrong, on top of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from apconform.ap1.inputs.derivations.evaluation import evaluate, input_kind, input_ref
from apconform.ap1.inputs.items import DeliveredContext, delivered_context
from apconform.ap1.inputs.plan import RunInputs
from apconform.ap1.numbers import arithmetic_context, format_decimal, quantise
from apconform.models.ap1 import DerivationStep, ItemDerivation, QuestionItem

__all__ = ["ItemKnowledge", "Oracle"]

_INFIX = {"add": " + ", "subtract": " - ", "multiply": " * ", "divide": " / ", "power": " ^ "}


@dataclass(frozen=True)
class ItemKnowledge:
    """One item as the endpoint sees it."""

    item: QuestionItem
    derivation: ItemDerivation
    context: DeliveredContext

    @property
    def steps(self) -> list[DerivationStep]:
        return list(self.derivation.intermediates)

    def literal(self, ref: str) -> str:
        entity, _, field = ref.partition(".")
        return self.context[entity][field]

    def constant(self, name: str) -> str:
        return next(c.value for c in self.derivation.constants if c.name == name)

    def source_refs(self) -> list[str]:
        return list(self.derivation.sourceFields)

    def subtracts_a_literal(self) -> bool:
        """Whether some step subtracts a source value or a constant written as a literal."""
        return any(
            str(s.operation) == "subtract" and input_kind(s.inputs[-1]) in ("source", "constant")
            for s in self.steps
        )

    def final(self) -> Decimal:
        return evaluate(self.derivation, self.context).final

    def render(
        self,
        label: str,
        *,
        known: dict[str, str] | None = None,
        replace: dict[str, str] | None = None,
        invert_subtraction: bool = False,
    ) -> str:
        """The expression of step ``label``: nested, or over ``known`` step results."""
        step = next(s for s in self.steps if s.label == label)
        parts = []
        for operand in step.inputs:
            kind, ref = input_kind(operand), input_ref(operand)
            if kind == "source":
                parts.append((replace or {}).get(ref, self.literal(ref)))
            elif kind == "constant":
                parts.append(self.constant(ref))
            elif known is not None and ref in known:
                parts.append(known[ref])
            else:
                inner = self.render(
                    ref, known=known, replace=replace, invert_subtraction=invert_subtraction
                )
                parts.append(f"({inner})")
        operation = str(step.operation)
        literal = input_kind(step.inputs[-1]) in ("source", "constant")
        if operation == "subtract" and invert_subtraction and literal:
            return f"{parts[0]} + (-{parts[1]})"
        if operation in _INFIX:
            return _INFIX[operation].join(parts)
        if operation == "negate":
            return f"-({parts[0]})"
        return f"{operation}({', '.join(parts)})"


class Oracle:
    """Items of one sealed input set, found by their question text."""

    def __init__(self, inputs: RunInputs) -> None:
        self.inputs = inputs
        self.places = inputs.config.places
        self.rounding = inputs.config.rounding
        self.grouping = inputs.config.model.answer.groupingSeparator
        self.decimal = inputs.config.model.answer.decimalSeparator
        self._by_text = sorted(
            inputs.questions.items, key=lambda item: len(item.text), reverse=True
        )

    def find(self, user_text: str) -> ItemKnowledge | None:
        for item in self._by_text:
            if item.text in user_text:
                if not item.derivable:
                    return None
                return ItemKnowledge(
                    item,
                    self.inputs.derivation_of[item.id],
                    delivered_context(self.inputs.fixture, item),
                )
        return None

    def release(self, value: Decimal, *, delta: Decimal = Decimal(0)) -> str:
        """A figure as a careful writer would release it: quantised once, digits grouped."""
        text = format_decimal(
            arithmetic_context().add(quantise(value, self.places, self.rounding), delta)
        )
        if self.grouping is None:
            return text.replace(".", self.decimal)
        sign = "-" if text.startswith("-") else ""
        whole, dot, fraction = text.lstrip("-").partition(".")
        groups: list[str] = []
        while len(whole) > 3:
            groups.insert(0, whole[-3:])
            whole = whole[:-3]
        grouped = self.grouping.join([whole, *groups])
        return f"{sign}{grouped}{self.decimal if dot else ''}{fraction}"
