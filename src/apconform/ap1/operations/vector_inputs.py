"""How the scoring operations read their vector inputs: shapes checked, malformed input refused.

A vector's input is free JSON; these helpers turn the compact item and rules
of a case into the scorer's own values, and refuse anything else with
APC-OP-INPUT (never a crash), so the operations themselves stay one call each.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import TypeVar

from apconform.ap1.inputs.sealed import SEALED_NAMES
from apconform.ap1.scoring.context import ItemContext, Rules, build_item
from apconform.conformance.operations import BAD_OPERATION_INPUT, Operation, operation
from apconform.core.errors import ApconformError, define_code

__all__ = [
    "RUN_DOCUMENTS",
    "STAT_INPUT",
    "decimal_member",
    "guarded",
    "item_of",
    "member",
    "optional",
    "rules_of",
]

STAT_INPUT = define_code(
    "AP1-STAT-INPUT",
    "A rate or an agreement has no meaningful denominator",
    "Report a rate only for n >= 1 and 0 <= k <= n, and agreement only over rows both "
    "scorers marked.",
)
RUN_DOCUMENTS = {f"/{name}": f"ap1-{name}" for name in SEALED_NAMES}
"""Where an operation's input holds each sealed document, and the document type it must meet."""


_MAX_DECIMAL_CHARS = 100

T = TypeVar("T")


def guarded(name: str, *, inputs: dict[str, str] | None = None) -> Callable[[Operation], Operation]:
    """Register an operation whose malformed input is refused with APC-OP-INPUT, never a crash."""

    def wrap(function: Operation) -> Operation:
        @functools.wraps(function)
        def run(value: object) -> object:
            try:
                return function(value)
            except ApconformError:
                raise
            except (KeyError, IndexError, TypeError, ValueError, ArithmeticError, AttributeError):
                raise ApconformError(
                    BAD_OPERATION_INPUT,
                    f"the input of {name} does not have the shape the operation needs",
                    path="$",
                ) from None

        return operation(name, inputs=inputs)(run)

    return wrap


def member(value: object, name: str, kind: type[T]) -> T:
    """The input's member ``name``, checked to be a ``kind``, or APC-OP-INPUT naming it."""
    found = value.get(name, _ABSENT) if isinstance(value, dict) else _ABSENT
    if not isinstance(found, kind):
        raise ApconformError(
            BAD_OPERATION_INPUT,
            f"the input needs a member {name!r} of the right type",
            path=f"$.{name}",
        )
    return found


_ABSENT = object()
"""A missing member: never an instance of a JSON type."""


def optional(value: object, name: str) -> object:
    """The input's member ``name`` as given, or None when it is absent (to be checked by the
    caller before use)."""
    return value.get(name) if isinstance(value, dict) else None


def decimal_member(text: object, where: str) -> Decimal:
    if not isinstance(text, str) or len(text) > _MAX_DECIMAL_CHARS:
        raise ApconformError(
            BAD_OPERATION_INPUT, f"{where} must be a short decimal string", path=where
        )
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise ApconformError(BAD_OPERATION_INPUT, f"{where} is not a decimal", path=where) from None
    if not value.is_finite() or (not value.is_zero() and abs(value.adjusted()) > 100):
        raise ApconformError(BAD_OPERATION_INPUT, f"{where} is out of range", path=where)
    return value


def named(key: str, where: str) -> str:
    """A source or constant name: answers cite it, so it needs a character that is not space."""
    if not key.strip():
        raise ApconformError(
            BAD_OPERATION_INPUT, f"{where} has a member with a blank name", path=where
        )
    return key


def rules_of(value: object) -> Rules:
    rules = member(value, "rules", dict)
    separator = rules.get("groupingSeparator")
    places = int(member(rules, "places", str))
    if not 0 <= places <= 20:
        raise ApconformError(BAD_OPERATION_INPUT, "places must be 0 to 20", path="$.rules.places")
    return Rules(
        places=places,
        rounding=member(rules, "rounding", str),
        tolerance=decimal_member(member(rules, "tolerance", str), "$.rules.tolerance"),
        transformations=tuple(member(rules, "transformations", list)),
        decimal_separator=member(rules, "decimalSeparator", str),
        grouping_separator=separator if isinstance(separator, str) else None,
        currency_symbols=tuple(member(rules, "currencySymbols", list)),
        decline_markers=tuple(member(rules, "declineMarkers", list)),
        structured_field=rules.get("structuredAnswerField"),
    )


def item_of(value: object, rules: Rules) -> ItemContext:
    item = member(value, "item", dict)
    final = item.get("final")
    return build_item(
        item_id=str(item.get("id", "item")),
        rules=rules,
        sources=[
            (named(k, "$.item.sources"), decimal_member(v, f"$.item.sources.{k}"))
            for k, v in member(item, "sources", dict).items()
        ],
        constants=[
            (named(k, "$.item.constants"), decimal_member(v, f"$.item.constants.{k}"))
            for k, v in member(item, "constants", dict).items()
        ],
        intermediates=[
            (str(i["label"]), decimal_member(i["value"], "$.item.intermediates"))
            for i in member(item, "intermediates", list)
        ],
        final=None if final is None else decimal_member(final, "$.item.final"),
        required_operation=str(item.get("requiredOperation", "calculator")),
    )
