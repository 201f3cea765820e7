"""The calculator the model is offered: a hand-written grammar and an exact, bounded evaluator.

May import the base modules of ``apconform.ap1`` (``numbers``) and ``apconform.core``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.calculator.evaluator import (
        CALCULATOR_LIMITS,
        FUNCTIONS,
        CalcResult,
        Calculator,
        calculate,
    )
    from apconform.ap1.calculator.grammar import CalcSyntaxError, parse

__all__ = [
    "CALCULATOR_LIMITS",
    "FUNCTIONS",
    "CalcResult",
    "CalcSyntaxError",
    "Calculator",
    "calculate",
    "parse",
]

_EXPORTS = {
    "CALCULATOR_LIMITS": "apconform.ap1.calculator.evaluator",
    "CalcResult": "apconform.ap1.calculator.evaluator",
    "Calculator": "apconform.ap1.calculator.evaluator",
    "FUNCTIONS": "apconform.ap1.calculator.evaluator",
    "calculate": "apconform.ap1.calculator.evaluator",
    "CalcSyntaxError": "apconform.ap1.calculator.grammar",
    "parse": "apconform.ap1.calculator.grammar",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
