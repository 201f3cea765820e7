"""The one bounded JSON loader that every entry point (CLI, API, MCP, adapters) uses.

Untrusted documents are refused before they can cost much: size is checked on
bytes before decoding, nesting depth is pre-scanned before the parser recurses,
long number literals are refused before Python converts them, and the parsed
value is walked once for the node budget, duplicate keys, non-finite numbers
and lone surrogates. Depth and node counting follow the APx reference kernel
exactly (root at depth 0, every value counted, keys not), so both kits accept
and refuse the same documents.

Bounds limit cost, never validity: every number literal within the length
bound whose magnitude a double can reach is read as the IEEE 754 double nearest
to it, as JavaScript's ``JSON.parse`` reads it. So ``18446744073709552000``
(how RFC 8785 and JavaScript write 2**64) is accepted, and the kit reads back
every canonical text it writes. An integer literal stays a Python ``int``
holding the double's exact value.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import Any

from apconform.core.errors import ApconformError, ErrorCode, define_code
from apconform.core.jsonpath import (
    EXACT_INT,
    SURROGATE,
    Fault,
    escape_surrogates,
    format_path,
    surrogate_position,
)

__all__ = [
    "DEFAULT_LIMITS",
    "MESSAGE_LIMITS",
    "Limits",
    "check_value",
    "loads",
    "size_error",
]


MAX_DEPTH_LIMIT = 128
"""The largest ``max_depth`` a ``Limits`` may set (the walk uses two frames per level)."""
MAX_NUMBER_CHARS_LIMIT = 1000
"""The largest ``max_number_chars`` a ``Limits`` may set."""


@dataclass(frozen=True)
class Limits:
    """Bounds on one document; the defaults are the kit's published limits."""

    max_bytes: int = 1_048_576
    max_depth: int = 32
    max_nodes: int = 100_000
    max_number_chars: int = 100

    def __post_init__(self) -> None:
        for name in ("max_bytes", "max_depth", "max_nodes", "max_number_chars"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"Limits.{name} must be a positive integer, not {value!r}")
        if self.max_number_chars > MAX_NUMBER_CHARS_LIMIT:
            raise ValueError(
                f"Limits.max_number_chars may be at most {MAX_NUMBER_CHARS_LIMIT}: longer "
                "literals cost quadratic time to convert and Python refuses them anyway"
            )
        if self.max_depth > MAX_DEPTH_LIMIT:
            raise ValueError(
                f"Limits.max_depth may be at most {MAX_DEPTH_LIMIT}, so parsing and checking "
                "stay far inside Python's recursion limit"
            )


DEFAULT_LIMITS = Limits()

MESSAGE_LIMITS = Limits(
    max_bytes=DEFAULT_LIMITS.max_bytes + 65_536,
    max_depth=DEFAULT_LIMITS.max_depth + 2,
    max_nodes=DEFAULT_LIMITS.max_nodes + 64,
)
"""An adapter message wraps one document: two levels and a few values more than the document
limits (a report line is bounded by a multiple of it)."""

_SIZE_HINT = "Send a smaller document (at most {limit:,} bytes), or split it into several."
JSON_SIZE = define_code(
    "APC-JSON-SIZE",
    "The document is larger than the size limit",
    "Send a smaller document (at most 1 MiB by default), or split it into several.",
    http_status=413,
)
JSON_BOM = define_code(
    "APC-JSON-BOM",
    "The document starts with a UTF-8 byte order mark",
    "Remove the byte order mark (save the file as UTF-8 without BOM).",
)
JSON_ENCODING = define_code(
    "APC-JSON-ENCODING",
    "The document is not valid UTF-8",
    "Re-encode the document as UTF-8; JSON exchanged between systems must be UTF-8.",
)
JSON_SYNTAX = define_code(
    "APC-JSON-SYNTAX",
    "The document is not well-formed JSON",
    "Fix the JSON syntax at the reported line and column; the input must be one JSON value.",
)
JSON_DUPLICATE_KEY = define_code(
    "APC-JSON-DUPLICATE-KEY",
    "An object has the same key twice",
    "Keep exactly one member with that key; duplicate keys are ambiguous and refused.",
)
JSON_NONFINITE = define_code(
    "APC-JSON-NONFINITE",
    "A number is NaN or infinite",
    "Use a finite number, or a string if the value really is not a number.",
)
JSON_NUMBER = define_code(
    "APC-JSON-NUMBER",
    "A number literal is too long, or its magnitude is beyond the range of an IEEE 754 double",
    "Write the number with at most 100 characters and a magnitude a double can reach "
    "(non-zero values between about 5e-324 and 1.8e308), or send it as a decimal string.",
)
JSON_SURROGATE = define_code(
    "APC-JSON-SURROGATE",
    "A string or key holds a lone UTF-16 surrogate",
    "Remove the lone \\uD800-\\uDFFF escape, or complete the surrogate pair.",
)
JSON_DEPTH = define_code(
    "APC-JSON-DEPTH",
    "The document is nested deeper than the depth limit",
    "Flatten the document: at most 32 levels below the root are allowed.",
)
JSON_NODES = define_code(
    "APC-JSON-NODES",
    "The document holds more values than the node limit",
    "Send fewer values (at most 100,000 in one document), or split the document.",
)
JSON_TYPE = define_code(
    "APC-JSON-TYPE",
    "A value or key has a type that JSON cannot represent",
    "Use only dict (with str keys), list, str, int, float, bool and None.",
)

