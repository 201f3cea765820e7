"""RFC 8785 (JCS) canonical JSON and the hashes built on it.

Every hash and signature in the kit is taken over these bytes, so two
implementations in any language agree on a digest exactly when they agree on
the data. Values that JCS cannot express unambiguously (NaN, Infinity, lone
surrogates, integers a double cannot hold, non-JSON types) are refused with the
path of the offending value instead of being coerced.
"""

from __future__ import annotations

import hashlib
import json
import math
from json.encoder import encode_basestring
from typing import Any

from apconform.core.errors import ApconformError, define_code
from apconform.core.jsonpath import EXACT_INT, SURROGATE, Fault, format_path, surrogate_position

__all__ = [
    "TEXT_HASH_METHOD",
    "canonical_bytes",
    "canonical_text",
    "normalize_newlines",
    "sha256_bytes",
    "sha256_hex",
    "sha256_text",
]

TEXT_HASH_METHOD = "sha256-utf8-lf"
"""Recorded in seals next to text hashes, so a verifier knows newlines were normalised to LF."""

JCS_NONFINITE = define_code(
    "APC-JCS-NONFINITE",
    "A number is NaN or infinite and has no JSON form",
    "Replace the value with a finite number, or send it as a string if it must be kept.",
)
JCS_KEY_TYPE = define_code(
    "APC-JCS-KEY-TYPE",
    "An object key is not a string",
    "Use string keys only; convert numeric or other keys with str() before hashing.",
)
JCS_SURROGATE = define_code(
    "APC-JCS-SURROGATE",
    "A string or key holds a surrogate code point (not valid Unicode)",
    "Remove the lone surrogate or replace it with the character it was meant to encode.",
)
JCS_TYPE = define_code(
    "APC-JCS-TYPE",
    "A value has a type that JSON cannot represent",
    "Convert it to dict, list, str, int, float, bool or None first "
    "(for example a tuple to a list, a Decimal or bytes to a string).",
)
JCS_INTEGER = define_code(
    "APC-JCS-INTEGER",
    "An integer is too large to be represented exactly as an IEEE 754 double",
    "Send integers beyond ±2**53 as decimal strings.",
)
JCS_DEPTH = define_code(
    "APC-JCS-DEPTH",
    "A value is nested too deeply to canonicalise (or contains a reference cycle)",
    "Flatten the structure, and make sure no container contains itself.",
)

MAX_DEPTH = 256
"""Hard nesting bound: deep enough for any real document (the loader allows 32), low enough
that Python's recursion limit is never reached and a reference cycle fails cleanly."""


def _format_float(number: float) -> str:
    """Write a finite double exactly as ECMAScript's Number.prototype.toString does.

    Python's repr already yields the shortest round-trip digits (with the same
    closest-value tie-break ES requires); only the layout differs. repr uses
    fixed notation for decimal exponents -4..15 and ES for -6..20, so only the
    exponent's spelling and the two bands in between need rewriting.
    """
    if number == 0:
        return "0"  # covers -0.0 as well
    text = repr(number)
    mantissa, _, exponent = text.partition("e")
    if not exponent:
        return text[:-2] if text.endswith(".0") else text
    power = int(exponent)
    if power >= 21 or power <= -7:
        return mantissa + ("e+" if power > 0 else "e-") + str(abs(power))
    sign = ""
    if mantissa[0] == "-":
        sign, mantissa = "-", mantissa[1:]
    digits = mantissa.replace(".", "")
    if power > 0:  # 16..20: an integer written out in full
        return sign + digits + "0" * (power + 1 - len(digits))
    return sign + "0." + "0" * (-power - 1) + digits  # -6..-5


def _format_int(number: int) -> str:
    """Integers are JSON numbers, i.e. doubles: refuse any a double would silently round."""
    if -EXACT_INT <= number <= EXACT_INT:
        return str(number)
    try:
        as_float = float(number)
    except OverflowError:
        as_float = math.inf
    if as_float != number:
        raise Fault(
            JCS_INTEGER,
            f"integer with {len(str(abs(number)))} digits is not exactly representable "
            "as an IEEE 754 double; send it as a string",
        )
    return _format_float(as_float)


