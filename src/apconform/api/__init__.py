"""The HTTP API: the reference implementation as a stateless service (FastAPI on uvicorn).

``create_app()`` builds the application; ``apconform serve`` runs it. Every
registered operation ``<protocol>.<name>`` is served at
``POST /v1/<protocol>/<name>``; every failure is an RFC 9457 problem document
with the kit's stable error code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.api.app import OPENAPI_PATH, create_app, openapi_text
    from apconform.api.openapi import build_openapi
    from apconform.api.routes.operations import operation_path
    from apconform.api.routing import read_json, route_doc
    from apconform.api.settings import ApiSettings

__all__ = [
    "OPENAPI_PATH",
    "ApiSettings",
    "build_openapi",
    "create_app",
    "openapi_text",
    "operation_path",
    "read_json",
    "route_doc",
]

_EXPORTS = {
    "ANSWERS": "apconform.api.routes.operations",
    "OPENAPI_PATH": "apconform.api.app",
    "ApiSettings": "apconform.api.settings",
    "build_openapi": "apconform.api.openapi",
    "create_app": "apconform.api.app",
    "openapi_text": "apconform.api.app",
    "operation_path": "apconform.api.routes.operations",
    "read_json": "apconform.api.routing",
    "route_doc": "apconform.api.routing",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
