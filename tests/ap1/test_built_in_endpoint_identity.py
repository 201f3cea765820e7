"""`ap1 run` for a built-in model checks who answers at the sealed URL before any request.

When `ap1 serve-mock &` failed on a busy port, the next `ap1 run --example` ran against
whatever held the port and succeeded, recording another program's answers as the built-in
endpoint's. Now the run asks the server who it is (GET /v1/apconform/endpoint) and refuses
a foreign server, or a built-in endpoint answering from other inputs, with
AP1-ENDPOINT-FOREIGN (exit 2), before it seals or sends anything.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from apconform.ap1.inputs.plan import load_run_inputs
from apconform.ap1.mock import MockEndpoint
from apconform.cli import main

from .conftest import example_docs
from .runs import example_inputs, seal_run


class _Foreign(BaseHTTPRequestHandler):
    """Another program's server: any path answers 200 with a chat completion."""

    seen: ClassVar[list[str]] = []

    def _answer(self) -> None:
        self.seen.append(f"{self.command} {self.path}")
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.dumps(
            {"choices": [{"message": {"role": "assistant", "content": "42"}}]}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture
def foreign() -> Iterator[str]:
    _Foreign.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Foreign)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1/chat/completions"
    finally:
        server.shutdown()
        server.server_close()


def test_a_foreign_server_on_the_port_is_refused_before_sealing(
    foreign: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = tmp_path / "run"
    args = ["ap1", "run", "--example", "--endpoint", foreign, "--model", "mock-correct"]
    assert main([*args, "--output-dir", str(run_dir)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        f"error AP1-ENDPOINT-FOREIGN: the server at {foreign} is not apconform's built-in "
        "endpoint (GET /v1/apconform/endpoint answered HTTP 200)"
    )
    assert _Foreign.seen == ["GET /v1/apconform/endpoint"]  # not one completion asked for
    assert not run_dir.exists()


def test_a_sealed_run_refuses_the_foreign_server_too(
    foreign: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = seal_run(tmp_path, foreign, "mock-correct")
    assert main(["ap1", "run", "--output-dir", str(run_dir)]) == 2
    assert "error AP1-ENDPOINT-FOREIGN" in capsys.readouterr().err
    assert not (run_dir / "transcript.jsonl").exists()
    assert _Foreign.seen == ["GET /v1/apconform/endpoint"]


def test_a_built_in_endpoint_serving_other_inputs_is_not_this_seals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = example_docs()
    docs["fixture"]["description"] = "the worked example, edited"
    other = load_run_inputs(
        config=docs["config"],
        fixture=docs["fixture"],
        questions=docs["questions"],
        derivations=docs["derivations"],
        ap1_text=docs["ap1_text"],
    )
    with MockEndpoint(other) as mock:
        args = ["ap1", "run", "--example", "--endpoint", mock.url, "--model", "mock-correct"]
        assert main([*args, "--output-dir", str(tmp_path / "run")]) == 2
        assert sum(mock.served.values()) == 0
    err = capsys.readouterr().err
    assert "is not the one for this run's seal: it serves another fixture (" in err
    assert "questions" not in err.split("hint:")[0]


def test_nothing_listening_says_to_start_the_built_in_endpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with MockEndpoint(example_inputs()) as mock:
        url = mock.url  # a port that was ours a moment ago, free again after the block
    args = ["ap1", "run", "--example", "--endpoint", url, "--model", "mock-correct"]
    assert main([*args, "--output-dir", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error AP1-ENDPOINT-FOREIGN: nothing answers at {url}")
    assert "hint: Start `apconform ap1 serve-mock`" in err
