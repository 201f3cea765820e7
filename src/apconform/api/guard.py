"""The outer guard every HTTP request passes: ids, size and time limits, load shedding, last resort.

It is plain ASGI (no per-request objects beyond a few closures) because it
runs on every request and the API's throughput target leaves little room.
In order, it

1. takes the client's ``X-Request-Id`` when it is well formed, or makes one,
   and adds it to every response;
2. refuses a declared ``Content-Length`` above the body limit with 413
   before reading a byte, and counts streamed (chunked) bodies as they
   arrive, refusing as soon as the count passes the limit, so no more than
   the limit plus one chunk is ever held;
3. reads the whole body under its own short time limit (408 when it runs
   out); a request still sending its body is an *upload*, counted apart
   (at most ``max_uploading``, then 503), so clients that trickle their
   bodies never take the places of requests being worked on;
4. answers 503 at once when the worker already works on ``max_in_flight``
   requests, and otherwise runs the application under the processing-time
   limit (503 when it runs out);
5. turns any exception that escaped the application into a 500 problem
   document with the request id (the traceback goes to the log only);
6. writes one structured access-log record per request, never with a body.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from apconform.api.problems import (
    BUSY,
    INTERNAL,
    PROBLEM_MEDIA_TYPE,
    TIMEOUT,
    UPLOAD_TIMEOUT,
    problem_body,
)
from apconform.api.settings import ApiSettings
from apconform.core.errors import ApconformError
from apconform.core.jsonload import JSON_SIZE, Limits, size_error

__all__ = ["REQUEST_ID_HEADER", "RequestGuard", "request_id_of"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

REQUEST_ID_HEADER = "X-Request-Id"
_SCOPE_KEY = "apconform.request_id"
_VALID_ID = re.compile(rb"[A-Za-z0-9._:-]{1,128}")
ACCESS_LOG = logging.getLogger("apconform.api.access")
ERROR_LOG = logging.getLogger("apconform.api")


def request_id_of(scope: Scope) -> str:
    """The id the guard gave this request (a fresh one if the guard did not run)."""
    found = scope.get(_SCOPE_KEY)
    return found if isinstance(found, str) else secrets.token_hex(16)


class _Deadline(Exception):
    """The processing-time limit ran out (kept apart from a TimeoutError the app raised itself)."""


class _BodyRefused(Exception):
    def __init__(self, error: ApconformError, *, close: bool) -> None:
        self.error = error
        self.close = close


class RequestGuard:
    """ASGI middleware applying the limits of :class:`ApiSettings` to every HTTP request."""

    def __init__(self, app: ASGIApp, settings: ApiSettings) -> None:
        self.app = app
        self.settings = settings
        self.limits = Limits(max_bytes=settings.max_body_bytes)
        self.in_flight = 0
        """Requests whose body has arrived and that the application works on."""
        self.uploading = 0
        """Requests still sending their body (they hold no place of ``in_flight``)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        declared: int | None = None
        request_id = ""
        for name, value in scope["headers"]:
            if name == b"x-request-id" and _VALID_ID.fullmatch(value):
                request_id = value.decode("ascii")
            elif name == b"content-length" and value.isdigit():
                declared = int(value)
        if not request_id:
            request_id = secrets.token_hex(16)
        scope[_SCOPE_KEY] = request_id
        id_header = (b"x-request-id", request_id.encode("ascii"))
        state = {"status": 0, "sent": 0, "received": 0}

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                state["status"] = message["status"]
                message["headers"] = [*message.get("headers", ()), id_header]
            elif message["type"] == "http.response.body":
                state["sent"] += len(message.get("body", b""))
            await send(message)

        async def problem(error: ApconformError, extra: list[tuple[bytes, bytes]]) -> None:
            status, body = problem_body(error, request_id)
            headers = [
                (b"content-type", PROBLEM_MEDIA_TYPE.encode("ascii")),
                (b"content-length", str(len(body)).encode("ascii")),
                *extra,
            ]
            await send_with_id(
                {"type": "http.response.start", "status": status, "headers": headers}
            )
            await send_with_id({"type": "http.response.body", "body": body})

        try:
            if self.uploading >= self.settings.max_uploading:
                await problem(
                    ApconformError(
                        BUSY,
                        f"this worker already receives {self.settings.max_uploading} bodies",
                    ),
                    [(b"retry-after", b"1"), (b"connection", b"close")],
                )
                return
            self.uploading += 1
            try:
                body = await self._receive(receive, declared, state)
            except _BodyRefused as refused:
                await problem(refused.error, [(b"connection", b"close")] if refused.close else [])
                return
            finally:
                self.uploading -= 1
            if self.in_flight >= self.settings.max_in_flight:
                await problem(
                    ApconformError(
                        BUSY,
                        f"this worker already handles {self.settings.max_in_flight} requests",
                    ),
                    [(b"retry-after", b"1")],
                )
                return
            self.in_flight += 1
            try:
                await self._serve(scope, receive, send_with_id, body)
            except _Deadline:
                if state["status"] == 0:
                    limit = self.settings.request_timeout
                    await problem(
                        ApconformError(
                            TIMEOUT, f"the request was not answered within {limit:g} seconds"
                        ),
                        [],
                    )
            finally:
                self.in_flight -= 1
        except Exception as exc:  # the last line of defence: a problem document, never a trace
            ERROR_LOG.error(
                "unhandled exception",
                exc_info=exc,
                extra={"fields": {"requestId": request_id, "exception": type(exc).__name__}},
            )
            if state["status"] == 0:
                await problem(
                    ApconformError(
                        INTERNAL,
                        f"internal error ({type(exc).__name__}) while handling the request",
                    ),
                    [],
                )
        finally:
            if ACCESS_LOG.isEnabledFor(logging.INFO):
                client = scope.get("client")
                ACCESS_LOG.info(
                    "request",
                    extra={
                        "fields": {
                            "requestId": request_id,
                            "method": scope["method"],
                            "path": scope["path"],
                            "status": state["status"],
                            "durationMs": round((time.perf_counter() - started) * 1000, 3),
                            "requestBytes": state["received"],
                            "responseBytes": state["sent"],
                            "client": client[0] if client else None,
                        }
                    },
                )

    async def _receive(
        self, receive: Receive, declared: int | None, state: dict[str, int]
    ) -> bytes:
        """The whole body, within its size and time limits (else _BodyRefused)."""
        limit = self.settings.max_body_bytes
        if declared is not None and declared > limit:
            raise _BodyRefused(size_error("request body", self.limits, declared), close=True)
        try:
            async with asyncio.timeout(self.settings.body_timeout):
                return await self._read_body(receive, limit, state)
        except TimeoutError:  # _read_body raises nothing else of this type
            timeout = self.settings.body_timeout
            raise _BodyRefused(
                ApconformError(
                    UPLOAD_TIMEOUT, f"the request body did not arrive within {timeout:g} seconds"
                ),
                close=True,
            ) from None

    async def _serve(self, scope: Scope, receive: Receive, send: Send, body: bytes) -> None:
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        try:
            async with asyncio.timeout(self.settings.request_timeout) as deadline:
                await self.app(scope, replay, send)
        except TimeoutError:
            if deadline.expired():
                raise _Deadline from None
            raise

    async def _read_body(self, receive: Receive, limit: int, state: dict[str, int]) -> bytes:
        chunks: list[bytes] = []
        total = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                raise _BodyRefused(
                    ApconformError(UPLOAD_TIMEOUT, "the client disconnected before the body ended"),
                    close=True,
                )
            chunk = message.get("body", b"")
            if chunk:
                total += len(chunk)
                state["received"] = total
                if total > limit:
                    error = ApconformError(
                        JSON_SIZE,
                        f"request body: more than {limit:,} bytes arrived; "
                        f"the limit is {limit:,} bytes",
                        path="$",
                    )
                    raise _BodyRefused(error, close=True)
                chunks.append(chunk)
            if not message.get("more_body", False):
                return chunks[0] if len(chunks) == 1 else b"".join(chunks)
