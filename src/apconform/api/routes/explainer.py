"""The APx explainer at ``GET /v1/apx/explainer``: edit a small campaign, see the kernel score it.

An offline page: its HTML, script and style are files shipped in the wheel
(``apconform/api/explainer/``) and served by this server, and its
Content-Security-Policy lets it load or call nothing else. The page computes
nothing itself: it sends the campaign to ``POST /v1/apx/freeze`` and
``POST /v1/apx/evaluate`` and shows their answers. Like the interactive docs,
the page and its files are not operations of the API and are left out of the
OpenAPI document.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from apconform.api.problems import NOT_FOUND
from apconform.api.routes.docs import POLICY
from apconform.core.errors import ApconformError

__all__ = ["ASSETS", "EXPLAINER_PATH", "add_explainer_routes"]

EXPLAINER_PATH = "/v1/apx/explainer"
FOLDER = Path(__file__).resolve().parent.parent / "explainer"
ASSETS = {
    "explainer.js": "text/javascript; charset=utf-8",
    "explainer.css": "text/css; charset=utf-8",
}
"""The page's files, with their media types; no other name is served."""


@cache
def _read(name: str) -> bytes:
    return (FOLDER / name).read_bytes()


def _headers() -> dict[str, str]:
    return {"Content-Security-Policy": POLICY, "X-Content-Type-Options": "nosniff"}


async def _page(request: Request) -> Response:
    return Response(_read("index.html"), media_type="text/html; charset=utf-8", headers=_headers())


async def _file(request: Request) -> Response:
    name = str(request.path_params["name"])
    if name not in ASSETS:
        raise ApconformError(NOT_FOUND, f"the explainer has no file {name!r}")
    return Response(_read(name), media_type=ASSETS[name], headers=_headers())


def add_explainer_routes(router: APIRouter) -> None:
    """Mount the explainer page and its files (outside the OpenAPI document)."""
    router.add_route(EXPLAINER_PATH, _page, methods=["GET"], include_in_schema=False)
    router.add_route(EXPLAINER_PATH + "/{name}", _file, methods=["GET"], include_in_schema=False)
