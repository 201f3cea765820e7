"""Each vector operation's contract: the schema of its input and of its answer, its refusal codes.

The contracts are declared in the LinkML schemas (``schemas/*_operations.yaml``)
and generated into Pydantic models, one JSON Schema per side
(``schemas/operations/``) and the index :mod:`apconform.models.operation_index`.
The reference operations check their input against it before they run (an
input that breaks it is refused with APC-OP-INPUT, 422 over HTTP, at the path
of the first bad member); the harness checks the inputs it sends and, with
``--validate-protocol``, every answer it receives.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import BaseModel

from apconform.core.errors import DocumentRefused, define_code
from apconform.core.jsonpath import format_path
from apconform.core.schemas import schema_validator
from apconform.core.validation import validate_document
from apconform.models import RULES_DEFERRED
from apconform.models.operation_index import OPERATIONS
from apconform.resources import data_path

__all__ = [
    "BAD_OPERATION_INPUT",
    "CATALOGUE_PAGE",
    "OperationContract",
    "answer_problems",
    "check_input",
    "contract_names",
    "input_problems",
    "operation_contract",
]

CATALOGUE_PAGE = "docs/operations/index.md"
"""Where the documentation lists every operation with its input, answer and refusals."""

BAD_OPERATION_INPUT = define_code(
    "APC-OP-INPUT",
    "The operation's input does not have the shape the operation needs",
    "Compare the input with the operation's input schema in the operation catalogue "
    f"({CATALOGUE_PAGE}, or `apconform vectors list --operation NAME` for its vectors); "
    "the path names the first member that breaks it.",
    http_status=422,
)


@dataclass(frozen=True)
class OperationContract:
    """What one operation takes, what it answers and which codes it refuses with."""

    name: str
    input_model: type[BaseModel]
    answer_model: type[BaseModel]
    refusals: tuple[str, ...]
    summary: str
    messages: tuple[str, ...] = ()
    """JSON pointers of the answer members that are messages (informative, KIT-VEC-3)."""

    def schema(self, side: str) -> dict[str, Any]:
        """The published JSON Schema of the "input" or the "answer"."""
        return _schema_file(self.name, side)


def _model(entry: tuple[str, str]) -> type[BaseModel]:
    module, name = entry
    found: type[BaseModel] = getattr(importlib.import_module(f"apconform.models.{module}"), name)
    return found


@cache
def operation_contract(name: str) -> OperationContract | None:
    """The contract of an operation, or None for an operation the schemas do not declare."""
    entry = OPERATIONS.get(name)
    if entry is None:
        return None
    return OperationContract(
        name=name,
        input_model=_model(entry["input"]),
        answer_model=_model(entry["answer"]),
        refusals=tuple(entry["refusals"]),
        summary=str(entry["summary"]),
        messages=tuple(entry.get("informative", ())),
    )


def contract_names() -> list[str]:
    """Every operation the schemas declare a contract for, sorted."""
    return sorted(OPERATIONS)


def check_input(name: str, value: Any) -> None:
    """Refuse an input that breaks the operation's input schema (APC-OP-INPUT, every violation).

    A class rule with its own code (a sampling setting's form, the configuration's limits)
    is left to the operation, whose loader refuses a breach with that code, at its path,
    beside its other findings, as it does for a free-form document.
    """
    contract = operation_contract(name)
    if contract is None:
        return
    try:
        validate_document(
            contract.input_model, value, what=f"the input of {name}", context=RULES_DEFERRED
        )
    except DocumentRefused as refused:
        raise DocumentRefused(
            refused.violations, what=f"the input of {name}", code=BAD_OPERATION_INPUT
        ) from None


@cache
def _schema_file(name: str, side: str) -> dict[str, Any]:
    path = data_path("schemas", "operations", f"{name}.{side}.schema.json")
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def _problems(name: str, side: str, value: Any) -> list[str]:
    if operation_contract(name) is None:
        return []
    validator = schema_validator(_schema_file(name, side))
    errors = sorted(validator.iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path])
    return [f"{format_path(list(error.absolute_path))}: {error.message}" for error in errors]


def input_problems(name: str, value: Any) -> list[str]:
    """Where an input breaks the operation's published input schema, one line each."""
    return _problems(name, "input", value)


def answer_problems(name: str, value: Any) -> list[str]:
    """Where an answer breaks the operation's published answer schema, one line each."""
    return _problems(name, "answer", value)
