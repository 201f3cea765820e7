"""RFC 9457 problem documents: the body of every failure, built from the kit's error codes.

The same builder serves the outer guard (raw ASGI messages) and the route
handlers (Starlette responses), so a 413 from the size check and a 422 from a
schema violation look alike: ``type``, ``title``, ``status``, ``detail``, the
stable ``code``, the ``path`` when the fault has one, ``hint``, every
``violations`` entry of a refused document and the ``requestId``.
"""

from __future__ import annotations

import json
from typing import Any

from apconform.core.errors import ApconformError, DocumentRefused, define_code

__all__ = [
    "BUSY",
    "CONTENT_TYPE",
    "INTERNAL",
    "JSON_MEDIA_TYPE",
    "METHOD",
    "NOT_FOUND",
    "PARAMETER",
    "PROBLEM_MEDIA_TYPE",
    "REQUEST",
    "TIMEOUT",
    "UPLOAD_TIMEOUT",
    "VECTOR_UNKNOWN",
    "dump_json",
    "problem_body",
    "problem_document",
]

PROBLEM_MEDIA_TYPE = "application/problem+json"
JSON_MEDIA_TYPE = "application/json"
TYPE_PREFIX = "urn:apconform:error:"

CONTENT_TYPE = define_code(
    "APC-HTTP-CONTENT-TYPE",
    "The request body is not declared as JSON",
    "Send the body with the header Content-Type: application/json (UTF-8).",
    http_status=415,
)
NOT_FOUND = define_code(
    "APC-HTTP-NOT-FOUND",
    "No route has this path",
    "Check the path against the API reference; every route starts with /v1/.",
    http_status=404,
)
METHOD = define_code(
    "APC-HTTP-METHOD",
    "The route does not answer this HTTP method",
    "Use the method named in the Allow header of this response.",
    http_status=405,
)
PARAMETER = define_code(
    "APC-HTTP-PARAMETER",
    "A path or query parameter has a value the route does not accept",
    "Compare each listed parameter with the API reference and send it again.",
    http_status=422,
)
REQUEST = define_code(
    "APC-HTTP-REQUEST",
    "The HTTP request cannot be served as sent",
    "Check the method, path and headers against the API reference.",
)
VECTOR_UNKNOWN = define_code(
    "APC-HTTP-VECTOR-UNKNOWN",
    "No vector has this id",
    "List the vectors with GET /v1/conformance/vectors and use one of their ids.",
    http_status=404,
)
UPLOAD_TIMEOUT = define_code(
    "APC-HTTP-UPLOAD-TIMEOUT",
    "The request body did not arrive in time",
    "Send the whole body promptly; a slow upload is cut off after the server's body timeout.",
    http_status=408,
)
BUSY = define_code(
    "APC-HTTP-BUSY",
    "The server is handling as many requests as it allows at once",
    "Retry after the number of seconds in the Retry-After header, or add workers.",
    http_status=503,
)
TIMEOUT = define_code(
    "APC-HTTP-TIMEOUT",
    "The request took longer than the server's processing time limit",
    "Send a smaller input, or ask the operator to raise the request timeout.",
    http_status=503,
)
INTERNAL = define_code(
    "APC-HTTP-INTERNAL",
    "The server failed while handling the request",
    "This is a bug in apconform: report it with the request id from this response.",
    http_status=500,
)


def _status(error: ApconformError) -> int:
    """The code's status; a refused document whose code keeps the generic 400 is a 422.

    Protocol packages register their document rules with the default status
    (AP-1's, for example); a document that parsed but broke a rule is
    unprocessable content, whatever rule it broke first.
    """
    status = error.error_code.http_status
    if status == 400 and isinstance(error, DocumentRefused):
        return 422
    return status if 400 <= status <= 599 else 500


def _kit_path(path: str | None) -> str | None:
    return path if path is not None and path.startswith("$") else None


def problem_document(error: ApconformError, request_id: str) -> dict[str, Any]:
    """The problem document for one kit error (its status is the code's ``http_status``)."""
    code = error.error_code
    document: dict[str, Any] = {
        "type": TYPE_PREFIX + code.code,
        "title": code.title,
        "status": _status(error),
        "detail": error.message,
        "code": code.code,
    }
    path = _kit_path(error.path)
    if path is not None:
        document["path"] = path
    if error.hint:
        document["hint"] = error.hint
    if isinstance(error, DocumentRefused):
        document["violations"] = [
            {**item.to_dict(), "path": _kit_path(item.path) or "$"} for item in error.violations
        ]
    document["requestId"] = request_id
    return document


def dump_json(value: Any) -> bytes:
    """Compact UTF-8 JSON; a lone surrogate (never from the loader) is escaped, not a crash."""
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode(
            "utf-8"
        )
    except UnicodeEncodeError:
        return json.dumps(value, allow_nan=False, separators=(",", ":")).encode("ascii")


def problem_body(error: ApconformError, request_id: str) -> tuple[int, bytes]:
    """(status, body bytes) of the problem document for ``error``."""
    document = problem_document(error, request_id)
    return document["status"], dump_json(document)
