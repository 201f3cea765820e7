"""Exact numbers for AP-1: decimal strings in, ``Decimal`` inside, never a binary float.

Every context here is a private ``decimal.Context`` passed explicitly; the
thread-local default context is never read or changed, so no result depends on
import order or on another thread (the reference instrument set the global
precision as an import side effect).
"""

from __future__ import annotations

import decimal
import re
from decimal import Decimal
from functools import lru_cache

__all__ = [
    "ARITHMETIC_PRECISION",
    "ARITHMETIC_ROUNDING",
    "arithmetic_context",
    "format_decimal",
    "parse_decimal_text",
    "quantise",
    "rounding_mode",
]

ARITHMETIC_PRECISION = 34
"""Significant digits of derivations and of the calculator (IEEE 754 decimal128)."""
ARITHMETIC_ROUNDING = "ROUND_HALF_EVEN"
"""Rounding of inexact intermediate results; the quantisation point has its own declared mode."""

_DECIMAL_TEXT = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")
_MODES = {
    "ROUND_HALF_UP": decimal.ROUND_HALF_UP,
    "ROUND_HALF_EVEN": decimal.ROUND_HALF_EVEN,
    "ROUND_HALF_DOWN": decimal.ROUND_HALF_DOWN,
    "ROUND_UP": decimal.ROUND_UP,
    "ROUND_DOWN": decimal.ROUND_DOWN,
    "ROUND_CEILING": decimal.ROUND_CEILING,
    "ROUND_FLOOR": decimal.ROUND_FLOOR,
}


def rounding_mode(name: str) -> str:
    """The decimal-module constant for a declared rounding mode name (refuses unknown names)."""
    try:
        return _MODES[name]
    except KeyError:
        raise ValueError(f"unknown rounding mode {name!r}; use one of {sorted(_MODES)}") from None


def arithmetic_context(
    *, precision: int = ARITHMETIC_PRECISION, max_exponent: int = 999_999
) -> decimal.Context:
    """A fresh context that traps every signal that would make a result silently wrong."""
    return decimal.Context(
        prec=precision,
        rounding=decimal.ROUND_HALF_EVEN,
        Emax=max_exponent,
        Emin=-max_exponent,
        capitals=1,
        clamp=0,
        flags=[],
        traps=[
            decimal.InvalidOperation,
            decimal.DivisionByZero,
            decimal.Overflow,
            decimal.Underflow,
        ],
    )


def parse_decimal_text(text: str) -> Decimal:
    """Parse a plain decimal string (``-12.50``); refuse exponents, signs like ``+`` and blanks."""
    if not isinstance(text, str) or _DECIMAL_TEXT.fullmatch(text) is None:
        raise ValueError(f"{text!r} is not a plain decimal string such as 12.50")
    return Decimal(text)


def quantise(value: Decimal, places: int, rounding: str) -> Decimal:
    """Quantise once, at the declared point, with the declared rounding mode (never a default)."""
    context = _quantise_context(max(ARITHMETIC_PRECISION, value.adjusted() + places + 2))
    return value.quantize(_unit(places), rounding=rounding_mode(rounding), context=context)


@lru_cache(maxsize=64)
def _quantise_context(precision: int) -> decimal.Context:
    """One context per precision, shared: quantize only raises on its traps, and no caller
    reads the flags a shared context collects."""
    return arithmetic_context(precision=precision)


@lru_cache(maxsize=64)
def _unit(places: int) -> Decimal:
    return Decimal(1).scaleb(-places)


def format_decimal(value: Decimal) -> str:
    """Plain positional text without an exponent; negative zero is written 0."""
    if value.is_zero():
        value = value.copy_abs()
    return format(value, "f")
