"""The 1 MiB body limit on a real `apconform serve`, over raw sockets.

The in-process tests count the ASGI reads; these show the same on the wire: a
declared body over the limit is answered while the client has sent none of
it, and a chunked body is answered the moment its running count passes the
limit, with the rest of the upload never needed.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

MIB = 1_048_576
HEAD = "POST /v1/kit/canonicalize HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "apconform.cli", "serve", "--port", str(port), "--no-access-log"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=5):
                    break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.1)
        yield port
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)


def _reply(sock: socket.socket) -> tuple[int, dict[str, str], dict[str, object]]:
    """Read one whole response (the server closes the connection after a 413)."""
    data = b""
    while chunk := sock.recv(65_536):
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, json.loads(body)


def test_declared_length_over_1_mib_is_answered_before_any_body_is_sent(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(f"{HEAD}Content-Length: {MIB + 1}\r\n\r\n".encode("ascii"))  # and no body
        status, headers, problem = _reply(sock)
    assert status == 413
    assert headers["content-type"] == "application/problem+json"
    assert headers["connection"] == "close"
    assert problem["code"] == "APC-JSON-SIZE"
    assert problem["detail"] == (
        "request body: the document is 1,048,577 bytes; the limit is 1,048,576 bytes"
    )


def test_chunked_body_is_refused_at_1_mib_plus_1_byte(port: int) -> None:
    piece = b" " * 65_536
    chunk = f"{len(piece):x}\r\n".encode("ascii") + piece + b"\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(f"{HEAD}Transfer-Encoding: chunked\r\n\r\n".encode("ascii"))
        for _ in range(MIB // len(piece)):  # exactly 1 MiB, the body not yet ended
            sock.sendall(chunk)
        sock.settimeout(0.5)
        with pytest.raises(TimeoutError):  # at the limit the server still waits for more
            sock.recv(1)
        sock.settimeout(10)
        sock.sendall(b"1\r\n \r\n")  # one byte more; the final chunk is never sent
        status, headers, problem = _reply(sock)
    assert status == 413
    assert headers["connection"] == "close"
    assert problem["code"] == "APC-JSON-SIZE"
    assert problem["detail"] == (
        "request body: more than 1,048,576 bytes arrived; the limit is 1,048,576 bytes"
    )
