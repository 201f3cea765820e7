"""Reproducing the reference instrument's published seal hashes (zorrzai/ap1-run).

The reference hashed its resolved configuration and its pre-registration
record as SHA-256 over its own canonical JSON: keys sorted, no white space
between tokens, non-ASCII written as UTF-8, floats refused. Its reports print
the record's values as text, so ``"False"`` is read back as the boolean false
and ``"[]"`` as the empty list; the timestamp (and the seal hash itself) are
left out of the composite. From the printed values alone this reproduces the
published ``config_hash`` and ``seal_hash`` of all four published runs.

This is a compatibility function for checking published results, not the kit's
own seal (which hashes RFC 8785 bytes and normalises text line endings).
"""

from __future__ import annotations

import json
from typing import Any

from apconform.core.canonical import sha256_bytes
from apconform.core.errors import ApconformError, define_code

__all__ = ["reference_canonical_bytes", "reference_config_hash", "reference_seal_hashes"]

REFERENCE_FLOAT = define_code(
    "AP1-REFERENCE-FLOAT",
    "A value the reference instrument would hash is a binary float",
    "The reference refuses floats in hashed documents; write the number as a string.",
)
REFERENCE_RECORD = define_code(
    "AP1-REFERENCE-RECORD",
    "The printed seal record is not a flat object of printed values",
    "Give the record as printed in the report: field name -> value text.",
)

_PRINTED = {"False": False, "True": True, "[]": []}
_LEFT_OUT = ("timestamp", "seal_hash")


def _refuse_floats(value: object, path: str) -> None:
    if isinstance(value, float):
        raise ApconformError(
            REFERENCE_FLOAT, f"float {value!r} cannot be hashed by the reference rule", path=path
        )
    if isinstance(value, dict):
        for key, item in value.items():
            _refuse_floats(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _refuse_floats(item, f"{path}[{index}]")


def reference_canonical_bytes(value: object) -> bytes:
    """The reference's canonical JSON: sorted keys, compact separators, UTF-8, no floats."""
    _refuse_floats(value, "$")
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


def reference_config_hash(config: object) -> str:
    """config_hash: SHA-256 of the canonical JSON of the resolved configuration."""
    return sha256_bytes(reference_canonical_bytes(config))


def reference_seal_hashes(config: object, printed: object) -> dict[str, Any]:
    """Recompute config_hash and seal_hash from a report's printed configuration and seal table."""
    if not isinstance(printed, dict) or not all(isinstance(v, str) for v in printed.values()):
        raise ApconformError(
            REFERENCE_RECORD, "the seal record must map field names to printed text", path="$"
        )
    record = {
        key: _PRINTED.get(value, value) for key, value in printed.items() if key not in _LEFT_OUT
    }
    config_hash = reference_config_hash(config)
    seal_hash = sha256_bytes(reference_canonical_bytes(record))
    return {
        "configHash": config_hash,
        "sealHash": seal_hash,
        "configHashMatchesRecord": printed.get("config_hash") == config_hash,
        "sealHashMatchesRecord": printed.get("seal_hash") == seal_hash,
    }
