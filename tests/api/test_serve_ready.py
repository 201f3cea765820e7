"""`apconform serve` says it is ready only when it accepts connections, and a busy port is
refused with its own code.

uvicorn logs "Uvicorn running on ..." when the parent binds the socket, 3 s (quiet machine)
to 20 s (loaded) before a worker listens; a `curl` sent on that line was refused and printed
nothing. The ready line comes when a connection succeeds, so a request sent on it is answered
at the first try.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from apconform.cli import main


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_ready_line_comes_when_a_request_is_answered_at_once(tmp_path: Path) -> None:
    port = _free_port()
    err = (tmp_path / "server.err").open("w+", encoding="utf-8")
    server = subprocess.Popen(
        [sys.executable, "-m", "apconform.cli", "serve", "--port", str(port), "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=err,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        text=True,
    )
    lines: list[str] = []
    reader = threading.Thread(
        target=lambda: lines.extend(iter(server.stdout.readline, "")),  # type: ignore[union-attr]
        daemon=True,
    )
    reader.start()
    try:
        deadline = time.monotonic() + 120
        while not lines and time.monotonic() < deadline and server.poll() is None:
            time.sleep(0.02)
        assert lines == [
            f"ready: the apconform API accepts connections on http://127.0.0.1:{port} "
            "(2 workers); stop it with Ctrl-C\n"
        ]
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request(
            "POST",
            "/v1/kit/parse",
            body=b'{"text": "[1, 2.50]"}',
            headers={"Content-Type": "application/json"},
        )  # the first try, no retry: it must be answered
        response = connection.getresponse()
        assert (response.status, response.read()) == (200, b'{"canonical":"[1,2.5]"}')
        connection.close()
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
    err.seek(0)
    logged = [json.loads(line)["message"] for line in err if line.startswith("{")]
    assert not any(m.startswith("Uvicorn running on") for m in logged)  # the misleading line
    assert "Started parent process" in " ".join(logged)


def test_a_busy_port_is_refused_with_its_own_code(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        assert main(["serve", "--port", str(port), "--workers", "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error APC-SERVE-PORT: port {port} on 127.0.0.1 is already in use\n")
    assert "hint: Choose another --port" in err
