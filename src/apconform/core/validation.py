"""Turn Pydantic's validation errors into the kit's violations, all of them, with JSON paths.

A breach of a class rule (a model's ``rules``, see ``apconform.dev.class_rules``)
keeps the error code its schema names; every other error is APC-SCHEMA-VIOLATION.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from apconform.core.errors import DocumentRefused, Violation, define_code
from apconform.core.jsonpath import format_path

__all__ = ["SCHEMA_VIOLATION", "validate_document"]

SCHEMA_VIOLATION = define_code(
    "APC-SCHEMA-VIOLATION",
    "A value breaks the document's schema",
    "Compare the value at the given path with the schema reference in the documentation.",
    exit_status=1,
    http_status=422,
)

M = TypeVar("M", bound=BaseModel)


def _message(error: Any) -> str:
    kind = error.get("type", "")
    if kind == "missing":
        return "this required field is missing"
    if kind == "extra_forbidden":
        return "this field is not allowed here (the document type is closed)"
    if kind == "literal_error":
        expected = error.get("ctx", {}).get("expected", "")
        return f"unsupported value; this document type accepts only {expected}"
    text = str(error.get("msg", "invalid value"))
    return text[0].lower() + text[1:] if text else "invalid value"


def _location(error: Any) -> list[int | str]:
    # Pydantic adds function names for validators wrapped around a field; drop them.
    return [
        part
        for part in error.get("loc", ())
        if isinstance(part, int) or not part.startswith(("function-", "list["))
    ]


def _code(error: Any) -> str:
    context = error.get("ctx") or {}
    rule_code = context.get("rule")
    return rule_code if isinstance(rule_code, str) else SCHEMA_VIOLATION.code


def validate_document(
    model: type[M],
    value: Any,
    *,
    what: str | None = None,
    context: Mapping[str, Any] | None = None,
) -> M:
    """Validate a loaded JSON value against a generated model, listing every violation.

    ``context`` is Pydantic's validation context (the models read
    ``RULES_DEFERRED`` from it).
    """
    try:
        return model.model_validate(value, context=context)
    except ValidationError as exc:
        violations = [
            Violation(_code(err), format_path(_location(err)), _message(err))
            for err in exc.errors(include_url=False)
        ]
        raise DocumentRefused(violations, what=what or model.__name__) from None
