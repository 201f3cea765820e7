"""Serving the adjudication application on 127.0.0.1 until Ctrl-C.

The listening socket is bound here, before uvicorn starts, so a port in use
is refused with a message (never a log line and an exit); the ready line is
printed only once the server accepts connections, with the address to open.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import TYPE_CHECKING

from apconform.core.errors import UsageError

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["HOST", "serve"]

HOST = "127.0.0.1"


def _bind(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((HOST, port))
    except OSError as error:
        sock.close()
        raise UsageError(
            f"cannot listen on {HOST}:{port} ({error.strerror}): choose another port with "
            "--port, or 0 for any free one"
        ) from None
    sock.listen(64)
    return sock


def serve(app: FastAPI, *, port: int, ready: Callable[[str], None]) -> None:
    """Serve ``app`` on 127.0.0.1:``port`` (0: a free port); call ``ready`` with the URL."""
    import uvicorn

    sock = _bind(port)
    url = f"http://{HOST}:{sock.getsockname()[1]}/"

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                ready(url)

    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        server_header=False,
        lifespan="off",
        timeout_graceful_shutdown=5,
    )
    try:
        Server(config).run(sockets=[sock])
    finally:
        sock.close()
