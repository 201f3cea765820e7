"""The HTTP adapter: check a deployed API that serves the kit's operations.

The convention (the kit's own HTTP API follows it):

* operation ``<protocol>.<name>`` is ``POST {BASE_URL}/v1/<protocol>/<name>``
  with underscores in the name turned into hyphens, and the vector's input as
  the JSON body;
* a 2xx JSON body is the answer;
* a 4xx ``application/problem+json`` body whose ``code`` member holds a stable
  error code is a refusal (its ``detail`` member is the refusal's message and
  its optional ``path`` member the path of the offending value);
* anything else (5xx, a timeout, a refused connection, a body that is not
  JSON) is an errored case.

``GET {BASE_URL}/v1/implementation`` may answer the same document an exec
implementation answers to start; a service without it is described by its URL
and is assumed to support every operation of the selected vectors.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from apconform.conformance.adapters.base import ADAPTER_START, Adapter
from apconform.conformance.contracts import input_problems
from apconform.conformance.protocol import (
    MESSAGE_LIMITS,
    ProtocolViolation,
    Reply,
    errored,
    read_answer,
    read_started,
)
from apconform.core.errors import ApconformError
from apconform.core.jsonload import loads
from apconform.models.conformance import Implementation

__all__ = ["HttpAdapter", "operation_url"]


def operation_url(base_url: str, operation: str) -> str:
    """The URL the convention assigns to an operation."""
    protocol, _, name = operation.partition(".")
    return f"{base_url.rstrip('/')}/v1/{protocol}/{name.replace('_', '-')}"


class _Response:
    def __init__(self, status: int, content_type: str, body: bytes) -> None:
        self.status = status
        self.content_type = content_type.split(";")[0].strip().lower()
        self.body = body


class HttpAdapter(Adapter):
    """Posts each case to the service; answers become replies by the convention above."""

    def __init__(self, target: str, base_url: str, *, validate_protocol: bool) -> None:
        self.target = target
        self.base_url = base_url.rstrip("/")
        self._validate = validate_protocol
        self._opener = urllib.request.build_opener()

    def _request(self, url: str, body: bytes | None, timeout: float) -> _Response:
        headers = {"Accept": "application/json, application/problem+json"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(
            url, data=body, headers=headers, method="POST" if body is not None else "GET"
        )
        try:
            with self._opener.open(request, timeout=timeout) as response:
                data = response.read(MESSAGE_LIMITS.max_bytes + 1)
                return _Response(response.status, response.headers.get("Content-Type", ""), data)
        except urllib.error.HTTPError as error:
            data = error.read(MESSAGE_LIMITS.max_bytes + 1) if error.fp is not None else b""
            return _Response(error.code, error.headers.get("Content-Type", ""), data)

    def start(self, timeout: float, operations: list[str]) -> Implementation:
        url = f"{self.base_url}/v1/implementation"
        try:
            response = self._request(url, None, timeout)
        except (urllib.error.URLError, OSError) as exc:
            raise ApconformError(
                ADAPTER_START, f"{self.target}: cannot reach {url}: {_reason(exc)}"
            ) from None
        if response.status == 404:
            return Implementation.model_validate(
                {
                    "name": self.base_url,
                    "version": "unknown",
                    "language": "unknown",
                    "homepage": self.base_url,
                    "protocols": sorted({op.split(".", 1)[0] for op in operations} or {"kit"}),
                    "operations": sorted(set(operations)) or ["kit.parse"],
                }
            )
        try:
            document = loads(response.body, limits=MESSAGE_LIMITS, source=url)
            if response.status != 200:
                raise ProtocolViolation(f"GET {url} answered status {response.status}")
            return read_started(document, validate=self._validate)
        except (ApconformError, ProtocolViolation) as exc:
            message = getattr(exc, "message", str(exc))
            raise ApconformError(ADAPTER_START, f"{self.target}: {message}") from None

    def run(self, seq: int, operation: str, value: Any, timeout: float) -> Reply:
        url = operation_url(self.base_url, operation)
        if self._validate:
            problems = input_problems(operation, value)
            if problems:
                return errored(
                    "protocol violation: the harness would send an input that breaks the input "
                    f"schema of {operation}: " + "; ".join(problems[:5])
                )
        body = json.dumps(value, ensure_ascii=False).encode("utf-8")
        try:
            response = self._request(url, body, timeout)
        except TimeoutError:
            return errored(f"no answer from POST {url} within {timeout:g} s", timed_out=True)
        except (urllib.error.URLError, OSError) as exc:
            if isinstance(getattr(exc, "reason", None), TimeoutError):
                return errored(f"no answer from POST {url} within {timeout:g} s", timed_out=True)
            return errored(f"POST {url} failed: {_reason(exc)}")
        return self._reply(seq, operation, url, response)

    def _reply(self, seq: int, operation: str, url: str, response: _Response) -> Reply:
        shown = response.body[:500].decode("utf-8", errors="replace")
        context: dict[str, Any] = {
            "status": response.status,
            "contentType": response.content_type,
            "body": shown,
        }
        json_types = ("application/json", "application/problem+json")
        if response.content_type not in json_types or len(response.body) > MESSAGE_LIMITS.max_bytes:
            return errored(
                f"POST {url} answered status {response.status} without a JSON body", **context
            )
        try:
            document = loads(response.body, limits=MESSAGE_LIMITS, source=f"answer of {url}")
        except ApconformError as exc:
            return errored(f"POST {url} answered a body the kit refuses: {exc}", **context)
        if 200 <= response.status < 300 and response.content_type == "application/json":
            message: dict[str, Any] = {"seq": seq, "answer": document}
        elif (
            400 <= response.status < 500
            and response.content_type == "application/problem+json"
            and isinstance(document, dict)
            and isinstance(document.get("code"), str)
        ):
            detail = document.get("detail")
            refusal: dict[str, Any] = {
                "code": document["code"],
                "message": detail if isinstance(detail, str) else "",
            }
            if isinstance(document.get("path"), str):
                refusal["path"] = document["path"]
            message = {"seq": seq, "refusal": refusal}
        else:
            return errored(f"POST {url} answered status {response.status}", **context)
        try:
            return read_answer(message, seq, validate=self._validate, operation=operation)
        except ProtocolViolation as violation:
            return errored(f"protocol violation: {violation.message}", **context)

    def stop(self) -> dict[str, Any] | None:
        """Nothing to stop: the service outlives the run."""
        return None


def _reason(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None)
    return str(reason if reason is not None else exc)
