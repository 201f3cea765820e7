"""One validation route per document type: ``POST /v1/documents/<type>/validate``.

The HTTP form of ``apconform validate --type <type>``: the body is the
document, validated against its generated model; the answer names the type
and the digest of the document's canonical form, and a document that breaks
its schema is refused with 422 and every violation. The body schema in the
OpenAPI document is the generated model itself, so a fuzzer tries every
pattern, bound and enumeration of every document the kit defines. Its example is a
real instance (see :mod:`apconform.api.examples` and :mod:`apconform.api.example_runs`).
A new document type gets its route without any change here.
"""

from __future__ import annotations

import importlib
from functools import partial
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel
from starlette.requests import Request

from apconform.api.example_runs import run_example
from apconform.api.example_store import route_examples
from apconform.api.examples import RouteExamples, answer_examples, document_example
from apconform.api.routing import (
    BODY_STATUSES,
    JsonResponse,
    model_ref,
    offload,
    read_json,
    route_doc,
)
from apconform.core.canonical import sha256_hex
from apconform.core.validation import validate_document
from apconform.models import DOCUMENTS
from apconform.models.api import ValidationReport

__all__ = ["add_document_routes", "document_path"]


def document_path(document: str) -> str:
    """``apx-manifest`` -> ``/v1/documents/apx-manifest/validate``."""
    return f"/v1/documents/{document}/validate"


def _model(document: str) -> type[BaseModel]:
    module, name = DOCUMENTS[document]
    model: type[BaseModel] = getattr(importlib.import_module(f"apconform.models.{module}"), name)
    return model


def _validate(document: str, model: type[BaseModel], value: Any) -> dict[str, str]:
    validate_document(model, value, what=f"{document} document")
    return {"document": document, "sha256": sha256_hex(value)}


def _endpoint(document: str, model: type[BaseModel]) -> Any:
    async def validate(request: Request) -> JsonResponse:
        value = await read_json(request)
        return JsonResponse(await offload(request, _validate, document, model, value))

    validate.__name__ = "validate_" + document.replace("-", "_")
    return validate


def _examples(document: str, model: type[BaseModel]) -> RouteExamples:
    """The document's real instance (see the module docstring) and the route's answer to it."""
    found = document_example(document) or run_example(document)
    return answer_examples(
        {} if found is None else {found[0]: found[1]}, partial(_validate, document, model)
    )


def add_document_routes(router: APIRouter) -> list[str]:
    """Mount one validation route per document type; return the document names."""
    names = sorted(DOCUMENTS)
    for document in names:
        model = _model(document)
        examples = route_examples(f"document:{document}", partial(_examples, document, model))
        router.add_api_route(
            document_path(document),
            _endpoint(document, model),
            methods=["POST"],
            tags=["documents"],
            summary=f"Validate a {document} document against its schema",
            description=(
                f"The HTTP form of `apconform validate --type {document}`: the body is the "
                f"document, checked against the generated schema `{model.__name__}` (every "
                "pattern, bound and enumeration). A document that meets it is answered with the "
                "SHA-256 of its canonical form (RFC 8785); one that breaks it is refused with 422 "
                "`APC-DOC-REFUSED`, listing every violation with its path. Only the schema is "
                "checked: the protocol's own rules (hashes, relations between members) are the "
                "operation routes' work."
            ),
            operation_id="validate_" + document.replace("-", "_"),
            **route_doc(
                answer=ValidationReport,
                statuses=BODY_STATUSES,
                body=model_ref(model),
                body_examples=examples.requests,
                answer_description="The document meets its schema.",
                answer_examples=examples.responses,
            ),
        )
    return names
