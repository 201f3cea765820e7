"""The OpenAPI 3.1 document: FastAPI's paths, with the generated models as the components.

Routes document their bodies by ``$ref`` (see :func:`apconform.api.routing.route_doc`);
this module adds the JSON Schema of every referenced model, produced by
Pydantic from the generated models, so the published document carries every
pattern, bound and enumeration of the LinkML schemas. The same function
builds the document the server serves at ``/v1/openapi.json`` and the
committed ``schemas/openapi.json``.
"""

from __future__ import annotations

import importlib
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from apconform import __version__
from apconform.api.routing import model_ref, registered_models
from apconform.core.errors import UsageError

__all__ = ["DESCRIPTION", "LEDGER_DESCRIPTION", "build_openapi", "document_model"]

DESCRIPTION = """\
The apconform reference implementation as a service. It holds no state:
every answer depends only on the request and the kit release
(see `GET /v1/version`).

Every request body is JSON (`Content-Type: application/json`, UTF-8) of at
most 1 MiB, parsed by the kit's bounded loader (depth 32, 100,000 values, no
duplicate keys, no NaN). Every failure is an RFC 9457 problem document
(`application/problem+json`) with a stable `code`; every response carries
`X-Request-Id`.

Operation `<protocol>.<name>` is `POST /v1/<protocol>/<name>` (underscores
in the name become hyphens): the body is a vector's input, a 200 answer is
the operation's answer, and a refusal is a 4xx problem whose `code` is the
refusal's error code and whose `detail` is its message. Every operation
route is typed by the operation's contract (the input and answer classes of
the operation catalogue): a body that breaks the input class is refused with
422 `APC-OP-INPUT` at its first bad member before the operation runs. The APx
routes (`validate-manifest`, `validate-run`, `freeze`, `evaluate`, `compare`)
and `ap1/score-execution` document their bodies with the stricter document
models; the protocol's own rules run next, so a refusal carries the
protocol's code and wording (422), and the body is then checked against its
documented schema.
"""

LEDGER_DESCRIPTION = """\
The routes a server started with `apconform serve --ledger URL` adds to the
stateless API (whose document is `schemas/openapi.json`): submit a result to
the results ledger, list and fetch entries, and the implementations x clauses
matrix. A server without a ledger does not serve them (404). The bodies,
limits and problem documents are those of the stateless API; a submission is
verified completely before it is stored, and concurrent submissions form one
linear chain.
"""

TAGS = [
    {"name": "service", "description": "Liveness and what this server is."},
    {"name": "conformance", "description": "Vectors, clauses and checking answers."},
    {"name": "documents", "description": "Validating a document against its schema."},
    {"name": "kit", "description": "The kit's own operations (canonical JSON, bounded loading)."},
    {"name": "apx", "description": "APx 0.1 operations."},
    {"name": "ap1", "description": "AP-1 operations."},
    {"name": "ledger", "description": "The results ledger (only with --ledger)."},
]


def document_model(document: str) -> dict[str, str]:
    """A ``$ref`` to the generated model of a document type, e.g. ``apx-manifest``."""
    from apconform.models import DOCUMENTS

    if document not in DOCUMENTS:
        raise UsageError(f"unknown document type {document!r} in an operation's inputs")
    module, name = DOCUMENTS[document]
    model: type[BaseModel] = getattr(importlib.import_module(f"apconform.models.{module}"), name)
    return model_ref(model)


def _components(models: list[type[BaseModel]]) -> dict[str, Any]:
    _, top = models_json_schema(
        [(model, "validation") for model in models],
        ref_template="#/components/schemas/{model}",
    )
    definitions: dict[str, Any] = top.get("$defs", {})
    for definition in definitions.values():
        _standard_bounds(definition)
    return {name: definitions[name] for name in sorted(definitions)}


_BOUNDS = {"ge": "minimum", "le": "maximum", "gt": "exclusiveMinimum", "lt": "exclusiveMaximum"}


def _standard_bounds(value: Any) -> None:
    """Rename the ``ge``/``le`` keys Pydantic leaves on validator-wrapped numbers to JSON Schema's.

    The generated models wrap integers in a before-validator, and Pydantic then
    writes their bounds under its own names, which no JSON Schema tool reads.
    """
    if isinstance(value, dict):
        if value.get("type") in ("integer", "number"):
            for key, standard in _BOUNDS.items():
                if key in value:
                    value[standard] = value.pop(key)
        for child in value.values():
            _standard_bounds(child)
    elif isinstance(value, list):
        for child in value:
            _standard_bounds(child)


def build_openapi(
    app: FastAPI, *, title: str = "apconform HTTP API", description: str = DESCRIPTION
) -> dict[str, Any]:
    """The complete OpenAPI document of an app made by :func:`apconform.api.create_app`."""
    document = get_openapi(
        title=title,
        version=__version__,
        openapi_version="3.1.0",
        summary="Conformance kit for AP-1 and APx: the reference implementation over HTTP.",
        description=description,
        routes=app.routes,
        tags=TAGS,
        license_info={"name": "Apache-2.0", "identifier": "Apache-2.0"},
    )
    used = {
        tag
        for path in document["paths"].values()
        for op in path.values()
        for tag in op.get("tags", ())
    }
    document["tags"] = [tag for tag in TAGS if tag["name"] in used]
    for path in document["paths"].values():
        for operation in path.values():
            for parameter in operation.get("parameters", ()):
                if not parameter.get("required"):
                    _drop_null(parameter["schema"])
    referenced = _refs(document["paths"])
    models = [model for model in registered_models() if model.__name__ in referenced]
    document.setdefault("components", {})["schemas"] = _components(models)
    return document


def _drop_null(schema: dict[str, Any]) -> None:
    """An optional parameter is omitted, never sent as null: say so in its schema."""
    options = schema.get("anyOf")
    if isinstance(options, list):
        kept = [option for option in options if option.get("type") != "null"]
        if len(kept) == 1:
            del schema["anyOf"]
            schema.update(kept[0])
        else:
            schema["anyOf"] = kept


def _refs(value: Any) -> set[str]:
    """Names of the component schemas a part of the document refers to directly."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
                found.add(ref.rsplit("/", 1)[1])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found
