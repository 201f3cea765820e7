"""`apconform openapi` and `apconform serve` as a user runs them."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from apconform.api import openapi_text
from apconform.cli import main


def test_openapi_writes_the_committed_document(tmp_path: Path, repo: Path) -> None:
    target = tmp_path / "openapi.json"
    assert main(["openapi", "--output", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == openapi_text()
    assert target.read_text(encoding="utf-8") == (repo / "schemas/openapi.json").read_text(
        encoding="utf-8"
    )


def test_openapi_to_a_directory_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["openapi", "--output", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("error APC-USAGE")


@pytest.mark.parametrize(
    "args", [["--port", "0"], ["--port", "70000"], ["--workers", "0"], ["--request-timeout", "-1"]]
)
def test_serve_refuses_bad_arguments(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", *args]) == 2
    assert capsys.readouterr().err.startswith("error APC-USAGE")


JSON = {"Content-Type": "application/json"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_serve_answers_on_loopback_and_logs_json(tmp_path: Path) -> None:
    port = _free_port()
    log = (tmp_path / "server.log").open("w+", encoding="utf-8")
    server = subprocess.Popen(
        [sys.executable, "-m", "apconform.cli", "serve", "--port", str(port), "--workers", "2"],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                connection.request("GET", "/v1/health", headers={"X-Request-Id": "cli-test-1"})
                response = connection.getresponse()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.2)
        assert response.status == 200
        assert response.getheader("X-Request-Id") == "cli-test-1"
        assert json.loads(response.read()) == {"status": "ok"}
        assert response.getheader("Server") is None
        started = time.perf_counter()
        for _ in range(10):  # kept-alive: without TCP_NODELAY each one stalls for ~40 ms
            connection.request("POST", "/v1/kit/parse", body=b'{"text": "[1]"}', headers=JSON)
            assert connection.getresponse().read() == b'{"canonical":"[1]"}'
        assert time.perf_counter() - started < 0.3
        connection.close()
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
    log.seek(0)
    lines = [json.loads(line) for line in log.read().splitlines() if line.startswith("{")]
    access = [line for line in lines if line["logger"] == "apconform.api.access"]
    assert [(a["requestId"], a["path"], a["status"]) for a in access][:2] == [
        ("cli-test-1", "/v1/health", 200),
        (access[1]["requestId"], "/v1/kit/parse", 200),
    ]
    assert len(access) == 11
