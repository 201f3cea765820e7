"""The calculator the model is offered: a hand-written grammar and an exact, bounded evaluator.

May import the base modules of ``apconform.ap1`` (``numbers``) and ``apconform.core``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.calculator.evaluator import CALCULATOR_LIMITS as CALCULATOR_LIMITS
    from apconform.ap1.calculator.evaluator import FUNCTIONS as FUNCTIONS
    from apconform.ap1.calculator.evaluator import CalcResult as CalcResult
    from apconform.ap1.calculator.evaluator import Calculator as Calculator
    from apconform.ap1.calculator.evaluator import calculate as calculate
    from apconform.ap1.calculator.grammar import CalcSyntaxError as CalcSyntaxError
    from apconform.ap1.calculator.grammar import parse as parse

__getattr__ = lazy_exports(__name__)
