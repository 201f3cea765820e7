"""Canonical digests of APx components, and freezing a manifest.

A digest is the SHA-256 of the RFC 8785 canonical JSON of a value (a string is
hashed as its own UTF-8 bytes); this is the rule of ``apconform.core`` and it
reproduces every digest of the APx reference kernel. Large baselines are
hashed often, so :func:`digest` first lets the C JSON encoder write the
canonical text and only falls back to the exact encoder of the core when the
fast text could differ from RFC 8785 (non-ASCII text, integral or exponent
floats, very long integers).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from apconform.apx import errors
from apconform.apx.errors import ApxRefused, Collector
from apconform.apx.guard import guard
from apconform.core.canonical import sha256_hex
from apconform.core.errors import ErrorCode

__all__ = ["COMPONENTS", "component_digest", "digest", "freeze"]

COMPONENTS = ("suite", "baseline", "evaluator", "environment")
"""The frozen components of a manifest, in the order they are hashed and checked."""

_ENCODE = json.JSONEncoder(
    ensure_ascii=False,
    sort_keys=True,
    separators=(",", ":"),
    allow_nan=False,
    check_circular=False,
).encode
# Where Python's float text can differ from ECMAScript's: integral floats
# ("1.0", ES "1"), exponents ("1e-07", ES "1e-7"; "1e+16"), and integers of 22
# or more digits (ES writes those with an exponent). The checks below use only
# literal searches, which scan a megabyte in well under a millisecond.
_DIGITS = bytes.maketrans(b"123456789", b"000000000")
_LONG_INTEGER = b"0" * 22
_INTEGRAL = re.compile(r"\.0(?=[,\]}])")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def digest(value: Any) -> str:
    """SHA-256 hex of the canonical JSON of a guarded value (identical to core ``sha256_hex``).

    Integral floats (written "1.0" by Python, "1" by RFC 8785) are common in
    documents written by Python tools, so they get their own fast repair: when
    no string literal holds the pattern, every ".0" before a delimiter belongs
    to a number and is dropped. Anything less certain goes to the exact encoder.
    """
    if isinstance(value, str):
        return sha256_hex(value)
    text = _ENCODE(value)
    if not text.isascii():
        return sha256_hex(value)
    raw = text.encode("ascii")
    shape = raw.translate(_DIGITS)
    if b"0e+" in shape or b"0e-" in shape or _LONG_INTEGER in shape:
        return sha256_hex(value)
    if b".0," not in raw and b".0]" not in raw and b".0}" not in raw:
        return _sha(raw)
    if b"-0.0" in raw or b'\\"' in raw:
        return sha256_hex(value)
    # Without escaped quotes, every odd piece between quotes is a string's content.
    contents = "\0".join(text.split('"')[1::2])
    if _INTEGRAL.search(contents) is not None:
        return sha256_hex(value)
    return _sha(_INTEGRAL.sub("", text).encode("ascii"))


def component_digest(component: dict[str, Any]) -> str:
    """The frozen hash of a manifest component: the digest of every member but ``hash``."""
    if "hash" in component:
        component = {key: item for key, item in component.items() if key != "hash"}
    return digest(component)


def _copy(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return {key: _copy(item) for key, item in value.items()}
    if kind is list:
        return [_copy(item) for item in value]
    return value


def freeze(manifest: Any) -> dict[str, Any]:
    """A copy of ``manifest`` with taskSetHash and the four component hashes (re)computed.

    Freezing checks nothing else, as in the contract: a frozen manifest can
    still be refused by validation. It needs the four components to be
    objects and the suite to have ``slots`` (otherwise there is nothing to
    hash), and it refuses input the structural guard refuses.
    """
    guard(manifest)
    collector = Collector()
    if type(manifest) is not dict:
        collector.add(errors.OBJECT, [], "manifest must be an object")
    else:
        for key in COMPONENTS:
            if type(manifest.get(key)) is not dict:
                collector.add(errors.OBJECT, [key], f"{key} must be an object")
        if not collector and "slots" not in manifest["suite"]:
            collector.add(
                errors.ARRAY, ["suite", "slots"], "suite.slots must contain 1..1000 entries"
            )
    collector.raise_if_any("manifest to freeze")
    frozen: dict[str, Any] = _copy(manifest)
    frozen["suite"]["taskSetHash"] = digest(frozen["suite"]["slots"])
    for key in COMPONENTS:
        frozen[key]["hash"] = component_digest(frozen[key])
    return frozen


def rebind(manifest: dict[str, Any], run: Any) -> Any:
    """A copy of ``run`` whose four hash references point at ``manifest``'s components."""
    if type(run) is not dict:
        raise ApxRefused(_single(errors.OBJECT, [], "run must be an object"))
    bound: dict[str, Any] = _copy(run)
    for key in COMPONENTS:
        bound[f"{key}Hash"] = manifest[key]["hash"]
    return bound


def _single(code: ErrorCode, where: list[str | int], detail: str) -> list[Any]:
    collector = Collector()
    collector.add(code, where, detail)
    return collector.violations
