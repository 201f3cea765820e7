"""Checking the extension's request documents against their generated models.

A breach of a class rule is refused with the rule's own code (APX-EXT-...), not
the generic APC-DOC-REFUSED, so every face refuses the same input the same way.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

from apconform.core.errors import DocumentRefused, registered_codes
from apconform.core.validation import validate_document

__all__ = ["validated"]

M = TypeVar("M", bound=BaseModel)


def validated(model: type[M], value: Any, what: str) -> M:
    """The value as ``model``; refused with every violation, under the first rule's code."""
    try:
        return validate_document(model, value, what=what)
    except DocumentRefused as refused:
        codes = {code.code: code for code in registered_codes()}
        first = refused.violations[0].code
        if first.startswith("APX-EXT-") and first in codes:
            raise DocumentRefused(refused.violations, what=what, code=codes[first]) from None
        raise
