"""Slow request bodies cannot crowd out the API: a real `apconform serve`, over raw sockets.

Twenty connections send their headers and one byte of a longer body, then
nothing. The worker allows only four requests in flight; the slow uploads are
counted apart from those, so normal requests sent meanwhile are all answered,
and the slow ones are cut off by the body timeout (408) rather than held
forever. (tests/benchmarks/bench_api_slow_clients.py runs the same with 200.)
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

SLOW = 20
BODY = b'{"value": {"a": [1, 2, 3]}}'
HEAD = "POST /v1/kit/canonicalize HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    port = _free_port()
    command = [sys.executable, "-m", "apconform.cli", "serve", "--port", str(port)]
    server = subprocess.Popen(
        [*command, "--max-in-flight", "4", "--no-access-log"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
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


def _reply(sock: socket.socket) -> tuple[int, dict[str, object]]:
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65_536)
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    while len(body) < int(headers["content-length"]):
        body += sock.recv(65_536)
    return int(lines[0].split()[1]), json.loads(body)


def test_normal_requests_are_answered_while_slow_uploads_are_open(port: int) -> None:
    slow = []
    try:
        for _ in range(SLOW):
            sock = socket.create_connection(("127.0.0.1", port), timeout=30)
            sock.sendall(f"{HEAD}Content-Length: 100\r\n\r\n{{".encode("ascii"))
            slow.append(sock)
        time.sleep(0.5)  # every slow request has reached the worker and waits for its body
        answered = []
        for _ in range(5):
            with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
                head = f"{HEAD}Content-Length: {len(BODY)}\r\nConnection: close\r\n\r\n"
                sock.sendall(head.encode("ascii") + BODY)
                answered.append(_reply(sock))
        assert [status for status, _ in answered] == [200] * 5
        assert answered[0][1]["canonical"] == '{"a":[1,2,3]}'
        cut_off = [_reply(sock) for sock in slow]
        assert {status for status, _ in cut_off} == {408}
        assert {problem["code"] for _, problem in cut_off} == {"APC-HTTP-UPLOAD-TIMEOUT"}
    finally:
        for sock in slow:
            sock.close()
