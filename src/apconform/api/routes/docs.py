"""Interactive API docs at ``GET /v1/docs``: Swagger UI on the server's own OpenAPI document.

Everything the page loads is served by this server from files shipped in the
wheel (``apconform/api/swagger_ui/``, vendored from the npm package
swagger-ui-dist, see its ``VENDORED.md``), so the page works on a machine
without network; its Content-Security-Policy lets it load nothing from
anywhere else. The page and its assets are not operations of the API and are
left out of the OpenAPI document.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from apconform.api.problems import NOT_FOUND
from apconform.core.errors import ApconformError

__all__ = ["ASSETS", "DOCS_PATH", "SWAGGER_UI_VERSION", "add_docs_routes", "docs_page"]

DOCS_PATH = "/v1/docs"
SWAGGER_UI_VERSION = "5.35.0"
ASSETS_DIR = Path(__file__).resolve().parent.parent / "swagger_ui"
ASSETS = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
    "apconform-docs.js": "text/javascript; charset=utf-8",
    "favicon-32x32.png": "image/png",
    "LICENSE": "text/plain; charset=utf-8",
    "NOTICE": "text/plain; charset=utf-8",
    "swagger-ui-bundle.js.LICENSE.txt": "text/plain; charset=utf-8",
    "VENDORED.md": "text/markdown; charset=utf-8",
}
"""Every file the docs routes serve, with its media type; no other name is served."""

POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)
"""Only this server's own files: the browser itself refuses anything from elsewhere."""


def docs_page() -> str:
    """The HTML page; every URL in it is relative to ``/v1/``, so a path prefix keeps working."""
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>apconform HTTP API: interactive docs</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
<link rel="icon" type="image/png" href="docs/favicon-32x32.png">
</head>
<body>
<noscript>The interactive docs need JavaScript; the OpenAPI document itself is
<a href="openapi.json">openapi.json</a>.</noscript>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/apconform-docs.js"></script>
<!-- Swagger UI {SWAGGER_UI_VERSION} (Apache-2.0), served by this server: docs/LICENSE -->
</body>
</html>
"""


@cache
def _asset(name: str) -> bytes:
    return (ASSETS_DIR / name).read_bytes()


def _headers() -> dict[str, str]:
    return {"Content-Security-Policy": POLICY, "X-Content-Type-Options": "nosniff"}


async def _page(request: Request) -> Response:
    return Response(docs_page(), media_type="text/html; charset=utf-8", headers=_headers())


async def _file(request: Request) -> Response:
    name = str(request.path_params["name"])
    if name not in ASSETS:
        raise ApconformError(NOT_FOUND, f"the docs have no file {name!r}")
    headers = {**_headers(), "Cache-Control": "public, max-age=86400"}
    return Response(_asset(name), media_type=ASSETS[name], headers=headers)


def add_docs_routes(router: APIRouter) -> None:
    """Mount the docs page and its files (outside the OpenAPI document)."""
    router.add_route(DOCS_PATH, _page, methods=["GET"], include_in_schema=False)
    router.add_route(DOCS_PATH + "/{name}", _file, methods=["GET"], include_in_schema=False)
