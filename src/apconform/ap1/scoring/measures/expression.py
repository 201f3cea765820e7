"""A submitted expression as the scorer sees it: its operands and its value.

Operands are the numbers written in the expression, each taken from its
literal text (``15200.00`` stays 15200.00; nothing passes through a float). A
minus sign written directly before a number makes one negative operand
(``(-12)``), while a binary minus leaves the number positive. The places
argument of ``round(x, 2)`` is a precision, not an operand. The names ``pi``
and ``e`` are mathematical constants, not operands.

The value is computed by the scorer's own evaluator, written apart from the
calculator the instrument executes (only the parser is shared), in the sealed
arithmetic: 34 significant digits, ties to even for inexact intermediate
results, the declared rounding mode for ``round``. A disagreement between the
two is reported, because one shared evaluator would hide a bug in both (the
reference instrument's caret-precedence erratum).
"""

from __future__ import annotations

import decimal
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from apconform.ap1.calculator.evaluator import MAX_ADJUSTED_EXPONENT, MAX_EXPONENT, MAX_ROUND_PLACES
from apconform.ap1.calculator.grammar import (
    MAX_EXPRESSION_CHARS,
    CalcSyntaxError,
    Call,
    Chain,
    Name,
    Node,
    Num,
    Power,
    Unary,
    parse,
)
from apconform.ap1.numbers import arithmetic_context, rounding_mode

__all__ = [
    "Analysed",
    "EvaluationFailed",
    "Operand",
    "analyse",
    "evaluate_reading_returns",
    "token_text",
]

_PI = Decimal("3.141592653589793238462643383279502884197")


class EvaluationFailed(Exception):
    """The expression has no value (a domain error, division by zero, an unknown function...)."""


@dataclass(frozen=True)
class Operand:
    """One number written in the expression."""

    value: Decimal
    literal: str


@dataclass(frozen=True)
class Analysed:
    """The operands, the precision arguments and the value (or why there is none)."""

    operands: tuple[Operand, ...]
    precision_arguments: tuple[str, ...]
    value: Decimal | None
    failure: str | None


def _collect(node: Node, operands: list[Operand], precision: list[str]) -> None:
    if isinstance(node, Num):
        operands.append(Operand(Decimal(node.text), node.text))
    elif isinstance(node, Unary):
        if isinstance(node.operand, Num):
            value = Decimal(node.operand.text)
            literal = node.operand.text
            if node.sign == "-":
                value, literal = -value, "-" + literal
            operands.append(Operand(value, literal))
        else:
            _collect(node.operand, operands, precision)
    elif isinstance(node, Power):
        _collect(node.base, operands, precision)
        _collect(node.exponent, operands, precision)
    elif isinstance(node, Chain):
        _collect(node.first, operands, precision)
        for _, operand in node.rest:
            _collect(operand, operands, precision)
    elif isinstance(node, Call):
        args = node.args
        if node.name == "round" and len(args) == 2:
            _collect(args[0], operands, precision)
            precision.extend(_literals(args[1]))
        else:
            for arg in args:
                _collect(arg, operands, precision)


def _literals(node: Node) -> list[str]:
    found: list[Operand] = []
    _collect(node, found, [])
    return [o.literal for o in found]


_CONTEXT = arithmetic_context(max_exponent=MAX_ADJUSTED_EXPONENT)
"""Shared by every evaluation: operations only raise on its traps; its flags are never read."""