_ESCAPE_PAIR = re.compile(rb"\\.", re.DOTALL)
_SQUARE = bytes.maketrans(b"{}", b"[]")
_NOT_BRACKET = bytes(byte for byte in range(256) if byte not in b"[]{}")
_UTF8_BOM = b"\xef\xbb\xbf"


class _Refused:
    """Placed in the parse tree by a parser hook, so the walk can report it with its path."""

    __slots__ = ("code", "key", "message")

    def __init__(self, code: ErrorCode, message: str, key: str | None = None) -> None:
        self.code = code
        self.message = message
        self.key = key


def _short(literal: str) -> str:
    return literal if len(literal) <= 24 else f"{literal[:12]}...{literal[-6:]}"


class _Hooks:
    """json.loads hooks that refuse bad numbers and duplicate keys without raising mid-parse."""

    def __init__(self, limits: Limits) -> None:
        self.max_chars = limits.max_number_chars

    def _too_long(self, literal: str) -> _Refused:
        return _Refused(
            JSON_NUMBER,
            f"number literal of {len(literal):,} characters is longer than the limit of "
            f"{self.max_chars}; send it as a string",
        )

    def parse_int(self, literal: str) -> int | _Refused:
        """The integer value of the nearest double (the literal's own value when exact)."""
        if len(literal) > self.max_chars:
            return self._too_long(literal)
        number = int(literal)
        if -EXACT_INT <= number <= EXACT_INT:
            return number
        try:
            nearest = float(number)
        except OverflowError:
            return _Refused(
                JSON_NUMBER, f"integer {_short(literal)} overflows an IEEE 754 double to infinity"
            )
        return number if nearest == number else int(nearest)

    def parse_float(self, literal: str) -> float | _Refused:
        if len(literal) > self.max_chars:
            return self._too_long(literal)
        number = float(literal)
        if math.isinf(number):
            return _Refused(
                JSON_NUMBER, f"number {_short(literal)} overflows an IEEE 754 double to infinity"
            )
        if number == 0.0 and literal.lower().partition("e")[0].strip("-+0.") != "":
            return _Refused(
                JSON_NUMBER, f"number {_short(literal)} is non-zero but underflows to 0"
            )
        return number

    @staticmethod
    def parse_constant(name: str) -> _Refused:
        return _Refused(JSON_NONFINITE, f"{name} is not a JSON number; JSON numbers are finite")

    @staticmethod
    def object_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any] | _Refused:
        obj = dict(pairs)
        if len(obj) == len(pairs):
            return obj
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                quoted = escape_surrogates(encode_basestring(key))
                return _Refused(
                    JSON_DUPLICATE_KEY, f"key {quoted} appears more than once in one object", key
                )
            seen.add(key)
        return obj  # pragma: no cover - unreachable: the lengths differ only with a duplicate


