"""`apconform serve --ledger` with two worker processes: parallel submissions, one linear chain."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

from apconform.ledger import Ledger, verify_ledger

from .samples import apx


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_parallel_submissions_to_two_workers(location: str, tmp_path: Path) -> None:
    port = _free_port()
    log = (tmp_path / "server.log").open("w+", encoding="utf-8")
    command = [
        sys.executable,
        "-m",
        "apconform.cli",
        "serve",
        "--port",
        str(port),
        "--workers",
        "2",
        "--ledger",
        location,
        "--open-submission",
        "--allow-unsigned",
        "--no-access-log",
    ]
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=os.environ.copy())
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(f"{base}/v1/health", timeout=2).status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline and server.poll() is None, log.name
            time.sleep(0.2)
        bodies = []
        for number in range(24):
            submission = apx(f"parallel-{number:02d}")
            bodies.append({"claim": submission.claim, "document": submission.document})

        def post(body: dict[str, object]) -> int:
            with requests.Session() as session:
                reply = session.post(f"{base}/v1/ledger/entries", json=body, timeout=60)
            assert reply.status_code == 200, reply.text
            return int(reply.json()["seq"])

        with ThreadPoolExecutor(6) as pool:
            seqs = list(pool.map(post, bodies))
        assert sorted(seqs) == list(range(1, 25))
        with ThreadPoolExecutor(6) as pool:  # every submission again: the same entries answer
            assert list(pool.map(post, bodies)) == seqs
        served = requests.get(f"{base}/v1/openapi.json", timeout=30).json()
        assert "OPEN SUBMISSION" in served["info"]["description"]
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
        log.close()
    with Ledger.open(location) as ledger:
        report = verify_ledger(ledger)
        assert report.intact, report.findings
        subjects = sorted(s["subject"] for s in ledger.summaries())
    assert subjects == sorted(f"apx-toy-tutorial run parallel-{n:02d}" for n in range(24))


def test_serve_with_a_ledger_needs_a_trust_decision(tmp_path: Path) -> None:
    """Issue 27, finding 3: `serve --ledger DB` alone served an open ledger. It now refuses to
    start (exit 2) until the operator names trusted keys or chooses open submission."""
    ledger = tmp_path / "ledger.db"
    base = [sys.executable, "-m", "apconform.cli", "serve", "--port", str(_free_port())]
    for extra in ([], ["--allow-unsigned"], ["--trusted-key", "ab" * 32, "--allow-unsigned"]):
        done = subprocess.run(
            [*base, "--ledger", str(ledger), *extra],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 2, (extra, done.stderr)
        assert done.stderr.startswith("error APC-LEDGER-TRUST: "), done.stderr
        assert "--open-submission" in done.stderr and "Traceback" not in done.stderr
    assert not ledger.exists()  # refused before the ledger was opened or created
    trust = tmp_path / "keys.txt"
    trust.write_text("# nobody\n", encoding="utf-8")
    done = subprocess.run(
        [*base, "--ledger", str(ledger), "--trust-file", str(trust)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stderr.split(":")[0]) == (2, "error APC-TRUST-FILE")
