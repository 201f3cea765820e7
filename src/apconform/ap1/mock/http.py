"""The HTTP side of the built-in endpoint: paths, bodies, and one write per response."""

from __future__ import annotations

import json
import socket
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import Protocol

from apconform.ap1.mock.identity import IDENTITY_PATH, EndpointIdentity
from apconform.ap1.mock.personas import PERSONAS
from apconform.ap1.run.wire import parse_body

__all__ = ["Reply", "Responder", "make_handler"]

Reply = tuple[int, dict[str, str], bytes, float]
"""Status, headers, body and the seconds to wait before sending it."""


class Responder(Protocol):
    """What the HTTP side needs of the endpoint: a reply to a body, and an error reply."""

    def handle(self, body: object, authorization: str | None = None) -> Reply: ...

    def error_reply(self, status: int, message: str) -> Reply: ...

    @property
    def identity(self) -> EndpointIdentity: ...


_MAX_BODY = 8 * 1024 * 1024


def make_handler(endpoint: Responder) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "apconform-mock"

        def log_message(self, format: str, *args: object) -> None:  # quiet
            return

        def setup(self) -> None:
            super().setup()
            # Small responses on a kept-alive connection: without this, Nagle's algorithm and
            # delayed acknowledgements add about 40 ms to every exchange.
            self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def do_GET(self) -> None:
            if self.path.rstrip("/") == "/v1/models":
                body = {
                    "object": "list",
                    "data": [
                        {
                            "id": m,
                            "object": "model",
                            "owned_by": "apconform",
                            "description": PERSONAS[m[5:]],
                        }
                        for m in (f"mock-{name}" for name in PERSONAS)
                    ],
                }
                self._send(
                    200, {"Content-Type": "application/json"}, json.dumps(body).encode(), 0.0
                )
            elif self.path.rstrip("/") == IDENTITY_PATH:
                body_bytes = json.dumps(endpoint.identity).encode()
                self._send(200, {"Content-Type": "application/json"}, body_bytes, 0.0)
            else:
                self._send(*endpoint.error_reply(404, f"no such path {self.path}"))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(*endpoint.error_reply(404, f"no such path {self.path}"))
                return
            if length > _MAX_BODY:
                self._send(*endpoint.error_reply(413, "the request body is too large"))
                return
            raw = self.rfile.read(length)
            try:
                body = parse_body(raw)
            except Exception:
                self._send(*endpoint.error_reply(400, "the request body is not JSON"))
                return
            self._send(*endpoint.handle(body, self.headers.get("Authorization")))

        def _send(self, status: int, headers: dict[str, str], body: bytes, wait: float) -> None:
            if wait:
                time.sleep(wait)
            head = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}", "Server: apconform-mock"]
            head += [f"{name}: {value}" for name, value in headers.items()]
            head += [f"Content-Length: {len(body)}", "", ""]
            try:  # one write: status line, headers and body leave in one segment
                self.wfile.write("\r\n".join(head).encode("latin-1") + body)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

    return Handler