class _Walker:
    """One depth-first pass applying the depth, node, number, string and type rules."""

    __slots__ = ("max_depth", "max_nodes", "nodes")

    def __init__(self, limits: Limits) -> None:
        self.max_depth = limits.max_depth
        self.max_nodes = limits.max_nodes
        self.nodes = 1  # the root is a value too

    def value(self, value: Any, depth: int) -> None:
        kind = type(value)
        if kind is str:
            if not value.isascii() and SURROGATE.search(value) is not None:
                raise Fault(
                    JSON_SURROGATE, "string holds a lone surrogate " + surrogate_position(value)
                )
        elif kind is dict or kind is list:
            self.container(value, depth)
        elif kind is int:
            if not -EXACT_INT <= value <= EXACT_INT and not _is_double(value):
                raise Fault(
                    JSON_NUMBER,
                    "integer is not exactly representable as an IEEE 754 double "
                    "(beyond 2**53); convert it with float() or send it as a decimal string",
                )
        elif kind is float:
            if not math.isfinite(value):
                raise Fault(JSON_NONFINITE, f"number {value!r} is not finite")
        elif kind is _Refused:
            fault = Fault(value.code, value.message)
            if value.key is not None:
                fault.segments.append(value.key)
            raise fault
        elif value is None or kind is bool:
            pass
        else:
            self.other(value, depth)

    def other(self, value: Any, depth: int) -> None:
        """Subclasses of JSON types pass as their base type; anything else is refused."""
        if isinstance(value, dict | list):
            self.container(value, depth)
        elif isinstance(value, str):
            self.value(str.__str__(value), depth)
        elif isinstance(value, int):
            self.value(int.__index__(value), depth)
        elif isinstance(value, float):
            self.value(float.__float__(value), depth)
        else:
            raise Fault(
                JSON_TYPE,
                f"value of type {type(value).__name__} is not JSON; "
                "only dict, list, str, int, float, bool and None are",
            )

    def container(self, value: dict[Any, Any] | list[Any], depth: int) -> None:
        size = len(value)
        if not size:
            return
        self.nodes += size
        if self.nodes > self.max_nodes:
            raise Fault(
                JSON_NODES, f"the document holds more than {self.max_nodes:,} values (the limit)"
            )
        child = depth + 1
        if isinstance(value, list):
            if child > self.max_depth:
                fault = Fault(JSON_DEPTH, _depth_message(child, self.max_depth))
                fault.segments.append(0)
                raise fault
            for index, item in enumerate(value):
                try:
                    self.value(item, child)
                except Fault as fault:
                    fault.segments.append(index)
                    raise
            return
        for key, item in value.items():
            try:
                self.key(key)
                if child > self.max_depth:
                    raise Fault(JSON_DEPTH, _depth_message(child, self.max_depth))
                self.value(item, child)
            except Fault as fault:
                fault.segments.append(str.__str__(key) if isinstance(key, str) else repr(key))
                raise

    @staticmethod
    def key(key: Any) -> None:
        if not isinstance(key, str):
            raise Fault(JSON_TYPE, f"object key of type {type(key).__name__} is not a string")
        if not key.isascii() and SURROGATE.search(key) is not None:
            raise Fault(
                JSON_SURROGATE, "object key holds a lone surrogate " + surrogate_position(key)
            )


def _is_double(number: int) -> bool:
    """Whether a (Python, in-process) integer is exactly the value of some double."""
    try:
        return float(number) == number
    except OverflowError:
        return False


def _depth_message(depth: int, limit: int) -> str:
    return f"value at depth {depth} is nested deeper than the limit of {limit}"


def _walk(value: Any, limits: Limits, source: str | None) -> None:
    try:
        _Walker(limits).value(value, 0)
    except Fault as fault:
        message = f"{source}: {fault.message}" if source else fault.message
        raise ApconformError(
            fault.code,
            message,
            path=format_path(reversed(fault.segments)),
            hint=_limit_hint(fault.code, limits),
            context={"source": source} if source else None,
        ) from None


def _limit_hint(code: ErrorCode, limits: Limits) -> str | None:
    """The default hints quote the default limits; say the real ones when they differ."""
    if code is JSON_DEPTH and limits.max_depth != DEFAULT_LIMITS.max_depth:
        return f"Flatten the document: at most {limits.max_depth} levels below the root."
    if code is JSON_NODES and limits.max_nodes != DEFAULT_LIMITS.max_nodes:
        return f"Send fewer values (at most {limits.max_nodes:,}), or split the document."
    if code is JSON_SIZE and limits.max_bytes != DEFAULT_LIMITS.max_bytes:
        return _SIZE_HINT.format(limit=limits.max_bytes)
    return None


