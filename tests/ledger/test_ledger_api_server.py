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
            seqs = sorted(pool.map(post, bodies))
        assert seqs == list(range(1, 25))
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
        log.close()
    with Ledger.open(location) as ledger:
        report = verify_ledger(ledger)
        assert report.intact, report.findings
        subjects = sorted(s["subject"] for s in ledger.summaries())
    assert subjects == sorted(f"apx-toy-tutorial run parallel-{n:02d}" for n in range(24))
