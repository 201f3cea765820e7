"""Conformance routes: health and version, vectors, the clause registry, checking one answer.

A submitted answer (or refusal) is compared with the vector's expectation by
:mod:`apconform.conformance.compare`, the same code the harness uses, so the
API's verdict and ``apconform check``'s verdict cannot differ.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from fastapi.routing import APIRoute
from starlette.requests import Request

from apconform.api.catalog import Catalog, LazyCatalog
from apconform.api.example_store import stored
from apconform.api.problems import VECTOR_UNKNOWN, dump_json
from apconform.api.routing import (
    BODY_STATUSES,
    GET_STATUSES,
    PARAMETER_STATUSES,
    JsonResponse,
    model_ref,
    offload,
    read_json,
    route_doc,
)
from apconform.conformance import submission
from apconform.conformance.submission import CheckResultJson
from apconform.conformance.vectors import LoadedVector
from apconform.core.errors import ApconformError
from apconform.models.api import (
    CheckAnswerRequest,
    CheckRefusalRequest,
    CheckResult,
    HealthReport,
    VectorList,
    VersionReport,
)
from apconform.models.conformance import ClauseRegistry, Protocol, Vector

__all__ = ["CHECK_BODY", "add_conformance_routes", "check_submission", "router"]

router = APIRouter()

VECTOR_ID = "^[a-z0-9][a-z0-9._-]*$"
CLAUSE_ID = "^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$"
OPERATION = "^(apx|ap1|kit)\\.[a-z][a-z0-9_]*$"

CHECK_BODY: dict[str, Any] = {
    "anyOf": [model_ref(CheckAnswerRequest), model_ref(CheckRefusalRequest)],
    "description": "Either an answer (member answer) or a refusal (member refusal) for one vector.",
}
CHECK_EXAMPLES = {
    "answer": {
        "vectorId": "kit-jcs-negative-zero",
        "answer": {
            "canonical": '{"z":0}',
            "sha256": "e313adcae40818c4a48a6f5a32c7ab937365ffb0962282a5bf1a629f8d456b63",
        },
    },
    "refusal": {"vectorId": "kit-load-depth-33", "refusal": {"code": "APC-JSON-DEPTH"}},
}
EXAMPLE_VECTOR = "kit-jcs-negative-zero"
EXAMPLE_OPERATION = "kit.canonicalize"
"""The operation of the example vector: the filter of the vector list's example."""


_HEALTH = dump_json({"status": "ok"})


async def _catalog(request: Request) -> Catalog:
    """The worker's catalog; the first requests may wait for it to load (on the thread pool)."""
    lazy: LazyCatalog = request.app.state.catalog
    loaded = lazy.ready
    if loaded is not None:
        return loaded
    return await offload(request, lazy.get)


@router.get(
    "/v1/health",
    tags=["service"],
    operation_id="health",
    summary="Whether the server answers",
    description="Liveness: the API holds no state, so a server that answers is healthy. "
    'The answer is always `{"status": "ok"}`.',
    **route_doc(answer=HealthReport, statuses=GET_STATUSES),
)
async def health(request: Request) -> JsonResponse:
    catalog = request.app.state.catalog
    if catalog is not None:
        catalog.warm(after=0)  # the worker answers: load what the other routes read
    return JsonResponse(_HEALTH)


@router.get(
    "/v1/version",
    tags=["service"],
    operation_id="version",
    summary="Kit version and the digests of the schemas, clauses and vectors served",
    description="What this server is: the kit release, the API version, the SHA-256 of the "
    "canonical form of every generated JSON Schema, of the clause registry and of the vector "
    "manifest, and the operations it serves. Two deployments with the same digests give the "
    "same answers.",
    **route_doc(answer=VersionReport, statuses=GET_STATUSES),
)
async def version(request: Request) -> JsonResponse:
    return JsonResponse((await _catalog(request)).serialized["version"])


@router.get(
    "/v1/conformance/clauses",
    tags=["conformance"],
    operation_id="get_clause_registry",
    summary="The clause registry",
    description="Every normative clause of AP-1, APx and the kit (`spec/clauses.json`): its id, "
    "level (MUST, SHOULD, MAY), the quoted text and its SHA-256.",
    **route_doc(answer=ClauseRegistry, statuses=GET_STATUSES),
)
async def clauses(request: Request) -> JsonResponse:
    return JsonResponse((await _catalog(request)).serialized["clauses"])


