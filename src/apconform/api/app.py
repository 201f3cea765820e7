"""The application factory: routes, error handlers, the guard, and the served OpenAPI document."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from apconform.api.catalog import LazyCatalog
from apconform.api.guard import RequestGuard, request_id_of
from apconform.api.ledger_service import LedgerService
from apconform.api.openapi import LEDGER_DESCRIPTION, build_openapi
from apconform.api.problems import (
    METHOD,
    NOT_FOUND,
    PARAMETER,
    PROBLEM_MEDIA_TYPE,
    REQUEST,
    dump_json,
    problem_body,
)
from apconform.api.routes.ap1 import AP1_ROUTES
from apconform.api.routes.ap1_scoring import AP1_SCORING_ROUTES
from apconform.api.routes.apx import APX_ROUTES
from apconform.api.routes.conformance import add_conformance_routes
from apconform.api.routes.docs import add_docs_routes
from apconform.api.routes.documents import add_document_routes
from apconform.api.routes.explainer import add_explainer_routes
from apconform.api.routes.ledger import add_ledger_routes, state_policy
from apconform.api.routes.operations import add_operation_routes
from apconform.api.routing import JsonResponse
from apconform.api.settings import ApiSettings
from apconform.api.typed import add_typed_routes
from apconform.core.errors import ApconformError, DocumentRefused, Violation
from apconform.core.jsonpath import format_path

__all__ = [
    "OPENAPI_PATH",
    "add_problem_handlers",
    "create_app",
    "ledger_openapi_text",
    "openapi_text",
]

OPENAPI_PATH = "/v1/openapi.json"
FROM_ENV = "from-environment"


def _problem(request: Request, error: ApconformError, headers: Any = None) -> Response:
    status, body = problem_body(error, request_id_of(request.scope))
    return Response(body, status_code=status, media_type=PROBLEM_MEDIA_TYPE, headers=headers)


async def _on_kit_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApconformError)
    return _problem(request, exc)


async def _on_parameters(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    violations = []
    for error in exc.errors():
        location = [part for part in error.get("loc", ()) if isinstance(part, str | int)]
        message = str(error.get("msg", "invalid value"))
        violations.append(Violation(PARAMETER.code, format_path(location), message))
    refused = DocumentRefused(
        violations or [Violation(PARAMETER.code, "$", "invalid")], what="request"
    )
    refused.error_code = PARAMETER
    refused.hint = PARAMETER.hint
    return _problem(request, refused)


async def _on_http(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        hint = getattr(request.app.state, "not_found_hint", None)
        error = ApconformError(NOT_FOUND, f"no route has the path {request.url.path!r}", hint=hint)
    elif exc.status_code == 405:
        error = ApconformError(METHOD, f"{request.method} is not allowed on {request.url.path!r}")
        return _problem(request, error, {"Allow": _allowed(request)})
    else:
        error = ApconformError(REQUEST, str(exc.detail))
    return _problem(request, error, exc.headers)


def _allowed(request: Request) -> str:
    """Every method some route serves on the request's path (one path can have several routes,
    such as GET and POST /v1/ledger/entries; Starlette would name only the first one's)."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        pattern = getattr(route, "path_regex", None)
        if pattern is not None and pattern.match(request.url.path):
            methods |= set(getattr(route, "methods", None) or ())
    return ", ".join(sorted(methods))


def add_problem_handlers(app: FastAPI, *, not_found_hint: str | None = None) -> None:
    """Answer kit errors, parameter faults and unknown routes or methods with problem documents
    (another FastAPI application of the kit, such as the adjudication application, uses them;
    ``not_found_hint`` replaces the advice given for an unknown path)."""
    app.state.not_found_hint = not_found_hint
    app.add_exception_handler(ApconformError, _on_kit_error)
    app.add_exception_handler(RequestValidationError, _on_parameters)
    app.add_exception_handler(HTTPException, _on_http)


def create_app(
    settings: ApiSettings | None = None,
    *,
    extra: APIRouter | None = None,
    load_catalog: bool = True,
    ledger: LedgerService | str | None = FROM_ENV,
) -> FastAPI:
    """Build the API. ``settings`` default to the ``APCONFORM_API_*`` environment variables.

    ``extra`` mounts more routes (tests use it to plant a faulty route). The
    clause registry and vectors the conformance routes serve are loaded beside
    serving, not before it (see :mod:`apconform.api.catalog`); the OpenAPI
    examples are read from the file the generation command writes (see
    :mod:`apconform.api.example_store`). ``load_catalog=False`` serves no
    catalog, for building the OpenAPI document, which must not depend on the
    data (the generation command builds it while the data may be mid-edit). ``ledger``
    adds the ledger routes (default: from ``APCONFORM_API_LEDGER``; ``None``:
    none, the API stays stateless).
    """
    config = settings if settings is not None else ApiSettings.from_env()
    service = LedgerService.from_env() if ledger == FROM_ENV else ledger
    app = FastAPI(
        title="apconform HTTP API",
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
        separate_input_output_schemas=False,
    )
    app.state.settings = config
    app.state.ledger = service
    app.state.catalog = LazyCatalog() if load_catalog else None
    if load_catalog:
        app.state.catalog.warm()
    app.state.executor = (
        ThreadPoolExecutor(config.threads, thread_name_prefix="apconform-api")
        if config.threads
        else None
    )
    # Routes are added to the application's own router, not included from
    # others: FastAPI matches an included router's routes again when it hands
    # the request over, which tripled the cost of finding a route.
    add_conformance_routes(app.router)
    typed = add_typed_routes(app.router, (*APX_ROUTES, *AP1_ROUTES, *AP1_SCORING_ROUTES))
    add_document_routes(app.router)
    add_operation_routes(app.router, skip=typed)
    if isinstance(service, LedgerService):
        add_ledger_routes(app.router)
    if extra is not None:
        app.include_router(extra)
    add_problem_handlers(app)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build_openapi(app)
            if isinstance(service, LedgerService):
                state_policy(app.openapi_schema, service)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    served: list[bytes] = []

    async def openapi_document(request: Request) -> Response:
        if not served:
            served.append(dump_json(app.openapi()))
        return JsonResponse(served[0])

    app.add_route(OPENAPI_PATH, openapi_document, include_in_schema=False)
    add_docs_routes(app.router)
    add_explainer_routes(app.router)
    app.add_middleware(RequestGuard, settings=config)
    return app


def openapi_text(app: FastAPI | None = None) -> str:
    """The OpenAPI document as the deterministic text committed in ``schemas/openapi.json``."""
    if app is None:
        app = create_app(load_catalog=False, ledger=None)
    return json.dumps(app.openapi(), indent=2, ensure_ascii=False) + "\n"


def ledger_openapi_text() -> str:
    """The OpenAPI document of the ledger routes alone (``schemas/openapi-ledger.json``)."""
    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
    add_ledger_routes(app.router)
    document = build_openapi(
        app, title="apconform HTTP API: ledger routes", description=LEDGER_DESCRIPTION
    )
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
