"""The http adapter against a real loopback server that serves the reference operations.

The server is a small test implementation of the HTTP convention (not a mock of
the kit's API): POST /v1/<protocol>/<name-with-hyphens> runs the operation;
a refusal is a 4xx application/problem+json body with the error code.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from apconform.conformance.adapters.http import operation_url
from apconform.conformance.operations import get_operation
from apconform.conformance.reference import describe
from apconform.conformance.runner import CheckOptions, run_check
from apconform.core.errors import ApconformError
from apconform.core.jsonload import loads

from .conftest import VECTORS


class _Handler(BaseHTTPRequestHandler):
    broken: ClassVar[dict[str, str]] = {}
    identity: ClassVar[bool] = True

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/v1/implementation" and self.identity:
            self._send(200, json.dumps(describe()).encode(), "application/json")
        else:
            self._send(404, b'{"title": "not found"}', "application/problem+json")

    def do_POST(self) -> None:
        _, _version, protocol, name = self.path.split("/", 3)
        operation = f"{protocol}.{name.replace('-', '_')}"
        body = loads(self.rfile.read(int(self.headers["Content-Length"])))
        fault = self.broken.get(json.dumps(body, sort_keys=True))
        if fault == "500":
            self._send(500, b"internal trouble", "text/plain")
            return
        if fault == "slow":
            time.sleep(3)
        if fault == "text":
            self._send(200, b"not json", "text/plain")
            return
        try:
            answer = get_operation(operation)(body)
        except ApconformError as error:
            problem = {
                "type": "about:blank",
                "title": error.error_code.title,
                "status": error.http_status,
                "code": error.code,
                "detail": error.message,
            }
            if error.path is not None:
                problem["path"] = error.path
            self._send(error.http_status, json.dumps(problem).encode(), "application/problem+json")
            return
        self._send(200, json.dumps(answer).encode(), "application/json")


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        _Handler.broken = {}
        _Handler.identity = True


def test_operation_url_convention() -> None:
    assert (
        operation_url("http://h:1/", "ap1.resolve_operand") == "http://h:1/v1/ap1/resolve-operand"
    )
    assert operation_url("http://h:1", "kit.parse") == "http://h:1/v1/kit/parse"


def test_reference_over_http_passes_every_vector(server: str) -> None:
    run = run_check(CheckOptions(impl=f"http:{server}", validate_protocol=True))
    failed = [(c["vector"], c["mismatches"]) for c in run.cases if c["outcome"] != "pass"]
    assert failed == []
    assert run.exit_status == 0
    assert len(run.cases) == len(VECTORS)
    assert run.header["implementation"]["name"] == "apconform-reference"
    refusal = next(c for c in run.cases if c["vector"] == "kit-load-depth-33")
    assert refusal["actual"]["kind"] == "refusal"
    assert refusal["actual"]["code"] == "APC-JSON-DEPTH"


def test_http_faults_are_errored_cases(server: str) -> None:
    def key(vector_id: str) -> str:
        return json.dumps(VECTORS[vector_id].vector.input, sort_keys=True)

    _Handler.broken = {
        key("kit-jcs-number-exponent"): "500",
        key("kit-jcs-negative-zero"): "text",
        key("kit-load-bom"): "slow",
    }
    _Handler.identity = False
    only = ["kit-jcs-number-exponent", "kit-jcs-negative-zero", "kit-load-bom", "kit-load-nan"]
    run = run_check(CheckOptions(impl=f"http:{server}", only=only, timeout=1.0))
    by_id = {c["vector"]: c for c in run.cases}
    assert {k: c["outcome"] for k, c in by_id.items()} == {
        "kit-jcs-negative-zero": "errored",
        "kit-jcs-number-exponent": "errored",
        "kit-load-bom": "errored",
        "kit-load-nan": "pass",
    }
    server_error = by_id["kit-jcs-number-exponent"]["actual"]
    assert server_error["message"].endswith("answered status 500 without a JSON body")
    assert server_error["context"]["body"] == "internal trouble"
    assert "without a JSON body" in by_id["kit-jcs-negative-zero"]["actual"]["message"]
    assert by_id["kit-load-bom"]["actual"]["message"].startswith("no answer from POST")
    assert run.header["implementation"]["name"] == server  # no identity endpoint
    assert run.exit_status == 1


def test_unreachable_service_does_not_start() -> None:
    with pytest.raises(ApconformError) as info:
        run_check(CheckOptions(impl="http:http://127.0.0.1:9", timeout=1.0))
    assert info.value.code == "APC-ADAPTER-START"
