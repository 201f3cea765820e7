"""The numeric token grammar of released figures, under the run's declared separators.

A number is a plain digit run, or one to three digits followed by groups of
exactly three digits after the grouping separator (so ``1,23`` is two numbers,
never 123), optionally followed by the decimal separator and digits. Around it
a token may carry a sign (``-``, ``+`` or U+2212, written against the number
or its currency symbol), a declared currency symbol before or after, a trailing
``%`` (kept as a flag; the value is not divided) and enclosing parentheses,
which mean negative. A token glued to a letter or digit before it is not a
figure (``Q07``). Values are built from the text as ``Decimal``; nothing passes
through a float. When the decimal and grouping separators are the same
character, a token whose reading depends on it is reported ambiguous.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from apconform.ap1.scoring.results import TokenJson

__all__ = ["Token", "TokenAmbiguity", "extract_tokens", "parse_token", "text_tokens"]

_SIGNS = "-+\u2212"


class TokenAmbiguity(ValueError):
    """A token that reads as two different numbers under the declared separators."""


@dataclass(frozen=True)
class Token:
    """One figure in a text."""

    value: Decimal
    text: str
    start: int
    end: int
    percent: bool = False
    currency: str | None = None

    def to_json(self) -> TokenJson:
        out: TokenJson = {"value": _plain(self.value), "text": self.text}
        if self.percent:
            out["percent"] = True
        if self.currency is not None:
            out["currency"] = self.currency
        return out


def _plain(value: Decimal) -> str:
    return format(value, "f")


@lru_cache(maxsize=64)
def _pattern(
    decimal_sep: str, grouping_sep: str | None, currencies: tuple[str, ...]
) -> re.Pattern[str]:
    d = re.escape(decimal_sep)
    if grouping_sep is not None:
        g = re.escape(grouping_sep)
        whole = rf"(?:\d{{1,3}}(?:{g}\d{{3}})+(?!\d)|\d+)"
    else:
        whole = r"\d+"
    number = rf"{whole}(?:{d}\d+)?"
    cur = "|".join(re.escape(c) for c in sorted(currencies, key=len, reverse=True))
    cur_before = rf"(?:(?P<c1>{cur})\s?)?" if cur else ""
    cur_after = rf"(?:\s?(?P<c2>{cur})(?!\w))?" if cur else ""
    return re.compile(
        rf"(?<![\w{d}])(?P<open>\()?(?P<s1>[{_SIGNS}])?{cur_before}(?P<s2>[{_SIGNS}])?"
        rf"(?P<num>{number})(?!\w)(?P<pct>%)?{cur_after}(?P<close>\))?"
    )


def _value(number: str, decimal_sep: str, grouping_sep: str | None) -> Decimal:
    if grouping_sep is not None and grouping_sep == decimal_sep and grouping_sep in number:
        parts = number.split(grouping_sep)
        if len(parts) == 2 and len(parts[1]) == 3 and len(parts[0]) <= 3:
            raise TokenAmbiguity(
                f"{number!r} reads both as a decimal and as a grouped whole number: the decimal "
                f"and grouping separators are both {decimal_sep!r}"
            )
        if len(parts) == 2:
            return Decimal(f"{parts[0]}.{parts[1]}")
        return Decimal("".join(parts))
    if grouping_sep is not None:
        number = number.replace(grouping_sep, "")
    return Decimal(number.replace(decimal_sep, "."))


def _token(match: re.Match[str], decimal_sep: str, grouping_sep: str | None) -> Token:
    value = _value(match.group("num"), decimal_sep, grouping_sep)
    signs = (match.group("s1") or "") + (match.group("s2") or "")
    negative = any(s in "-\u2212" for s in signs)
    start, end = match.start(), match.end()
    text = match.group(0)
    if match.group("open") and match.group("close"):
        negative = not negative
    elif match.group("open"):
        start += 1
        text = text[1:]
    elif match.group("close"):
        end -= 1
        text = text[:-1]
    currency = match.groupdict().get("c1") or match.groupdict().get("c2")
    return Token(
        value=-value if negative else value,
        text=text,
        start=start,
        end=end,
        percent=match.group("pct") is not None,
        currency=currency,
    )


def extract_tokens(
    text: str,
    *,
    decimal_sep: str = ".",
    grouping_sep: str | None = ",",
    currencies: tuple[str, ...] = (),
) -> list[Token]:
    """Every figure in ``text``, in order; raises TokenAmbiguity for an ambiguous one."""
    pattern = _pattern(decimal_sep, grouping_sep, tuple(currencies))
    return [_token(m, decimal_sep, grouping_sep) for m in pattern.finditer(text)]


_MEMO_CHARS = 2048
"""Texts up to this length have their tokens memoised (8,192 of them at most)."""


def text_tokens(
    text: str, decimal_sep: str, grouping_sep: str | None, currencies: tuple[str, ...]
) -> tuple[Token, ...]:
    """``tuple(extract_tokens(...))``, memoised for short texts: answers repeat word for word."""
    if len(text) > _MEMO_CHARS:
        return tuple(_extract(text, decimal_sep, grouping_sep, currencies))
    return _memo_tokens(text, decimal_sep, grouping_sep, currencies)


@lru_cache(maxsize=8192)
def _memo_tokens(
    text: str, decimal_sep: str, grouping_sep: str | None, currencies: tuple[str, ...]
) -> tuple[Token, ...]:
    return tuple(_extract(text, decimal_sep, grouping_sep, currencies))


def _extract(
    text: str, decimal_sep: str, grouping_sep: str | None, currencies: tuple[str, ...]
) -> list[Token]:
    return extract_tokens(
        text, decimal_sep=decimal_sep, grouping_sep=grouping_sep, currencies=currencies
    )


def parse_token(
    text: str,
    *,
    decimal_sep: str = ".",
    grouping_sep: str | None = ",",
    currencies: tuple[str, ...] = (),
) -> Token:
    """Read a whole string as exactly one figure (surrounding white space allowed)."""
    stripped = text.strip()
    pattern = _pattern(decimal_sep, grouping_sep, tuple(currencies))
    match = pattern.fullmatch(stripped)
    if match is None:
        raise ValueError(f"{text!r} is not a single figure")
    return _token(match, decimal_sep, grouping_sep)
