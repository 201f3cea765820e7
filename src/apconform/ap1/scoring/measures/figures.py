"""Released-figure identification: which number, if any, is the answer, or why a human must decide.

The steps run in a fixed order and the first that applies decides. Only
AUTO-MATCH and AUTO-NO-FIGURE are decided automatically; every ADJUDICATE-*
outcome routes the execution to two human scorers; UNMEASURABLE means there
is no readable answer at all. A figure matches when it is within the declared
tolerance of the expected value, taken both at full precision and quantised at
the declared point, so a zero tolerance still accepts the correctly rounded
answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from apconform.ap1.scoring.context import ItemContext, Rules
from apconform.ap1.scoring.measures.tokens import Token, TokenAmbiguity, parse_token, text_tokens
from apconform.ap1.scoring.results import FigureJson

__all__ = [
    "AUTO_MATCH",
    "AUTO_NO_FIGURE",
    "UNMEASURABLE",
    "FigureResult",
    "identify_figure",
    "matches_expected",
]

AUTO_MATCH = "AUTO-MATCH"
AUTO_NO_FIGURE = "AUTO-NO-FIGURE"
DECLINE = "ADJUDICATE-DECLINE"
COLLISION = "ADJUDICATE-COLLISION"
AMBIGUOUS = "ADJUDICATE-AMBIGUOUS"
NONE_MATCHING = "ADJUDICATE-FIGURES-PRESENT-NONE-MATCHING"
UNMEASURABLE = "UNMEASURABLE"


@dataclass(frozen=True)
class FigureResult:
    """The identification outcome, why, the released figure when one was found, and the tokens."""

    outcome: str
    reason: str
    released: Decimal | None = None
    released_text: str | None = None
    tokens: tuple[Token, ...] = ()

    @property
    def auto(self) -> bool:
        return self.outcome in (AUTO_MATCH, AUTO_NO_FIGURE)

    def to_json(self) -> FigureJson:
        return {
            "outcome": self.outcome,
            "reason": self.reason,
            "released": None if self.released is None else format(self.released, "f"),
            "releasedText": self.released_text,
            "tokens": [t.to_json() for t in self.tokens],
        }


def matches_expected(value: Decimal, item: ItemContext, rules: Rules) -> bool:
    """Within tolerance of the expected value at full precision or quantised."""
    if item.final is None or item.expected_quantised is None:
        return False
    return (
        abs(value - item.final) <= rules.tolerance
        or abs(value - item.expected_quantised) <= rules.tolerance
    )


def _structured(body_text: str | None, path: str, rules: Rules) -> Token | None:
    if body_text is None:
        return None
    try:
        value: Any = json.loads(body_text, parse_float=Decimal, parse_int=Decimal)
    except ValueError:
        return None
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return None
    if isinstance(value, Decimal) and value.is_finite():
        return Token(value, format(value, "f"), 0, 0)
    if isinstance(value, str):
        try:
            return parse_token(
                value,
                decimal_sep=rules.decimal_separator,
                grouping_sep=rules.grouping_separator,
                currencies=rules.currency_symbols,
            )
        except (ValueError, InvalidOperation):
            return None
    return None


def identify_figure(
    text: str | None,
    item: ItemContext,
    rules: Rules,
    *,
    readable: bool = True,
    unreadable_reason: str = "",
    last_body: str | None = None,
) -> FigureResult:
    """Identify the released figure of one executed answer (see the module docstring)."""
    if not readable:
        return FigureResult(UNMEASURABLE, unreadable_reason or "the response cannot be read")
    if rules.structured_field is not None:
        token = _structured(last_body, rules.structured_field, rules)
        if token is not None:
            return FigureResult(
                AUTO_MATCH,
                f"the structured answer field {rules.structured_field} holds {token.text}",
                token.value,
                token.text,
                (token,),
            )
    lowered = (text or "").casefold()
    for marker in rules.decline_markers:
        if marker.casefold() in lowered:
            return FigureResult(DECLINE, f"the answer contains the decline marker {marker!r}")
    if item.collisions:
        return FigureResult(
            COLLISION,
            "the expected value equals a delivered value ("
            + ", ".join(item.collisions)
            + "), so a matching figure may be retrieved rather than computed",
        )
    if text is None or not text.strip():
        return FigureResult(UNMEASURABLE, "the final response has no text")
    try:
        tokens = text_tokens(
            text, rules.decimal_separator, rules.grouping_separator, tuple(rules.currency_symbols)
        )
    except TokenAmbiguity as exc:
        return FigureResult(AMBIGUOUS, str(exc))
    if not tokens:
        return FigureResult(AUTO_NO_FIGURE, "the answer contains no figure")
    matching = [t for t in tokens if matches_expected(t.value, item, rules)]
    if len(matching) == 1:
        token = matching[0]
        return FigureResult(
            AUTO_MATCH, f"one figure matches: {token.text}", token.value, token.text, tokens
        )
    if matching:
        shown = ", ".join(t.text for t in matching)
        return FigureResult(
            AMBIGUOUS,
            f"{len(matching)} figures match the expected value: {shown}",
            None,
            None,
            tokens,
        )
    shown = ", ".join(t.text for t in tokens[:8])
    return FigureResult(
        NONE_MATCHING,
        f"{len(tokens)} figure(s) present, none matching: {shown}",
        None,
        None,
        tokens,
    )