@router.get(
    "/v1/conformance/vectors",
    tags=["conformance"],
    operation_id="list_vectors",
    summary="List the vectors, optionally filtered",
    description="A summary of every vector (id, protocol, operation, clauses, tags, expected "
    "kind), narrowed by any of the query parameters; every filter given must hold. The whole "
    "vector, with its input and expectation, is `GET /v1/conformance/vectors/{vector_id}`.",
    **route_doc(answer=VectorList, statuses=PARAMETER_STATUSES),
)
async def list_vectors(
    request: Request,
    protocol: Annotated[Protocol | None, Query(description="Only this protocol.")] = None,
    clause: Annotated[
        str | None, Query(pattern=CLAUSE_ID, description="Only vectors citing this clause id.")
    ] = None,
    operation: Annotated[
        str | None,
        Query(
            pattern=OPERATION,
            description="Only vectors of this operation.",
            examples=[EXAMPLE_OPERATION],
        ),
    ] = None,
    tag: Annotated[
        str | None, Query(min_length=1, max_length=128, description="Only vectors with this tag.")
    ] = None,
) -> JsonResponse:
    catalog = await _catalog(request)
    if protocol is None and clause is None and operation is None and tag is None:
        return JsonResponse(catalog.serialized["vectors"])
    chosen = catalog.select(
        protocol=None if protocol is None else str(Protocol(protocol).value),
        clause=clause,
        operation=operation,
        tag=tag,
    )
    return JsonResponse(dump_json({"count": len(chosen), "vectors": chosen}))


def _vector(catalog: Catalog, vector_id: str) -> LoadedVector:
    found = catalog.vectors.get(vector_id)
    if found is None:
        raise ApconformError(
            VECTOR_UNKNOWN, f"no vector has the id {vector_id!r}", path="$.vectorId"
        )
    return found


@router.get(
    "/v1/conformance/vectors/{vector_id}",
    tags=["conformance"],
    operation_id="get_vector",
    summary="One vector, with its input and expectation",
    description="The vector document as the kit ships it (`vectors/**/<id>.json`). An id no "
    "vector has is answered 404 `APC-HTTP-VECTOR-UNKNOWN`.",
    **route_doc(answer=Vector, statuses=(404, *PARAMETER_STATUSES)),
)
async def get_vector(
    request: Request,
    vector_id: Annotated[
        str,
        Path(pattern=VECTOR_ID, max_length=128, description="The id.", examples=[EXAMPLE_VECTOR]),
    ],
) -> JsonResponse:
    return JsonResponse(_vector(await _catalog(request), vector_id).document)


def check_submission(catalog: Catalog, value: Any) -> CheckResultJson:
    """Validate one submission and compare it with its vector's expectation."""
    return submission.check_submission(value, lambda vector_id: _vector(catalog, vector_id))


@router.post(
    "/v1/conformance/check",
    tags=["conformance"],
    operation_id="check",
    summary="Check one answer or refusal against one vector",
    description="Compares what an implementation answered to a vector's input (member `answer`) "
    "or the code it refused with (member `refusal`) with the vector's expectation, with the "
    "comparison code `apconform check` uses, so both give the same verdict. A mismatch is a "
    "200 answer with verdict fail and every mismatch listed; 404 means no vector has the id.",
    **route_doc(
        answer=CheckResult,
        statuses=(404, *BODY_STATUSES),
        body=CHECK_BODY,
        body_examples=CHECK_EXAMPLES,
    ),
)
async def check(request: Request) -> JsonResponse:
    value = await read_json(request)
    result = await offload(request, check_submission, await _catalog(request), value)
    return JsonResponse(result)


def _response_examples() -> dict[str, dict[str, dict[str, Any]]]:
    """Per operation id, the answers to its examples, computed from the vectors.

    The version report and the clause registry are this installation's own; the vector list is
    the answer to ``?operation=`` the example vector's operation (the whole list is long).
    """
    from apconform.api.catalog import vector_summary, version_report
    from apconform.api.examples import (
        answer_examples,
        loaded_vector,
        shipped_vectors,
        vector_document,
    )
    from apconform.conformance.clauses import load_clause_registry

    checked = answer_examples(
        CHECK_EXAMPLES, lambda value: submission.check_submission(value, loaded_vector)
    )
    clauses = load_clause_registry()
    listed = [
        vector_summary(item)
        for item in shipped_vectors()
        if item.vector.operation == EXAMPLE_OPERATION
    ]
    return {
        "health": {"200": {"ok": {"status": "ok"}}},
        "version": {"200": {"this-release": version_report(clauses)}},
        "get_clause_registry": {
            "200": {"spec-clauses": clauses.registry.model_dump(mode="json", exclude_unset=True)}
        },
        "list_vectors": {
            "200": {f"operation={EXAMPLE_OPERATION}": {"count": len(listed), "vectors": listed}}
        },
        "get_vector": {
            "200": {
                EXAMPLE_VECTOR: vector_document(EXAMPLE_VECTOR).model_dump(
                    mode="json", exclude_unset=True
                )
            }
        },
        "check": {str(status): named for status, named in checked.responses.items()},
    }


def add_conformance_routes(target: APIRouter) -> None:
    """Put this module's routes directly on ``target`` (the application's own router).

    The response examples are filled in here, not when the module is imported, because they
    read the vectors.
    """
    stored_examples = stored("conformance", _response_examples)
    examples = {
        operation: {int(status): named for status, named in answers.items()}
        for operation, answers in stored_examples.items()
    }
    for route in router.routes:
        if isinstance(route, APIRoute) and route.operation_id in examples:
            for status, named in examples[route.operation_id].items():
                content = route.responses[status]["content"]
                media = next(iter(content.values()))
                media["examples"] = {name: {"value": value} for name, value in named.items()}
    target.routes.extend(router.routes)
