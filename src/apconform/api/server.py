"""Running the app on uvicorn, with one fix: TCP_NODELAY on every connection.

With ``--workers`` above 1, uvicorn binds the listening socket itself with
protocol number 0, and asyncio sets TCP_NODELAY only on sockets whose
protocol number says TCP; the workers' connections then keep Nagle's
algorithm, and each response on a kept-alive connection waits about 40 ms for
the client's delayed acknowledgement. The protocol class below sets the
option on every accepted socket, whatever the worker count.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from typing import Any, cast

__all__ = ["NoDelayProtocol", "run"]

try:  # the faster parser when it is installed, as uvicorn's "auto" would choose
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _Base
except ImportError:  # pragma: no cover - depends on the environment
    from uvicorn.protocols.http.h11_impl import H11Protocol as _Base  # type: ignore[assignment]


class NoDelayProtocol(_Base):
    """uvicorn's HTTP/1.1 protocol, sending each write at once (TCP_NODELAY)."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(cast(asyncio.Transport, transport))


def run(*, host: str, port: int, workers: int, log_config: dict[str, Any]) -> None:
    """Serve ``create_app`` (built in each worker) until interrupted."""
    import uvicorn

    uvicorn.run(
        "apconform.api.app:create_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        http=NoDelayProtocol,
        log_config=log_config,
        access_log=False,
        server_header=False,
        proxy_headers=True,
        timeout_keep_alive=5,
        timeout_graceful_shutdown=10,
    )
