"""Writing and reading JSON on the wire without a binary float in between.

Request bodies are written by :func:`dump` so that a decimal sampling value
goes out with exactly the digits the configuration declares, and response
bodies are read by :func:`parse_body` (bounded first, then decoded with every
number as a ``Decimal``), so that relaying an assistant message or recording an
echoed parameter never rounds a number.
"""

from __future__ import annotations

import json
from decimal import Decimal
from json.encoder import encode_basestring
from typing import Any

from apconform.core.jsonload import Limits, loads

__all__ = ["RESPONSE_LIMITS", "Raw", "dump", "not_json", "parse_body"]

RESPONSE_LIMITS = Limits(max_bytes=8 * 1024 * 1024, max_depth=64, max_nodes=500_000)


class Raw(str):
    """A JSON token written verbatim (a number literal the configuration declared)."""

    __slots__ = ()


def dump(value: object) -> str:
    """Compact JSON text, members in insertion order, non-ASCII as UTF-8, Decimals exactly."""
    out: list[str] = []
    _write(value, out)
    return "".join(out)


def _write(value: object, out: list[str]) -> None:
    if isinstance(value, Raw):
        out.append(str.__str__(value))
    elif isinstance(value, str):
        out.append(encode_basestring(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError("a non-finite number has no JSON form")
        out.append(str(value))
    elif isinstance(value, dict):
        out.append("{")
        for index, (key, item) in enumerate(value.items()):
            if index:
                out.append(",")
            out.append(encode_basestring(str(key)) + ":")
            _write(item, out)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _write(item, out)
        out.append("]")
    else:
        raise TypeError(f"{type(value).__name__} cannot be written as JSON here")


def parse_body(data: bytes) -> Any:
    """Parse a response body within bounds; numbers become Decimal (int stays int)."""
    loads(data, limits=RESPONSE_LIMITS, source="response body")  # bounds, duplicates, NaN
    return json.loads(data.decode("utf-8"), parse_float=Decimal)


def not_json(status: int, exc: Exception) -> str:
    """The error text of an attempt answered with a body that :func:`parse_body` refused."""
    message = getattr(exc, "message", None) or str(exc)
    return f"HTTP {status} with a body that is not JSON ({message})"
