"""Shared helpers of the fuzz hooks: the repaired share, deterministic picks steered by
generated values, and the small conversions of a generated value of any type (a text,
a whole number, a decimal text, a list, an object) every repair uses."""

from __future__ import annotations

import hashlib
import json
import re
from decimal import Decimal, InvalidOperation
from typing import Any

Body = dict[str, Any]

SHARE = 4
"""A positive body is repaired unless its hash is 0 modulo SHARE (three in four are)."""


def repaired_share(body: Any) -> bool:
    """Whether this generated body is one of the three in four that are made coherent."""
    text = json.dumps(body, sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("ascii")).digest()[0] % SHARE != 0


def _pick(options: list[str], seed: str) -> str:
    """A deterministic choice among ``options``, steered by a generated value."""
    digest = hashlib.sha256(seed.encode("utf-8", "surrogatepass")).digest()
    return options[digest[0] % len(options)]


def _named(options: list[str], name: Any) -> str:
    """``name`` when it is one of ``options``, else the option it picks."""
    return name if name in options else _pick(options, str(name))


def _decimal(text: Any) -> Decimal | None:
    try:
        return Decimal(text) if isinstance(text, str) else None
    except InvalidOperation:
        return None


def _digest(value: Any, width: int = 12) -> str:
    """``width`` hex digits naming a generated value (for a text derived from a non-text)."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:width]


def _prose(value: Any) -> str:
    """A generated text that is not blank, kept; any other value as a word naming it."""
    if isinstance(value, str) and value.strip() and len(value) <= 128:
        return value
    return f"v{_digest(value)}"


def _word(value: Any, allowed: str, lower: bool = False) -> str:
    """The generated text's characters that ``allowed`` keeps, led by a letter (at most 64)."""
    text = value.lower() if lower and isinstance(value, str) else value
    kept = re.sub(f"[^{allowed}]", "", text)[:63] if isinstance(text, str) else ""
    return kept if kept[:1].isalpha() else f"v{kept or _digest(value)}"[:64]


def _whole(value: Any, least: int, most: int) -> int:
    """A whole number from ``least`` to ``most``: a generated one in range kept, else one
    steered by the length of the value's JSON text."""
    if isinstance(value, int) and not isinstance(value, bool) and least <= value <= most:
        return value
    return least + len(json.dumps(value, default=str)) % (most - least + 1)


def _magnitude(value: Any) -> str:
    """A generated non-negative decimal text kept, else its JSON text's length as one."""
    if isinstance(value, str) and re.fullmatch(r"(0|[1-9][0-9]*)(\.[0-9]+)?", value):
        return value
    return str(len(json.dumps(value, default=str)))


def _list(value: Any) -> list[Any]:
    """A generated list as it is; any other value as no items."""
    return value if isinstance(value, list) else []


def _object(value: Any) -> Body:
    """A generated object as it is; any other value as an object holding it."""
    return value if isinstance(value, dict) else {"value": value}
