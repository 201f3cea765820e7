"""The calculator tool the instrument executes for the model: exact, bounded, never raising.

Every number is built from its literal text as a ``Decimal``; arithmetic uses
34 significant digits (ties to even for inexact intermediate results) inside a
private context that traps overflow, underflow, division by zero and invalid
operations. Only the node kinds of :mod:`apconform.ap1.calculator.grammar` and the
functions and names listed here are evaluated. Every failure, whatever its
cause, becomes a tool error returned to the model; :func:`calculate` never raises.
``round`` uses the run's declared rounding mode, not a hidden default.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import TypedDict

from apconform.ap1.calculator.grammar import (
    MAX_EXPRESSION_CHARS,
    MAX_NESTING_DEPTH,
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
from apconform.ap1.numbers import (
    ARITHMETIC_PRECISION,
    arithmetic_context,
    format_decimal,
    rounding_mode,
)
from apconform.core.canonical import canonical_text

__all__ = [
    "CALCULATOR_LIMITS",
    "FUNCTIONS",
    "CalcResult",
    "Calculator",
    "CalculatorLimits",
    "calculate",
]

MAX_EXPONENT = 1000
MAX_ADJUSTED_EXPONENT = 100
MAX_ROUND_PLACES = 20
FUNCTIONS = (
    "abs",
    "ceil",
    "exp",
    "floor",
    "ln",
    "log",
    "log10",
    "max",
    "min",
    "pow",
    "round",
    "sqrt",
)
NAMES = ("e", "pi")
_PI = Decimal("3.14159265358979323846264338327950288419716939937510")


class CalculatorLimits(TypedDict):
    """The calculator's limits as the seal declares them (``CalculatorLimits``)."""

    maxExpressionChars: str
    maxNestingDepth: str
    maxExponent: str
    maxAdjustedExponent: str
    functions: list[str]


CALCULATOR_LIMITS: CalculatorLimits = {
    "maxExpressionChars": str(MAX_EXPRESSION_CHARS),
    "maxNestingDepth": str(MAX_NESTING_DEPTH),
    "maxExponent": str(MAX_EXPONENT),
    "maxAdjustedExponent": str(MAX_ADJUSTED_EXPONENT),
    "functions": list(FUNCTIONS),
}

_SIGNAL_MESSAGES = (
    (decimal.DivisionByZero, "division by zero"),
    (decimal.DivisionUndefined, "division by zero"),
    (decimal.Overflow, f"result too large (beyond 1E+{MAX_ADJUSTED_EXPONENT})"),
    (decimal.Underflow, f"result too small (below 1E-{MAX_ADJUSTED_EXPONENT}) to be kept exactly"),
    (decimal.InvalidOperation, "domain error (the operation is undefined for these values)"),
)


class CalcError(Exception):
    """A failure to report to the model."""


@dataclass(frozen=True)
class CalcResult:
    """A value (its exact text) or an error; ``tool_content`` is what the model sees."""

    value: str | None
    error: str | None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def tool_content(self) -> str:
        if self.error is not None:
            return canonical_text({"error": self.error})
        return canonical_text({"result": self.value})


class Calculator:
    """Evaluates expressions with one run's declared rounding mode for ``round``."""

    def __init__(self, rounding: str = "ROUND_HALF_UP") -> None:
        self.rounding = rounding_mode(rounding)

    def __call__(self, expression: str) -> CalcResult:
        try:
            if not isinstance(expression, str):
                raise CalcError("the expression must be a string")
            tree = parse(expression)
            context = arithmetic_context(max_exponent=MAX_ADJUSTED_EXPONENT)
            value = _Evaluator(context, self.rounding).eval(tree)
            return CalcResult(format_decimal(value), None)
        except (CalcSyntaxError, CalcError) as exc:
            return CalcResult(None, str(exc))
        except decimal.DecimalException as exc:
            return CalcResult(None, _signal_message(exc))
        except (RecursionError, MemoryError):
            return CalcResult(None, "the expression is too complex to evaluate")
        except Exception as exc:  # the tool never raises; a bug is reported, not hidden
            return CalcResult(None, f"the expression could not be evaluated ({type(exc).__name__})")


def calculate(expression: str, rounding: str = "ROUND_HALF_UP") -> CalcResult:
    """Evaluate one expression (convenience for one-off use)."""
    return Calculator(rounding)(expression)


def _signal_message(exc: decimal.DecimalException) -> str:
    for kind, message in _SIGNAL_MESSAGES:
        if isinstance(exc, kind):
            return message
    return "the arithmetic failed"


