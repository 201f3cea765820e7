"""An ASGI caller without an HTTP client library: drives the app, recording what it read."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi import FastAPI

from apconform.api import ApiSettings, create_app


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes
    receive_calls: int = 0
    messages: list[dict[str, Any]] = field(default_factory=list)

    @property
    def json(self) -> Any:
        return json.loads(self.body)


def call(
    app: Any,
    method: str,
    path: str,
    *,
    body: bytes | None = None,
    chunks: Iterable[bytes] | None = None,
    headers: Iterable[tuple[str, str]] = (),
    query: str = "",
    json_body: Any = None,
) -> Reply:
    """Send one request; ``chunks`` streams the body without a Content-Length (chunked)."""
    raw_headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]
    if json_body is not None:
        body = json.dumps(json_body).encode("utf-8")
        raw_headers.append((b"content-type", b"application/json"))
    pieces: list[bytes]
    if chunks is not None:
        pieces = list(chunks)
    else:
        pieces = [body or b""]
        if body is not None:
            raw_headers.append((b"content-length", str(len(body)).encode("ascii")))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode("ascii"),
        "query_string": query.encode("ascii"),
        "root_path": "",
        "headers": raw_headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8080),
    }
    reply = Reply(0, {}, b"")
    queue = list(pieces)

    async def receive() -> dict[str, Any]:
        reply.receive_calls += 1
        if queue:
            chunk = queue.pop(0)
            return {"type": "http.request", "body": chunk, "more_body": bool(queue)}
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        reply.messages.append(message)
        if message["type"] == "http.response.start":
            reply.status = message["status"]
            reply.headers = {
                k.decode("latin-1"): v.decode("latin-1") for k, v in message["headers"]
            }
        elif message["type"] == "http.response.body":
            reply.body += message.get("body", b"")

    asyncio.run(app(scope, receive, send))
    return reply


@pytest.fixture(scope="session")
def api() -> FastAPI:
    return create_app(ApiSettings())
