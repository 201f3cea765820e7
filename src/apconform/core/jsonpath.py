"""The path notation every error uses (``$.suite.slots[3].id``) and the fault that carries it.

A refusal found deep inside a recursive walk travels up as :class:`Fault`,
collecting its path segments on the way out, so no path text is built unless
something actually fails.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from json.encoder import encode_basestring

from apconform.core.errors import ErrorCode

__all__ = [
    "EXACT_INT",
    "SURROGATE",
    "Fault",
    "escape_surrogates",
    "format_path",
    "surrogate_position",
]

EXACT_INT = 2**53
"""Integers up to this magnitude are exactly representable as IEEE 754 doubles."""
SURROGATE = re.compile("[\ud800-\udfff]")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def escape_surrogates(text: str) -> str:
    return SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def format_path(segments: Iterable[str | int]) -> str:
    """Write a location as ``$.key[3]['odd key']``, the path notation every error uses."""
    parts = ["$"]
    for segment in segments:
        if isinstance(segment, int):
            parts.append(f"[{segment}]")
        elif _IDENTIFIER.fullmatch(segment):
            parts.append("." + segment)
        else:
            quoted = encode_basestring(segment)[1:-1].replace('\\"', '"').replace("'", "\\'")
            parts.append(f"['{escape_surrogates(quoted)}']")
    return "".join(parts)


class Fault(Exception):
    """Internal (shared with canonical): a refusal travelling up a recursive walk,
    collecting its path on the way out so no path is built unless something fails."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.segments: list[str | int] = []


def surrogate_position(text: str) -> str:
    found = SURROGATE.search(text)
    assert found is not None
    return f"U+{ord(found.group()):04X} at character {found.start()}"
