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
# Where Python's float text can differ from ECMAScript's: "1.0" (ES "1"), any
# exponent ("1e-07", "1e+16"), and 16+ digit integers (beyond 2**53 the core
# refuses values a double cannot hold).
_NOT_JCS = re.compile(r"\.0[,\]}]|[0-9]e|[0-9]{16}")


def digest(value: Any) -> str:
    """SHA-256 hex of the canonical JSON of a guarded value (identical to core ``sha256_hex``)."""
    if isinstance(value, str):
        return sha256_hex(value)
    text = _ENCODE(value)
    if text.isascii() and _NOT_JCS.search(text) is None:
        return hashlib.sha256(text.encode("ascii")).hexdigest()
    return sha256_hex(value)


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
