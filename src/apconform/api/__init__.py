"""The HTTP API: the reference implementation as a stateless service (FastAPI on uvicorn).

``create_app()`` builds the application; ``apconform serve`` runs it. Every
registered operation ``<protocol>.<name>`` is served at
``POST /v1/<protocol>/<name>``; every failure is an RFC 9457 problem document
with the kit's stable error code.
"""

from apconform.api.app import OPENAPI_PATH, create_app, openapi_text
from apconform.api.openapi import build_openapi
from apconform.api.routes.operations import ANSWERS, operation_path
from apconform.api.routing import read_json, route_doc
from apconform.api.settings import ApiSettings

__all__ = [
    "ANSWERS",
    "OPENAPI_PATH",
    "ApiSettings",
    "build_openapi",
    "create_app",
    "openapi_text",
    "operation_path",
    "read_json",
    "route_doc",
]
