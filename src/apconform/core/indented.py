"""Indented JSON text, the bytes of ``json.dumps(value, indent=2, ensure_ascii=False)``, faster.

The standard library writes indented JSON with its pure-Python encoder, one
generator step per value; a score report of 100,000 executions holds hundreds
of thousands of values. Here a container whose members are all scalars is
written by the C encoder in one call, with the line break and indentation of
its depth as the item separator; only containers that hold containers are
walked in Python; with an indent of 2, a container without floats is written
by orjson in one call. The text is the same, character for character (checked
against ``json.dumps`` by the tests), for plain JSON data: dicts with string
keys, lists, strings, integers, floats, booleans and None, of exactly those
types; anything else is refused with TypeError rather than written differently.
A :class:`~apconform.core.spooled.RowStream` (rows on disk) is written as the
list it stands for, read one row at a time.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import orjson

from apconform.core.spooled import RowStream

__all__ = ["indented_chunks", "indented_text"]

_SCALARS = (str, int, float, bool, type(None))


def indented_text(value: Any, indent: int = 2) -> str:
    """``json.dumps(value, indent=indent, ensure_ascii=False)``."""
    return "".join(indented_chunks(value, indent))


def indented_chunks(value: Any, indent: int = 2) -> Iterator[str]:
    """The same text in pieces (for writing a large document without holding all of it)."""
    yield from _member(value, 0, " " * indent, {})


def _flat(value: dict[Any, Any] | list[Any]) -> bool:
    """Whether every member is a scalar (and, for a dict, every key a string)."""
    if type(value) is dict:
        for key in value:
            if type(key) is not str:
                raise TypeError(f"key {key!r} is not a string")
        members: Any = value.values()
    else:
        members = value
    return all(type(member) in _SCALARS for member in members)


def _encoder(depth: int, step: str, encoders: dict[int, Any]) -> Any:
    encode = encoders.get(depth)
    if encode is None:
        encode = json.JSONEncoder(
            ensure_ascii=False, separators=(",\n" + step * depth, ": ")
        ).encode
        encoders[depth] = encode
    return encode


_EXACT = frozenset((str, int, bool, type(None)))
"""Scalar types orjson writes as ``json.dumps`` does (floats are written differently)."""


def _orjson_writes(value: dict[Any, Any] | list[Any]) -> bool:
    """Whether orjson writes this container as ``json.dumps`` does: only dicts with string
    keys, lists and the exact types of ``_EXACT`` (orjson itself refuses an integer past 64
    bits and a lone surrogate, which then take the standard path)."""
    stack = [value]
    while stack:
        container = stack.pop()
        if type(container) is dict:
            for key in container:
                if type(key) is not str:
                    return False
            members: Any = container.values()
        else:
            members = container
        for member in members:
            kind = type(member)
            if kind is dict or kind is list:
                stack.append(member)
            elif kind not in _EXACT:
                return False
    return True


def _container(
    value: dict[Any, Any] | list[Any], depth: int, step: str, encoders: dict[int, Any]
) -> Iterator[str]:
    closing = "\n" + step * depth
    if not value:
        yield "{}" if type(value) is dict else "[]"
        return
    if step == "  " and _orjson_writes(value):
        try:
            text = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode("utf-8")
        except orjson.JSONEncodeError:
            pass
        else:
            yield text.replace("\n", closing) if depth else text
            return
    inner = depth + 1
    if _flat(value):
        text = _encoder(inner, step, encoders)(value)
        yield text[0] + "\n" + step * inner + text[1:-1] + closing + text[-1]
        return
    lead = "\n" + step * inner
    if type(value) is dict:
        yield "{"
        first = True
        for key, member in value.items():
            yield (lead if first else "," + lead) + json.dumps(key, ensure_ascii=False) + ": "
            first = False
            yield from _member(member, inner, step, encoders)
        yield closing + "}"
    else:
        yield "["
        for index, member in enumerate(value):
            yield lead if index == 0 else "," + lead
            yield from _member(member, inner, step, encoders)
        yield closing + "]"


def _stream(value: RowStream, depth: int, step: str, encoders: dict[int, Any]) -> Iterator[str]:
    """A stream of rows, the text of the list of them (never all in memory)."""
    if not len(value):
        yield "[]"
        return
    inner = depth + 1
    lead = "\n" + step * inner
    yield "["
    for index, member in enumerate(value):
        yield lead if index == 0 else "," + lead
        yield from _member(member, inner, step, encoders)
    yield "\n" + step * depth + "]"


def _member(value: Any, depth: int, step: str, encoders: dict[int, Any]) -> Iterator[str]:
    kind = type(value)
    if kind is dict or kind is list:
        yield from _container(value, depth, step, encoders)
    elif isinstance(value, RowStream):
        yield from _stream(value, depth, step, encoders)
    elif kind in _SCALARS:
        yield json.dumps(value, ensure_ascii=False)
    else:
        raise TypeError(f"a {kind.__name__} is not plain JSON data")