class _Evaluator:
    def __init__(self, context: decimal.Context, rounding: str) -> None:
        self.c = context
        self.rounding = rounding
        self.functions: dict[str, tuple[int, int, Callable[[list[Decimal]], Decimal]]] = {
            "abs": (1, 1, lambda a: self.c.abs(a[0])),
            "sqrt": (1, 1, lambda a: self.c.sqrt(a[0])),
            "exp": (1, 1, lambda a: self.c.exp(a[0])),
            "ln": (1, 1, lambda a: self.c.ln(a[0])),
            "log10": (1, 1, lambda a: self.c.log10(a[0])),
            "log": (1, 2, self._log),
            "floor": (1, 1, lambda a: a[0].to_integral_value(decimal.ROUND_FLOOR, self.c)),
            "ceil": (1, 1, lambda a: a[0].to_integral_value(decimal.ROUND_CEILING, self.c)),
            "round": (1, 2, self._round),
            "min": (1, 50, lambda a: min(a)),
            "max": (1, 50, lambda a: max(a)),
            "pow": (2, 2, lambda a: self._power(a[0], a[1])),
        }

    def eval(self, node: Node) -> Decimal:
        value = self._eval(node)
        if not value.is_finite():
            raise CalcError("the result is not a finite number")
        if not value.is_zero() and value.adjusted() < -MAX_ADJUSTED_EXPONENT:
            raise CalcError(_SIGNAL_MESSAGES[3][1])
        return value

    def _eval(self, node: Node) -> Decimal:
        if isinstance(node, Num):
            return self._number(node.text)
        if isinstance(node, Name):
            if node.name == "pi":
                return self.c.plus(_PI)
            if node.name == "e":
                return self.c.exp(Decimal(1))
            raise CalcError(f"unknown name {node.name!r}; the only names are {', '.join(NAMES)}")
        if isinstance(node, Unary):
            value = self._eval(node.operand)
            return self.c.minus(value) if node.sign == "-" else self.c.plus(value)
        if isinstance(node, Power):
            return self._power(self._eval(node.base), self._eval(node.exponent))
        if isinstance(node, Chain):
            return self._chain(node)
        if isinstance(node, Call):
            return self._call(node)
        raise CalcError("unsupported expression")

    def _number(self, text: str) -> Decimal:
        value = Decimal(text)
        if not value.is_zero() and abs(value.adjusted()) > MAX_ADJUSTED_EXPONENT:
            raise CalcError(
                f"the number {text} is out of range (limit 1E+/-{MAX_ADJUSTED_EXPONENT})"
            )
        return value

    def _chain(self, node: Chain) -> Decimal:
        total = self._eval(node.first)
        for operator, operand in node.rest:
            right = self._eval(operand)
            if operator == "+":
                total = self.c.add(total, right)
            elif operator == "-":
                total = self.c.subtract(total, right)
            elif operator == "*":
                total = self.c.multiply(total, right)
            else:
                if right.is_zero():
                    raise CalcError("division by zero")
                total = self.c.divide(total, right)
        return total

    def _power(self, base: Decimal, exponent: Decimal) -> Decimal:
        if abs(exponent) > MAX_EXPONENT:
            raise CalcError(
                f"exponent {format_decimal(exponent)} is too large (limit {MAX_EXPONENT})"
            )
        if base < 0 and exponent != exponent.to_integral_value():
            raise CalcError("domain error: a negative number raised to a fractional power")
        if base.is_zero() and exponent.is_zero():
            return Decimal(1)  # the usual convention, as in most calculators
        return self.c.power(base, exponent)

    def _call(self, node: Call) -> Decimal:
        entry = self.functions.get(node.name)
        if entry is None:
            raise CalcError(
                f"unknown function {node.name!r}; the functions are {', '.join(FUNCTIONS)}"
            )
        low, high, function = entry
        if not low <= len(node.args) <= high:
            want = str(low) if low == high else f"{low} to {high}"
            raise CalcError(f"{node.name} takes {want} argument(s), not {len(node.args)}")
        args = [self._eval(arg) for arg in node.args]
        if (
            node.name in ("sqrt", "ln", "log10", "log")
            and args[0] <= 0
            and not (node.name == "sqrt" and args[0].is_zero())
        ):
            raise CalcError(f"domain error: {node.name} of {format_decimal(args[0])}")
        return function(args)

    def _log(self, args: list[Decimal]) -> Decimal:
        if len(args) == 1:
            return self.c.ln(args[0])
        base = args[1]
        if base <= 0 or base == 1:
            raise CalcError(f"domain error: logarithm base {format_decimal(base)}")
        return self.c.divide(self.c.ln(args[0]), self.c.ln(base))

    def _round(self, args: list[Decimal]) -> Decimal:
        places = args[1] if len(args) == 2 else Decimal(0)
        if places != places.to_integral_value() or abs(places) > MAX_ROUND_PLACES:
            raise CalcError(
                f"round's places must be a whole number from -{MAX_ROUND_PLACES} "
                f"to {MAX_ROUND_PLACES}"
            )
        exponent = Decimal(1).scaleb(-int(places))
        try:
            return args[0].quantize(exponent, rounding=self.rounding, context=self.c)
        except decimal.InvalidOperation:
            raise CalcError(
                f"round: {format_decimal(args[0])} has too many digits to keep "
                f"{int(places)} places within {ARITHMETIC_PRECISION} significant digits"
            ) from None
