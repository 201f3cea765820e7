"""What every route shares: reading a JSON body safely, answering JSON, and documenting it all.

Routes never let FastAPI parse a body. :func:`read_json` checks the media
type (415), then hands the raw bytes, already bounded by the guard, to the
kit's loader (400 with the loader's code, 413 for size), so the API refuses
exactly what the command line refuses. :func:`route_doc` writes the OpenAPI
for a route by hand: the request body and answer as generated models (so
every pattern, bound and enumeration is visible) and a problem response for
every status the route can return.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import JSONResponse

from apconform.api.guard import REQUEST_ID_HEADER
from apconform.api.problems import CONTENT_TYPE, JSON_MEDIA_TYPE, PROBLEM_MEDIA_TYPE, dump_json
from apconform.core.deadline import call_within
from apconform.core.errors import ApconformError
from apconform.core.jsonload import loads

__all__ = [
    "BODY_STATUSES",
    "GET_STATUSES",
    "OPERATION_STATUSES",
    "PARAMETER_STATUSES",
    "JsonResponse",
    "model_ref",
    "offload",
    "parse_body",
    "read_body",
    "read_json",
    "registered_models",
    "route_doc",
]

T = TypeVar("T")

STATUS_DESCRIPTIONS = {
    400: "Malformed JSON, or a document beyond the loader's depth, node or number limits, "
    "or (operation routes) the operation's refusal.",
    404: "Nothing has this id.",
    408: "The request body did not arrive within the body timeout.",
    409: "The operation refused the input because it conflicts with a declared state.",
    413: "The request body is larger than 1 MiB; refused before it is read.",
    415: "The body is not declared as application/json.",
    422: "The request is well-formed JSON but breaks the schema; every violation is listed.",
    500: "A bug in the server; the problem names the request id to report.",
    503: "The worker is at its concurrency limit, or the request ran past the time limit.",
}
GET_STATUSES = (408, 413, 500, 503)
"""What a route without parameters or body can answer besides 200."""
PARAMETER_STATUSES = (408, 413, 422, 500, 503)
"""... with path or query parameters."""
BODY_STATUSES = (400, 408, 413, 415, 422, 500, 503)
"""... with a JSON body."""
OPERATION_STATUSES = (400, 408, 409, 413, 415, 422, 500, 503)
"""... of an operation route: the body statuses and every status an operation refuses with.
A test checks that every registered error code's ``http_status`` is in this list."""

_MODELS: dict[str, type[BaseModel]] = {}


def model_ref(model: type[BaseModel]) -> dict[str, str]:
    """A ``$ref`` to the model's schema in the OpenAPI components; the model is recorded."""
    known = _MODELS.setdefault(model.__name__, model)
    if known is not model:
        raise ValueError(f"two models named {model.__name__} in the OpenAPI document")
    return {"$ref": f"#/components/schemas/{model.__name__}"}


def registered_models() -> list[type[BaseModel]]:
    """Every model some route refers to, sorted by name (for the OpenAPI components)."""
    return [_MODELS[name] for name in sorted(_MODELS)]


def _headers() -> dict[str, Any]:
    return {
        REQUEST_ID_HEADER: {
            "description": "The request's id: the client's own when well formed, else a new one.",
            "required": True,
            "schema": {"type": "string", "pattern": "^[A-Za-z0-9._:-]{1,128}$"},
        }
    }


def route_doc(
    *,
    answer: type[BaseModel] | dict[str, Any],
    statuses: Iterable[int],
    body: dict[str, Any] | None = None,
    body_examples: dict[str, Any] | None = None,
    answer_description: str = "The answer.",
    answer_examples: dict[int, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Keyword arguments for a FastAPI route decorator that document it completely.

    ``answer_examples`` holds, per status, named response bodies: the answers to the request
    examples of the same names (see :mod:`apconform.api.examples`).
    """
    from apconform.models.api import Problem

    answer_schema = model_ref(answer) if isinstance(answer, type) else answer
    problem = {"schema": model_ref(Problem)}
    responses: dict[int | str, Any] = {
        200: {
            "description": answer_description,
            "content": {JSON_MEDIA_TYPE: {"schema": answer_schema}},
            "headers": _headers(),
        }
    }
    for status in sorted(set(statuses)):
        responses[status] = {
            "description": STATUS_DESCRIPTIONS[status],
            "content": {PROBLEM_MEDIA_TYPE: dict(problem)},
            "headers": _headers(),
        }
    for status, named in sorted((answer_examples or {}).items()):
        if status not in responses:
            raise ValueError(f"an example answers {status}, which the route does not document")
        answered = next(iter(responses[status]["content"].values()))
        answered["examples"] = {name: {"value": value} for name, value in named.items()}
    extra: dict[str, Any] = {}
    if body is not None:
        media: dict[str, Any] = {"schema": body}
        if body_examples:
            media["examples"] = {name: {"value": value} for name, value in body_examples.items()}
        extra["requestBody"] = {"required": True, "content": {JSON_MEDIA_TYPE: media}}
    return {
        "response_model": None,
        "response_class": JsonResponse,
        "responses": responses,
        "openapi_extra": extra,
    }


class JsonResponse(JSONResponse):
    """A JSON answer serialised once, compactly, in UTF-8 (bytes are sent as they are)."""

    def render(self, content: Any) -> bytes:
        return content if isinstance(content, bytes) else dump_json(content)


def _is_json(content_type: str | None) -> bool:
    if content_type is None:
        return False
    media, _, params = content_type.partition(";")
    if media.strip().lower() != JSON_MEDIA_TYPE:
        return False
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() != "utf-8":
            return False
    return True


async def read_body(request: Request) -> bytes:
    """The request body's bytes, once its media type is JSON (415 otherwise)."""
    content_type = request.headers.get("content-type")
    if not _is_json(content_type):
        shown = repr(content_type) if content_type is not None else "no Content-Type header"
        raise ApconformError(
            CONTENT_TYPE, f"the body must be application/json (UTF-8), not {shown}"
        )
    return await request.body()


def parse_body(body: bytes) -> Any:
    """A request body through the bounded loader (400, 413)."""
    return loads(body, source="request body")


async def read_json(request: Request) -> Any:
    """The request body as a JSON value, through the bounded loader (415, 400, 413).

    The parse runs on the worker's thread pool like the operations: a large body costs
    milliseconds of CPU, which would otherwise stall every other request on the event loop.
    """
    return await offload(request, parse_body, await read_body(request))


async def offload(request: Request, func: Callable[..., T], *args: Any) -> T:
    """Run CPU-bound work on the worker's bounded thread pool, so the event loop stays free.

    The work runs under the request timeout as its deadline (``core.deadline``): long
    computations stop once the guard has stopped waiting, instead of holding the thread.
    """
    seconds = request.app.state.settings.request_timeout
    executor = request.app.state.executor
    if executor is None:
        return call_within(seconds, func, *args)
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(executor, call_within, seconds, func, *args)
