"""The API key travels only over TLS or to this machine, unless the operator overrides by name.

Finding 3 of the trust review: with a key set, a run sent `Authorization:
Bearer ...` in clear text to any http:// host. A listener on a non-loopback
address of this machine shows that the refused run sends nothing at all, and
that the override sends the key and is recorded in the transcript.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from apconform.ap1.inputs.files import example_paths

ENV = "APC_TRANSPORT_TEST_KEY"
KEY = "transport-test-key-0123456789"


def _local_address() -> str | None:
    """An address of this machine that is not loopback (no packet is sent to find it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: a route lookup only
            address = str(probe.getsockname()[0])
        except OSError:
            return None
    return None if address.startswith("127.") else address


class _Recorder(BaseHTTPRequestHandler):
    seen: ClassVar[list[str | None]] = []

    def do_POST(self) -> None:
        self.seen.append(self.headers.get("Authorization"))
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = b'{"error": {"message": "no such model"}}'
        self.send_response(404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture
def listener() -> Iterator[tuple[str, list[str | None]]]:
    address = _local_address()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address")
    seen: list[str | None] = []
    handler = type("Recorder", (_Recorder,), {"seen": seen})
    server = ThreadingHTTPServer(("0.0.0.0", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://{address}:{server.server_address[1]}/v1/chat/completions", seen
    finally:
        server.shutdown()
        server.server_close()


def _run(tmp_path: Path, url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    paths = example_paths()
    config = json.loads(paths.config.read_text(encoding="utf-8"))
    config["endpoint"].update(url=url, apiKeyEnv=ENV)
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    args = ["--config", str(tmp_path / "config.json"), "--fixture", str(paths.fixture)]
    args += ["--questions", str(paths.questions), "--derivations", str(paths.derivations)]
    args += ["--ap1-text", str(paths.ap1_text), "--output-dir", str(tmp_path / "run")]
    return subprocess.run(
        [sys.executable, "-m", "apconform.cli", "ap1", "run", *args, *extra],
        env={**os.environ, ENV: KEY},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_key_is_not_sent_over_plain_http_to_another_host(
    tmp_path: Path, listener: tuple[str, list[str | None]]
) -> None:
    url, seen = listener
    refused = _run(tmp_path, url)
    assert refused.returncode == 2, refused.stderr
    assert "error AP1-KEY-PLAIN-HTTP" in refused.stderr
    assert "--send-api-key-over-plain-http-to-remote-host" in refused.stderr
    assert seen == []  # not one request reached the host
    assert not (tmp_path / "run" / "transcript.jsonl").exists()
    assert KEY not in refused.stdout + refused.stderr


def test_the_override_sends_the_key_and_the_transcript_says_so(
    tmp_path: Path, listener: tuple[str, list[str | None]]
) -> None:
    url, seen = listener
    done = _run(tmp_path, url, "--send-api-key-over-plain-http-to-remote-host")
    assert done.returncode == 3, done.stderr  # every answer is 404: stopped early, resumable
    assert seen and set(seen) == {f"Bearer {KEY}"}
    first = json.loads((tmp_path / "run" / "transcript.jsonl").read_text().splitlines()[0])
    assert first["runStarted"]["credentialTransport"] == "plain-http-override"


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.5.6.7", True),
        ("[::1]", True),
        ("::ffff:127.0.0.1", True),
        ("localhost", True),
        ("api.localhost", True),
        ("LOCALHOST.", True),
        ("127.0.0.1.example.org", False),
        ("10.0.0.7", False),
        ("0.0.0.0", False),
        ("example.org", False),
        ("", False),
    ],
)
def test_loopback_is_judged_from_the_url_alone(host: str, loopback: bool) -> None:
    from apconform.ap1.run.credentials import is_loopback_host

    assert is_loopback_host(host) is loopback
