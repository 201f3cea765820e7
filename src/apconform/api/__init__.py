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
    from apconform.api.app import OPENAPI_PATH as OPENAPI_PATH
    from apconform.api.app import create_app as create_app
    from apconform.api.app import openapi_text as openapi_text
    from apconform.api.openapi import build_openapi as build_openapi
    from apconform.api.routes.operations import operation_path as operation_path
    from apconform.api.routing import read_json as read_json
    from apconform.api.routing import route_doc as route_doc
    from apconform.api.settings import ApiSettings as ApiSettings

__getattr__ = lazy_exports(__name__)
