"""Every registered operation as a route: ``<protocol>.<name>`` is ``POST /v1/<protocol>/<name>``.

This is the convention the harness's ``http:`` adapter speaks: the JSON body
is the vector's input, a 2xx JSON body is the answer, and a refusal is a 4xx
``application/problem+json`` whose ``code`` is the refusal's error code (and
whose ``detail`` is its message). The reference operation receives the input
unchanged, so the API refuses with exactly the codes the library refuses with.

Routes are made for every operation in the registry; nothing needs adding for
a new one. To type a route in the OpenAPI document, list the operation's
answer model in :data:`ANSWERS`. The documents inside an input come from the
registry's ``inputs=`` declaration and appear as their generated models.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel
from starlette.requests import Request

from apconform.api.routing import OPERATION_STATUSES, JsonResponse, offload, read_json, route_doc
from apconform.conformance.operations import get_operation, input_documents, operation_names
from apconform.models.api import KitCanonicalizeAnswer, KitParseAnswer

__all__ = ["ANSWERS", "INPUTS", "add_operation_routes", "input_schema", "operation_path"]

ANSWERS: dict[str, type[BaseModel]] = {
    "kit.canonicalize": KitCanonicalizeAnswer,
    "kit.parse": KitParseAnswer,
}
"""The generated model of each operation's answer (untyped operations answer any JSON)."""

INPUTS: dict[str, dict[str, Any]] = {
    "kit.canonicalize": {
        "type": "object",
        "required": ["value"],
        "properties": {"value": {"description": "Any JSON value to canonicalise and hash."}},
        "examples": [{"value": {"b": 1.0, "a": [1e21, 0.000001, "\u20ac"]}}],
    },
    "kit.parse": {
        "type": "object",
        "required": ["text"],
        "properties": {
            "text": {"type": "string", "description": "The JSON text to parse."},
            "padToBytes": {
                "type": "integer",
                "description": "Right-pad the UTF-8 text with spaces to this many bytes.",
            },
        },
        "examples": [
            {"text": '{"a": [1, 2.5, "x", true, null]}'},
            {"text": "[]", "padToBytes": 64},
        ],
    },
}
"""Input schemas of the kit's own operations, which take no generated document.

They describe exactly what the operation accepts (open objects, as the
operations ignore members they do not use); an operation's refusal of a
schema-valid input is an answer, not an error."""


def operation_path(name: str) -> str:
    """``apx.evaluate`` -> ``/v1/apx/evaluate``; underscores in the name become hyphens."""
    protocol, _, short = name.partition(".")
    return f"/v1/{protocol}/{short.replace('_', '-')}"


def input_schema(name: str) -> dict[str, Any]:
    """The documented input: a kit schema, or free JSON naming the documents it carries.

    A vector operation takes whatever input a vector gives it and answers or
    refuses by the protocol's own rules (a manifest with a wrong hash is refused
    with the protocol's code, not with a schema violation), so its body is
    documented as free JSON; the typed document routes carry the schemas.
    """
    if name in INPUTS:
        return INPUTS[name]
    documents = input_documents(name)
    carried = ", ".join(
        f"{doc} at {pointer or 'the root'}" for pointer, doc in sorted(documents.items())
    )
    text = f"The input of {name}, as a vector carries it"
    return {"description": text + (f" ({carried})." if carried else ".")}


def _endpoint(name: str) -> Any:
    operation = get_operation(name)

    async def run(request: Request) -> JsonResponse:
        value = await read_json(request)
        answer = await offload(request, operation, value)
        return JsonResponse(answer)

    run.__name__ = "op_" + name.replace(".", "_")
    return run


def add_operation_routes(router: APIRouter, *, skip: Iterable[str] = ()) -> list[str]:
    """Mount one route per registered operation; return the operation names.

    Paths in ``skip`` already have a typed route (see :mod:`apconform.api.typed`),
    which then serves the operation's vectors.
    """
    names = operation_names()
    taken = set(skip)
    for name in names:
        if operation_path(name) in taken:
            continue
        answer: type[BaseModel] | dict[str, Any] = ANSWERS.get(
            name, {"description": f"The answer of {name}: any JSON value."}
        )
        router.add_api_route(
            operation_path(name),
            _endpoint(name),
            methods=["POST"],
            tags=[name.partition(".")[0]],
            summary=f"Run {name}",
            operation_id=name.replace(".", "_"),
            **route_doc(
                answer=answer,
                statuses=OPERATION_STATUSES,
                body=input_schema(name),
                answer_description=f"The answer of {name}.",
            ),
        )
    return names
