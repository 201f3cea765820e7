"""The contract's primitive rules, with ECMAScript's meaning of strings, equality and key order.

The APx 0.1 contract is defined by a JavaScript kernel, so "a nonempty string
of at most 256 characters" means: not blank after String.prototype.trim, at
most 256 UTF-16 code units. The helpers here give Python values exactly those
meanings, and the :class:`Checks` methods record a violation in the
contract's words when a value breaks a rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from apconform.apx import errors
from apconform.apx.errors import Collector
from apconform.core.canonical import canonical_text

__all__ = [
    "MISSING",
    "RESERVED",
    "Checks",
    "is_digest",
    "is_number",
    "is_text",
    "js_key_order",
    "js_set_key",
    "strict_equal",
    "utf16_length",
]

JS_WHITESPACE = (
    "\t\n\v\f\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
"""Exactly the characters ECMAScript's String.prototype.trim removes."""
_WHITESPACE = frozenset(JS_WHITESPACE)
RESERVED = frozenset({"__proto__", "constructor", "prototype"})
_DIGEST = re.compile(r"[a-f0-9]{64}")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")
_NUMBER_TYPES = (int, float)


class _Missing:
    """A member that is absent (JavaScript's undefined), as distinct from null."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


def utf16_length(text: str) -> int:
    """The length ECMAScript reports: astral characters count twice."""
    if text.isascii():
        return len(text)
    return len(text) + len(_ASTRAL.findall(text))


def is_text(value: Any, limit: int = 256) -> bool:
    """A string that is not blank after trim() and has at most ``limit`` UTF-16 code units."""
    if type(value) is not str:
        return False
    size = len(value)
    if size == 0 or size > limit:
        return False
    if 2 * size > limit and utf16_length(value) > limit:
        return False
    return value[0] not in _WHITESPACE or value.strip(JS_WHITESPACE) != ""


def is_number(value: Any, low: float, high: float) -> bool:
    """A JSON number (never a boolean) inside [low, high]; NaN fails every comparison."""
    return type(value) in _NUMBER_TYPES and low <= value <= high


def is_digest(value: Any) -> bool:
    return type(value) is str and len(value) == 64 and _DIGEST.fullmatch(value) is not None


def strict_equal(left: Any, right: Any) -> bool:
    """ECMAScript's ``===`` on JSON values: no coercion, objects equal only to themselves."""
    if left is MISSING or right is MISSING or left is None or right is None:
        return left is right
    kind_left, kind_right = type(left), type(right)
    if kind_left is bool or kind_right is bool:
        return kind_left is kind_right and left == right
    if kind_left in _NUMBER_TYPES and kind_right in _NUMBER_TYPES:
        return bool(left == right)
    if kind_left is str and kind_right is str:
        return bool(left == right)
    return left is right


def js_set_key(value: Any) -> Any:
    """A hashable key under which two values are the same member of an ECMAScript Set."""
    kind = type(value)
    if kind is str:
        return value
    if kind is bool:
        return ("bool", value)
    if kind in _NUMBER_TYPES:
        return ("number", float(value))
    if value is None or value is MISSING:
        return ("nothing", value is None)
    return ("object", id(value))


def js_key_order(keys: Iterable[str]) -> list[str]:
    """The order ECMAScript gives an object's own keys: array indices ascending, then insertion."""
    ordered = list(keys)
    indices = [
        key
        for key in ordered
        if _ARRAY_INDEX.fullmatch(key) is not None and int(key) < 4_294_967_295
    ]
    if not indices:
        return ordered
    taken = set(indices)
    return sorted(indices, key=int) + [key for key in ordered if key not in taken]


def js_number(value: float) -> str:
    """A number as ECMAScript prints it (1e-9, 1000000), for bounds inside messages."""
    return canonical_text(value)


class Checks:
    """The primitive rules; each returns whether the value passed and records a violation if not."""

    __slots__ = ("collector",)

    def __init__(self, collector: Collector) -> None:
        self.collector = collector

    def object(self, value: Any, label: str, where: Sequence[str | int]) -> bool:
        if type(value) is dict:
            return True
        self.collector.add(errors.OBJECT, where, f"{label} must be an object")
        return False

    def string(self, value: Any, label: str, where: Sequence[str | int], limit: int = 256) -> bool:
        if is_text(value, limit):
            return True
        self.collector.add(
            errors.STRING, where, f"{label} must be a nonempty string <= {limit} characters"
        )
        return False

    def identifier(self, value: Any, label: str, where: Sequence[str | int]) -> bool:
        if not self.string(value, label, where):
            return False
        if value in RESERVED:
            self.collector.add(errors.RESERVED_ID, where, f"{label} uses a reserved identifier")
            return False
        return True

    def boolean(self, value: Any, label: str, where: Sequence[str | int]) -> bool:
        if type(value) is bool:
            return True
        self.collector.add(errors.BOOLEAN, where, f"{label} must be boolean")
        return False

    def number(
        self, value: Any, label: str, where: Sequence[str | int], low: float, high: float
    ) -> bool:
        if is_number(value, low, high):
            return True
        self.collector.add(
            errors.NUMBER,
            where,
            f"{label} must be finite in [{js_number(low)}, {js_number(high)}]",
        )
        return False

    def array(
        self, value: Any, label: str, where: Sequence[str | int], high: int, low: int = 0
    ) -> bool:
        if type(value) is list and low <= len(value) <= high:
            return True
        self.collector.add(errors.ARRAY, where, f"{label} must contain {low}..{high} entries")
        return False

    def unique(self, values: Sequence[Any], label: str, where: Sequence[str | int]) -> bool:
        if len({js_set_key(value) for value in values}) == len(values):
            return True
        self.collector.add(errors.DUPLICATE, where, f"{label} contains duplicates")
        return False

    def digest(self, value: Any, label: str, where: Sequence[str | int]) -> bool:
        if is_digest(value):
            return True
        self.collector.add(errors.DIGEST, where, f"{label} must be a SHA-256 lowercase hex digest")
        return False

    def enum(
        self, value: Any, allowed: Sequence[str], label: str, where: Sequence[str | int]
    ) -> bool:
        if type(value) is str and value in allowed:
            return True
        self.collector.add(errors.ENUM, where, f"{label} must be one of {', '.join(allowed)}")
        return False