class _Evaluator:
    def __init__(self, rounding: str, readings: Mapping[Decimal, Decimal] | None = None) -> None:
        self.c = _CONTEXT
        self.rounding = rounding_mode(rounding)
        self.readings = readings or {}
        self.read: list[tuple[str, Decimal]] = []

    def _reading(self, written: Decimal, literal: str) -> Decimal | None:
        found = self.readings.get(written)
        if found is not None:
            self.read.append((literal, written))
        return found

    def value(self, node: Node) -> Decimal:
        c = self.c
        if isinstance(node, Num):
            written = Decimal(node.text)
            found = self._reading(written, node.text) if self.readings else None
            return c.plus(written if found is None else found)
        if isinstance(node, Name):
            if node.name == "pi":
                return c.plus(_PI)
            if node.name == "e":
                return c.exp(Decimal(1))
            raise EvaluationFailed(f"unknown name {node.name}")
        if isinstance(node, Unary):
            if self.readings and node.sign == "-" and isinstance(node.operand, Num):
                found = self._reading(-Decimal(node.operand.text), "-" + node.operand.text)
                if found is not None:
                    return c.plus(found)
            inner = self.value(node.operand)
            return c.minus(inner) if node.sign == "-" else c.plus(inner)
        if isinstance(node, Power):
            return self.power(self.value(node.base), self.value(node.exponent))
        if isinstance(node, Chain):
            total = self.value(node.first)
            for operator, operand in node.rest:
                right = self.value(operand)
                if operator == "+":
                    total = c.add(total, right)
                elif operator == "-":
                    total = c.subtract(total, right)
                elif operator == "*":
                    total = c.multiply(total, right)
                else:
                    total = c.divide(total, right)
            return total
        if isinstance(node, Call):
            return self.call(node.name, [self.value(a) for a in node.args])
        raise EvaluationFailed("unsupported expression")

    def power(self, base: Decimal, exponent: Decimal) -> Decimal:
        if abs(exponent) > MAX_EXPONENT:
            raise EvaluationFailed("exponent too large")
        if base.is_zero() and exponent.is_zero():
            return Decimal(1)
        if base < 0 and exponent != exponent.to_integral_value():
            raise EvaluationFailed("a negative number raised to a fractional power")
        return self.c.power(base, exponent)

    def call(self, name: str, args: list[Decimal]) -> Decimal:
        c = self.c
        one = len(args) == 1
        if name == "abs" and one:
            return c.abs(args[0])
        if name == "sqrt" and one:
            return c.sqrt(args[0])
        if name == "exp" and one:
            return c.exp(args[0])
        if name in ("ln", "log") and one:
            return c.ln(args[0])
        if name == "log" and len(args) == 2:
            if args[1] <= 0 or args[1] == 1:
                raise EvaluationFailed("logarithm base")
            return c.divide(c.ln(args[0]), c.ln(args[1]))
        if name == "log10" and one:
            return c.log10(args[0])
        if name in ("floor", "ceil") and one:
            mode = decimal.ROUND_FLOOR if name == "floor" else decimal.ROUND_CEILING
            return args[0].to_integral_value(mode, c)
        if name in ("min", "max") and 1 <= len(args) <= 50:
            return min(args) if name == "min" else max(args)
        if name == "pow" and len(args) == 2:
            return self.power(args[0], args[1])
        if name == "round" and len(args) in (1, 2):
            places = args[1] if len(args) == 2 else Decimal(0)
            if places != places.to_integral_value() or abs(places) > MAX_ROUND_PLACES:
                raise EvaluationFailed("round's places must be a small whole number")
            return args[0].quantize(Decimal(1).scaleb(-int(places)), self.rounding, c)
        raise EvaluationFailed(f"{name} with {len(args)} argument(s) is not evaluated")


_BLANK_RUN = re.compile(r"[ \t\r\n]+")
"""The calculator's white space (``grammar._BLANKS``): it only separates tokens."""


def analyse(expression: str, rounding: str) -> Analysed:
    """Parse and evaluate; raise CalcSyntaxError when the expression cannot be read at all.

    Results are memoised by the expression's tokens: the tokenizer skips a run
    of white space in one step wherever it is, so every text that differs from
    another only in its runs of white space (one or more of space, tab, CR, LF)
    has the same tokens, the same tree and so the same analysis; the text with
    each run written as one space and none at the ends stands for them all.
    Only an error message depends on the white space (it names positions), so
    a text that cannot be parsed is parsed again as written for its own message.
    """
    try:
        return _analyse(token_text(expression), rounding)
    except CalcSyntaxError:
        return _analyse(expression, rounding)


def token_text(expression: str) -> str:
    """The text that stands for every text with the same tokens (see :func:`analyse`): each
    run of white space written as one space, none at the ends; a text too long to be parsed
    stands for itself (it is refused for its length as written)."""
    if len(expression) > MAX_EXPRESSION_CHARS:
        return expression
    return _BLANK_RUN.sub(" ", expression).strip(" ")


@lru_cache(maxsize=8192)
def _analyse(expression: str, rounding: str) -> Analysed:
    tree = parse(expression)
    operands: list[Operand] = []
    precision: list[str] = []
    _collect(tree, operands, precision)
    try:
        value: Decimal | None = _Evaluator(rounding).value(tree)
        failure = None
        if value is not None and not value.is_finite():
            value, failure = None, "the value is not finite"
    except EvaluationFailed as exc:
        value, failure = None, str(exc)
    except (decimal.DecimalException, ArithmeticError, RecursionError) as exc:
        value, failure = None, f"the arithmetic failed ({type(exc).__name__})"
    return Analysed(tuple(operands), tuple(precision), value, failure)


def evaluate_reading_returns(
    expression: str, rounding: str, readings: Mapping[Decimal, Decimal]
) -> tuple[Decimal | None, tuple[tuple[str, Decimal], ...]]:
    """The value with each number that is an earlier return read as that call's value.

    ``readings`` maps a return as the calculator wrote it to the scorer's own
    value of that call (AP1-OPN-5); the answer names each number so read, with
    the return it matched. Only called when some operand is such a return.
    """
    evaluator = _Evaluator(rounding, readings)
    try:
        value: Decimal | None = evaluator.value(parse(expression))
        if value is not None and not value.is_finite():
            value = None
    except (EvaluationFailed, decimal.DecimalException, ArithmeticError, RecursionError):
        value = None
    return value, tuple(evaluator.read)
