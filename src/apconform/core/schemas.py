"""The normative JSON Schemas, loaded for validation with python-jsonschema.

The schemas are JSON Schema draft 2020-12, whose ``pattern`` is an ECMA-262
regular expression. Python's ``re`` differs in one way that matters for anchored
patterns: its ``$`` also matches before a final newline, so ``"ab\\n"`` would
pass ``^[a-z]+$``. The validator below keeps ECMA's meaning (``$`` at the very
end of the pattern matches only at the end of the string); format checking is
on, so ``date-time`` values are checked as RFC 3339.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator, ValidationError, validators
from jsonschema.protocols import Validator

from apconform.resources import data_path

__all__ = [
    "document_names",
    "ecma_search",
    "json_schema_validator",
    "schema_digest",
    "schema_validator",
]


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    translated = pattern
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        translated = pattern[:-1] + r"\Z"
    return re.compile(translated)


def ecma_search(pattern: str, text: str) -> bool:
    """True when the ECMA-262 pattern matches somewhere in text."""
    return _compiled(pattern).search(text) is not None


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not ecma_search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


_EcmaValidator = validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator, {"pattern": _pattern}
)


def document_names() -> list[str]:
    """The document types that have a JSON Schema file."""
    folder = data_path("schemas", "jsonschema")
    return sorted(p.name.removesuffix(".schema.json") for p in folder.glob("*.schema.json"))


@cache
def _schema(name: str) -> dict[str, Any]:
    path = data_path("schemas", "jsonschema", f"{name}.schema.json")
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def schema_validator(schema: dict[str, Any]) -> Validator:
    """A draft 2020-12 validator with ECMA-262 patterns and format checking on."""
    validator: Validator = _EcmaValidator(
        schema, format_checker=Draft202012Validator.FORMAT_CHECKER
    )
    return validator


def json_schema_validator(name: str) -> Validator:
    """A validator for one document type, e.g. "vector"."""
    return schema_validator(_schema(name))


def schema_digest(name: str) -> str:
    """SHA-256 of the schema file's canonical JSON, for provenance records."""
    from apconform.core.canonical import sha256_hex

    return sha256_hex(_schema(name))
