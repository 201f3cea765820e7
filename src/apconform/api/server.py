"""Running the app on uvicorn: TCP_NODELAY on every connection, the app's objects frozen.

With ``--workers`` above 1, uvicorn binds the listening socket itself with
protocol number 0, and asyncio sets TCP_NODELAY only on sockets whose
protocol number says TCP; the workers' connections then keep Nagle's
algorithm, and each response on a kept-alive connection waits about 40 ms for
the client's delayed acknowledgement. The protocol class below sets the
option on every accepted socket, whatever the worker count.

Each worker builds the app (:func:`served_app`) and then moves every object it
has made so far (routes, models, the clause catalogue: about 200,000 objects)
out of the garbage collector's reach with :func:`gc.freeze`: they live as long
as the worker, and a full collection that walks them all stops the worker for
50-250 ms on the 2-core machine, which is what its slowest answers waited for.
Reference counting still frees whatever of them is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gc
import socket
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, cast

from apconform.core.errors import ApconformError, define_code

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["SERVE_PORT", "NoDelayProtocol", "check_port", "ready_line", "run", "served_app"]

SERVE_PORT = define_code(
    "APC-SERVE-PORT",
    "The API cannot listen on the address and port",
    "Choose another --port, or stop the program that holds this one (see what it is with "
    "`ss -ltnp` or `lsof -i :PORT`).",
)

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


def served_app() -> FastAPI:
    """The app as a worker serves it: built, then its long-lived objects frozen (see above)."""
    from apconform.api.app import create_app

    app = create_app()
    gc.collect()
    gc.freeze()
    app.state.catalog.when_loaded(_freeze)  # it loads beside serving (apconform.api.catalog)
    return app


def _freeze() -> None:
    gc.collect()
    gc.freeze()


def run(*, host: str, port: int, workers: int, log_config: dict[str, Any]) -> None:
    """Serve :func:`served_app` (built in each worker) until interrupted."""
    import uvicorn

    uvicorn.run(
        "apconform.api.server:served_app",
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


def check_port(host: str, port: int) -> None:
    """Refuse (APC-SERVE-PORT) a port something else holds, before any worker starts."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds it
        try:
            probe.bind((host, port))
        except OSError as exc:
            busy = exc.errno == errno.EADDRINUSE
            raise ApconformError(
                SERVE_PORT,
                f"port {port} on {host} "
                + ("is already in use" if busy else f"cannot be used ({exc.strerror})"),
                context={"port": port},
            ) from None


def _connect_host(host: str) -> str:
    return {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)


def ready_line(host: str, port: int, workers: int) -> str:
    url_host = f"[{host}]" if ":" in host else host
    plural = "worker" if workers == 1 else "workers"
    return (
        f"ready: the apconform API accepts connections on http://{url_host}:{port} "
        f"({workers} {plural}); stop it with Ctrl-C"
    )


def announce_when_listening(host: str, port: int, workers: int, *, interval: float = 0.05) -> None:
    """Print the ready line once a connection to the port succeeds (a worker listens).

    uvicorn binds the socket in the parent and says it is running before any worker has
    built the app; until a worker listens, a client is refused. The probe is a bare TCP
    connection, closed at once: no request, so nothing reaches the access log.
    """

    def wait() -> None:
        target = (_connect_host(host), port)
        while True:
            try:
                with socket.create_connection(target, timeout=1.0):
                    break
            except OSError:
                time.sleep(interval)
        sys.stdout.write(ready_line(host, port, workers) + "\n")
        sys.stdout.flush()

    threading.Thread(target=wait, name="apconform-ready", daemon=True).start()
