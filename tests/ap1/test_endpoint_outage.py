"""An endpoint outage is not an outcome: the run stops early, resumably, and retries the cells.

Finding 7 of the trust review: killing the endpoint mid-run turned 152 of 204
cells UNMEASURED within seconds and the run ended "finished" (exit 0), and a
resume after the endpoint came back said "already complete"; with nothing
listening, or an endpoint answering 404 to everything, 200 of 204 cells were
UNMEASURED, exit 0, no warning.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from process_support import stop

from apconform.ap1.mock import MockEndpoint
from apconform.cli import main

from .runs import example_inputs, seal_run


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve_mock(port: int) -> subprocess.Popen[bytes]:
    """The built-in endpoint in a process of its own, so it can be killed for real."""
    command = [sys.executable, "-m", "apconform.cli", "ap1", "serve-mock", "--port", str(port)]
    process = subprocess.Popen(
        [*command, "--latency-ms", "20"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert process.stdout is not None
    assert process.stdout.readline().startswith(b"built-in endpoint on")
    return process


def _records(run_dir: Path) -> list[dict[str, Any]]:
    lines = (run_dir / "transcript.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _run(run_dir: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    capsys.readouterr()
    status = main(["ap1", "run", *extra])
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def test_an_endpoint_killed_mid_run_stops_the_run_and_a_resume_retries_its_cells(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = _free_port()
    run_dir = seal_run(tmp_path, f"http://127.0.0.1:{port}/v1/chat/completions", "mock-correct")
    endpoint = _serve_mock(port)

    def kill_after_forty_records() -> None:
        transcript = run_dir / "transcript.jsonl"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if transcript.exists() and transcript.read_bytes().count(b"\n") > 40:
                break
            time.sleep(0.02)
        endpoint.kill()
        endpoint.wait()

    killer = threading.Thread(target=kill_after_forty_records)
    killer.start()
    status, out = _run(run_dir, capsys, "--output-dir", str(run_dir))
    killer.join()
    assert status == 3
    assert "NOT FINISHED: stopped early: 5 executions in a row failed at the endpoint" in out
    assert "connection refused" in out
    assert f"continue with: apconform ap1 run --resume {run_dir}" in out
    kinds = [r["kind"] for r in _records(run_dir)]
    assert kinds[-1] == "run-stopped" and kinds.count("cell-deferred") >= 5
    executions = [r["execution"] for r in _records(run_dir) if r["kind"] == "execution"]
    assert all(e["status"] in ("EXECUTED", "VOID") for e in executions)  # no outage outcome
    assert main(["ap1", "verify-transcript", str(run_dir)]) == 3  # consistent, unfinished

    endpoint = _serve_mock(port)
    try:
        status, out = _run(run_dir, capsys, "--resume", str(run_dir))
    finally:
        assert stop(endpoint, signal.SIGINT) == 0
    assert status == 0
    assert "204/204 cells recorded" in out and "UNMEASURED" not in out
    assert "cell(s) deferred earlier after endpoint failures: transport-error after 3" in out
    assert main(["ap1", "verify-transcript", str(run_dir)]) == 0
    assert main(["ap1", "score", str(run_dir)]) == 0
    plan = json.loads((run_dir / "report/score-report.json").read_text())["integrity"]["plan"]
    assert int(plan["retried"]) >= 5 and plan["deferred"] == "0"
    assert plan["deferralCauses"][0]["cause"].endswith(
        "connection refused (is anything listening at the URL?)"
    )


def test_nothing_listening_stops_the_run_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = seal_run(tmp_path, f"http://127.0.0.1:{_free_port()}/v1/chat/completions", "m")
    status, out = _run(run_dir, capsys, "--output-dir", str(run_dir))
    assert status == 3
    assert "stopped early: 5 executions in a row failed at the endpoint (last: transport-error" in (
        out
    )
    records = _records(run_dir)
    assert not [r for r in records if r["kind"] == "execution" and r["execution"]["rounds"]]
    again = tmp_path / "again"
    seal_run(again, f"http://127.0.0.1:{_free_port()}/v1/chat/completions", "m")
    limit = ["--stop-after-failures", "2", "--concurrency", "1"]
    status, out = _run(again / "run", capsys, "--output-dir", str(again / "run"), *limit)
    assert status == 3 and "stopped early: 2 executions in a row" in out


def test_an_endpoint_answering_404_to_everything_stops_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with MockEndpoint(example_inputs(), seed=1) as mock:  # the model does not exist: 404
        run_dir = seal_run(tmp_path, mock.url, "mock-no-such-model")
        status, out = _run(run_dir, capsys, "--output-dir", str(run_dir))
    assert status == 3
    assert "(last: the endpoint answered HTTP 404)" in out
    stopped = _records(run_dir)[-1]["runStopped"]
    assert int(stopped["cellsDeferred"]) >= 5 and "HTTP 404" in stopped["reason"]


class _AlwaysFailing(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = b'{"error": {"message": "the backend is down"}}'
        self.send_response(502)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture
def failing() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _AlwaysFailing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1/chat/completions"
    finally:
        server.shutdown()
        server.server_close()


def test_a_run_ending_mostly_unmeasured_exits_non_zero_naming_the_cause(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], failing: str
) -> None:
    run_dir = seal_run(tmp_path, failing, "any", repeats="1")  # 502 is an answer: outcomes
    status, out = _run(run_dir, capsys, "--output-dir", str(run_dir))
    assert status == 1
    assert "warning: 100 of 100 executed cells are UNMEASURED, more than the 10% allowed" in out
    assert "the most common cause (100): server-error after 3 attempts: HTTP 502" in out