def _string(text: str) -> str:
    """Quote a string; json's escaper already matches JCS once surrogates are excluded."""
    if not text.isascii() and SURROGATE.search(text) is not None:
        raise Fault(JCS_SURROGATE, _surrogate_message(text))
    return encode_basestring(text)


def _surrogate_message(text: str) -> str:
    position = surrogate_position(text)
    return f"string holds the surrogate code point {position}; only valid Unicode is hashed"


def _utf16_order(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def _encode(value: Any, out: list[str], depth: int) -> None:
    """Append the canonical form of ``value`` to ``out``; refusals unwind through ``Fault``.

    Containers recurse straight into their children (one stack frame per level),
    so ``MAX_DEPTH`` levels always fit in Python's default recursion limit.
    """
    kind = type(value)
    if kind is dict:
        _encode_object(value, out, depth)
    elif kind is list:
        _encode_array(value, out, depth)
    elif kind is str:
        out.append(_string(value))
    else:
        out.append(_scalar(value, kind, out, depth))


def _scalar(value: Any, kind: type, out: list[str], depth: int) -> str:
    """Everything but exact dict, list and str: numbers, literals and subclasses of JSON types."""
    if kind is bool:
        return "true" if value else "false"
    if value is None:
        return "null"
    if kind is int:
        return _format_int(value)
    if kind is float:
        if not math.isfinite(value):
            raise Fault(JCS_NONFINITE, f"number {value!r} is not finite; JSON has no form for it")
        return _format_float(value)
    # Subclasses (OrderedDict, StrEnum, IntEnum, ...) encode as their base type.
    if isinstance(value, dict | list):
        _encode(dict(value) if isinstance(value, dict) else list(value), out, depth)
        return ""
    if isinstance(value, str):
        return _string(str.__str__(value))
    if isinstance(value, int):
        return _format_int(int.__index__(value))
    if isinstance(value, float):
        return _scalar(float.__float__(value), float, out, depth)
    raise Fault(
        JCS_TYPE,
        f"value of type {kind.__name__} cannot be canonicalised; "
        "only dict, list, str, int, float, bool and None can",
    )


def _encode_array(items: list[Any], out: list[str], depth: int) -> None:
    if depth >= MAX_DEPTH:
        raise Fault(JCS_DEPTH, f"nesting exceeds {MAX_DEPTH} levels (or a list contains itself)")
    out.append("[")
    child = depth + 1
    index = 0
    try:
        for index, item in enumerate(items):
            if index:
                out.append(",")
            kind = type(item)
            if kind is str:
                out.append(_string(item))
            elif kind is dict:
                _encode_object(item, out, child)
            elif kind is list:
                _encode_array(item, out, child)
            else:
                out.append(_scalar(item, kind, out, child))
    except Fault as fault:
        fault.segments.append(index)
        raise
    out.append("]")


def _plain_keys(obj: dict[Any, Any]) -> dict[str, Any]:
    """Check every key is a string without surrogates; return the object with plain str keys."""
    plain = True
    for key in obj:
        if type(key) is not str:
            if not isinstance(key, str):
                raise Fault(
                    JCS_KEY_TYPE,
                    f"object key {key!r} has type {type(key).__name__}; JSON keys must be strings",
                )
            plain = False
        if not key.isascii() and SURROGATE.search(key) is not None:
            fault = Fault(JCS_SURROGATE, "object key: " + _surrogate_message(key))
            fault.segments.append(str.__str__(key))
            raise fault
    return obj if plain else {str.__str__(key): item for key, item in obj.items()}


def _encode_object(obj: dict[Any, Any], out: list[str], depth: int) -> None:
    if depth >= MAX_DEPTH:
        raise Fault(JCS_DEPTH, f"nesting exceeds {MAX_DEPTH} levels (or a dict contains itself)")
    members = _plain_keys(obj)
    keys = list(members)
    # JCS sorts by UTF-16 code units; for ASCII keys plain str order is the same and faster.
    if all(key.isascii() for key in keys):
        keys.sort()
    else:
        keys.sort(key=_utf16_order)
    out.append("{")
    child = depth + 1
    key = ""
    try:
        for position, key in enumerate(keys):
            out.append(("," if position else "") + encode_basestring(key) + ":")
            item = members[key]
            kind = type(item)
            if kind is str:
                out.append(_string(item))
            elif kind is dict:
                _encode_object(item, out, child)
            elif kind is list:
                _encode_array(item, out, child)
            else:
                out.append(_scalar(item, kind, out, child))
    except Fault as fault:
        fault.segments.append(key)
        raise
    out.append("}")


_C_ENCODE = json.JSONEncoder(
    ensure_ascii=False, allow_nan=False, sort_keys=True, separators=(",", ":"), check_circular=False
).encode
"""The standard library's C encoder; on the values ``_c_encodes`` admits, its output is JCS."""


def _c_encodes(value: Any, depth: int) -> bool:
    """Whether the C encoder writes ``value`` exactly as JCS does, checked node by node.

    It does for exact dicts with ASCII string keys (code-point order is UTF-16 order there),
    exact lists, strings without surrogates, booleans, None, integers a double holds exactly,
    and finite floats whose ``repr`` is already the ECMAScript form (no exponent, no ``.0``).
    Anything else (subclasses, other numbers, non-ASCII keys, too deep) answers False and
    goes through the encoder above, which writes it or refuses it with its path.
    """
    kind = type(value)
    if kind is str:
        return value.isascii() or SURROGATE.search(value) is None
    if kind is dict:
        if depth >= MAX_DEPTH:
            return False
        depth += 1
        for key, item in value.items():
            if type(key) is not str or not key.isascii():
                return False
            kind = type(item)
            if kind is str:
                if not item.isascii() and SURROGATE.search(item) is not None:
                    return False
            elif not (item is None or kind is bool) and not _c_encodes(item, depth):
                return False
        return True
    if kind is list:
        if depth >= MAX_DEPTH:
            return False
        depth += 1
        for item in value:
            kind = type(item)
            if kind is str:
                if not item.isascii() and SURROGATE.search(item) is not None:
                    return False
            elif not (item is None or kind is bool) and not _c_encodes(item, depth):
                return False
        return True
    if value is None or kind is bool:
        return True
    if kind is int:
        return bool(-EXACT_INT <= value <= EXACT_INT)
    if kind is float:
        text = repr(value)
        return math.isfinite(value) and "e" not in text and not text.endswith(".0")
    return False


def canonical_text(value: Any) -> str:
    """The RFC 8785 canonical JSON text of ``value``."""
    if _c_encodes(value, 0):
        return _C_ENCODE(value)
    return _python_text(value)


def _python_text(value: Any) -> str:
    """The canonical text written node by node in Python: every value JCS allows, and refusals."""
    out: list[str] = []
    try:
        _encode(value, out, 0)
    except Fault as fault:
        raise ApconformError(
            fault.code, fault.message, path=format_path(reversed(fault.segments))
        ) from None
    return "".join(out)


def canonical_bytes(value: Any) -> bytes:
    """The UTF-8 bytes of the canonical JSON of ``value``: what every hash and signature covers."""
    return canonical_text(value).encode("utf-8")


def sha256_bytes(data: bytes) -> str:
    """Lowercase hex SHA-256 of raw bytes."""
    return hashlib.sha256(data).hexdigest()


def _utf8(text: str) -> bytes:
    if not text.isascii() and SURROGATE.search(text) is not None:
        raise ApconformError(JCS_SURROGATE, _surrogate_message(text), path="$")
    return text.encode("utf-8")


def sha256_hex(value: Any) -> str:
    """Hash a value: a string's own UTF-8 bytes (not JSON-quoted), anything else its JCS bytes.

    Hashing strings raw matches the APx reference kernel, whose digests we must reproduce.
    """
    if isinstance(value, str):
        return sha256_bytes(_utf8(value))
    return sha256_bytes(canonical_bytes(value))


def normalize_newlines(text: str) -> str:
    """Turn CRLF and lone CR into LF, so a text hashes the same on every operating system."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def sha256_text(text: str) -> str:
    """Hash a text document by the ``sha256-utf8-lf`` method (see ``TEXT_HASH_METHOD``)."""
    return sha256_bytes(_utf8(normalize_newlines(text)))