def check_value(value: Any, limits: Limits = DEFAULT_LIMITS) -> None:
    """Apply the loader's depth, node, number, string and type rules to an in-process value.

    API calls that receive Python objects instead of bytes must meet the same
    bounds as parsed documents, so both paths refuse the same inputs. One rule
    differs because a Python ``int`` is not yet a JSON number: an integer that
    no double holds exactly (``2**53 + 1``) is refused, where the same digits in
    a document would be read as the nearest double.
    """
    _walk(value, limits, None)


def size_error(source: str, limits: Limits, size: int | None) -> ApconformError:
    measured = f"is {size:,} bytes" if size is not None else "is larger than that"
    return ApconformError(
        JSON_SIZE,
        f"{source}: the document {measured}; the limit is {limits.max_bytes:,} bytes",
        path="$",
        hint=_limit_hint(JSON_SIZE, limits),
        context={"source": source, "limit": limits.max_bytes, "size": size},
    )


def _too_deep(data: bytes, limit: int) -> bool:
    """Cheaply decide whether brackets outside strings nest deeper than ``limit``.

    Works on bytes with C-speed operations only (UTF-8 continuation bytes never
    look like ASCII, so quotes and brackets are found exactly): drop escape
    pairs, keep the text between string literals, keep only its brackets, then
    remove innermost ``[]`` pairs once per level. A document within bounds is
    cleared in ``limit`` passes; a megabyte of ``[`` is refused in milliseconds
    and the parser never recurses deeply.
    """
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    if b"\\" in data:
        data = _ESCAPE_PAIR.sub(b"", data)
    # Even-numbered pieces lie outside string literals; after an unterminated
    # string the tail has an odd number and is dropped.
    outside = b"".join(data.split(b'"')[::2])
    skeleton = outside.translate(_SQUARE, _NOT_BRACKET)
    for _ in range(limit):
        if b"[]" not in skeleton:
            break
        skeleton = skeleton.replace(b"[]", b"")
    return b"[]" in skeleton or skeleton.count(b"[") > limit


def _bom_error(source: str) -> ApconformError:
    return ApconformError(
        JSON_BOM,
        f"{source}: the document starts with a UTF-8 byte order mark; remove the byte order mark",
        path="$",
        context={"source": source},
    )


def _decode(data: bytes, source: str) -> str:
    if data.startswith(_UTF8_BOM):
        raise _bom_error(source)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ApconformError(
            JSON_ENCODING,
            f"{source}: invalid UTF-8 at byte {exc.start} (line {line}, byte {column} "
            f"of that line): {exc.reason}",
            context={"source": source, "offset": exc.start, "line": line},
        ) from None


def loads(data: bytes | str, *, limits: Limits = DEFAULT_LIMITS, source: str = "<input>") -> Any:
    """Parse one JSON document within ``limits``, or raise a typed ``ApconformError``."""
    if isinstance(data, str):
        if len(data) > limits.max_bytes:
            raise size_error(source, limits, None)
        raw = data.encode("utf-8", "surrogatepass")  # lone surrogates are refused after parsing
        if len(raw) > limits.max_bytes:
            raise size_error(source, limits, len(raw))
        if data.startswith("\ufeff"):
            raise _bom_error(source)
        text = data
    else:
        raw = bytes(data)
        if len(raw) > limits.max_bytes:
            raise size_error(source, limits, len(raw))
        text = _decode(raw, source)
    if _too_deep(raw, limits.max_depth + 1):
        raise ApconformError(
            JSON_DEPTH,
            f"{source}: arrays and objects are nested more than {limits.max_depth + 1} "
            f"levels deep; the limit is {limits.max_depth} levels below the root",
            path="$",
            hint=_limit_hint(JSON_DEPTH, limits),
            context={"source": source},
        )
    hooks = _Hooks(limits)
    try:
        value = json.loads(
            text,
            object_pairs_hook=hooks.object_pairs,
            parse_float=hooks.parse_float,
            parse_int=hooks.parse_int,
            parse_constant=hooks.parse_constant,
        )
    except json.JSONDecodeError as exc:
        raise ApconformError(
            JSON_SYNTAX,
            f"{source}: line {exc.lineno} column {exc.colno}: {exc.msg}",
            context={"source": source, "line": exc.lineno, "column": exc.colno},
        ) from None
    _walk(value, limits, source)
    return value
