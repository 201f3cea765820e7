"""The adapter: exact requests, retries and their records, shapes, credentials, no other host."""

from __future__ import annotations

import io
import json
import threading
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from apconform.ap1.masking import Masker, mask_text
from apconform.ap1.mock import MockEndpoint
from apconform.ap1.run.endpoint import Endpoint
from apconform.ap1.run.engine import RunOptions, run_sealed
from apconform.ap1.run.ratelimit import RateLimiter
from apconform.ap1.run.request import build_body
from apconform.ap1.run.retry import RetryPolicy, backoff_wait, simulate
from apconform.ap1.run.shapes import classify_shape, echoed_sampling
from apconform.ap1.transcript.verify import verify_transcript
from apconform.core.errors import ApconformError

from .runs import example_inputs, seal_run

POLICY = RetryPolicy(3, Decimal("0.01"), Decimal("2"), Decimal("0.05"), Decimal("1"))


class _Scripted(BaseHTTPRequestHandler):
    """Answers from a per-server script; records what it received."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        return

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.server.seen.append((dict(self.headers), body))  # type: ignore[attr-defined]
        status, headers, payload = self.server.script.pop(0)  # type: ignore[attr-defined]
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


class _Server:
    def __init__(self, script: list[tuple[int, dict[str, str], bytes]]) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Scripted)
        self.httpd.script = list(script)  # type: ignore[attr-defined]
        self.httpd.seen = []  # type: ignore[attr-defined]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1/chat/completions"

    @property
    def seen(self) -> list[tuple[dict[str, str], bytes]]:
        return self.httpd.seen  # type: ignore[attr-defined, no-any-return]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _endpoint(url: str, *, key: str | None = None) -> Endpoint:
    return Endpoint(
        url,
        POLICY,
        api_key=key,
        masker=Masker([key] if key else []),
        limiter=RateLimiter(None),
        stop=threading.Event(),
    )


def _chat(text: str) -> bytes:
    return json.dumps(
        {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}
    ).encode()


def test_the_request_body_is_exact_and_every_setting_is_recorded() -> None:
    inputs = example_inputs()
    view = inputs.config.condition("base")
    body, sampling = build_body("m", [{"role": "user", "content": "é?"}], view)
    assert body.startswith(
        '{"model":"m","messages":[{"role":"user","content":"é?"}],"tools":[{"type":"function"'
    )
    assert body.endswith(',"temperature":0,"seed":7,"max_completion_tokens":1024}')
    assert "tool_choice" not in body and "top_p" not in body
    assert sampling[:3] == [
        {
            "name": "tool_choice",
            "omitted": "operator-declared",
            "detail": view.tool_choice["detail"],
        },
        {"name": "temperature", "sent": "0"},
        {
            "name": "top_p",
            "omitted": "operator-declared",
            "detail": view.sampling["top_p"]["detail"],
        },
    ]
    assert [s["name"] for s in sampling] == [
        "tool_choice",
        "temperature",
        "top_p",
        "seed",
        "max_tokens",
        "max_completion_tokens",
        "top_k",
        "presence_penalty",
        "frequency_penalty",
        "stop",
        "reasoning_effort",
    ]


def test_a_decimal_parameter_keeps_its_digits_on_the_wire() -> None:
    inputs = example_inputs()
    view = inputs.config.condition("base")
    sampling = dict(view.sampling, temperature={"send": "0.70"}, stop={"send": "END"})
    body, record = build_body("m", [], type(view)(**{**view.__dict__, "sampling": sampling}))
    assert '"temperature":0.70,' in body and '"stop":"END"' in body
    assert {"name": "temperature", "sent": "0.70"} in record
    assert {"name": "stop", "sent": '"END"'} in record


def test_retries_are_recorded_and_an_answer_follows() -> None:
    server = _Server(
        [
            (429, {"Retry-After": "0"}, b'{"error": {"message": "slow down"}}'),
            (500, {}, b'{"error": {}}'),
            (200, {}, b'{"choices": [{"mess'),
        ]
    )
    try:
        exchange = _endpoint(server.url).exchange('{"x":1}', [])
    finally:
        server.close()
    outcomes = [
        (a["outcome"], a.get("httpStatus"), a.get("waitSeconds")) for a in exchange.attempts
    ]
    assert outcomes == [
        ("rate-limited", "429", "0.01"),
        ("server-error", "500", "0.02"),
        ("malformed-body", "200", None),
    ]
    assert not exchange.answered
    assert exchange.cause.startswith(
        "malformed-body after 3 attempts: HTTP 200 with a body that is not JSON"
    )


def test_a_client_error_is_not_retried() -> None:
    server = _Server([(400, {}, b'{"error": {"message": "temperature is not supported"}}')])
    try:
        exchange = _endpoint(server.url).exchange("{}", [])
    finally:
        server.close()
    assert [a["outcome"] for a in exchange.attempts] == ["http-error"]
    assert (
        exchange.cause == "http-error after 1 attempt: HTTP 400: "
        '{"error": {"message": "temperature is not supported"}}'
    )
    assert exchange.response is not None and exchange.response["shape"] == "error-object"


def test_a_redirect_is_not_followed() -> None:
    elsewhere = _Server([(200, {}, _chat("should never be asked"))])
    server = _Server([(302, {"Location": elsewhere.url}, b"")])
    try:
        exchange = _endpoint(server.url).exchange("{}", [])
    finally:
        server.close()
        elsewhere.close()
    assert [a["outcome"] for a in exchange.attempts] == ["http-error"]
    assert elsewhere.seen == []


def test_proxy_settings_in_the_environment_are_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")
    server = _Server([(200, {}, _chat("fine"))])
    try:
        exchange = _endpoint(server.url).exchange("{}", [])
    finally:
        server.close()
    assert exchange.answered and len(server.seen) == 1


def test_the_key_is_sent_but_never_recorded() -> None:
    key = "sk-test-0123456789abcdefghij"
    server = _Server([(200, {}, _chat(f"your key is {key} and Bearer abcdefghijklmnop"))])
    try:
        exchange = _endpoint(server.url, key=key).exchange("{}", [])
    finally:
        server.close()
    assert server.seen[0][0]["Authorization"] == f"Bearer {key}"
    recorded = json.dumps([exchange.request, exchange.attempts, exchange.response])
    assert key not in recorded and "abcdefghijklmnop" not in recorded
    assert {"name": "Authorization", "value": "Bearer [REDACTED]"} in exchange.request["headers"]
    assert exchange.response["masked"] is True


def test_a_run_reads_the_key_from_the_environment_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-proj-0123456789abcdefghijklmn"
    with MockEndpoint(example_inputs(), seed=1) as mock:
        run_dir = seal_run(
            tmp_path,
            mock.url,
            "mock-correct",
            endpoint={"apiKeyEnv": "APCONFORM_TEST_KEY"},
            repeats="1",
        )
        monkeypatch.delenv("APCONFORM_TEST_KEY", raising=False)
        with pytest.raises(ApconformError) as caught:
            run_sealed(run_dir, RunOptions())
        assert caught.value.code == "AP1-API-KEY-MISSING"
        assert not (run_dir / "transcript.jsonl").exists()
        monkeypatch.setenv("APCONFORM_TEST_KEY", key)
        run_sealed(run_dir, RunOptions(progress=io.StringIO(), tty=False))
    everything = b"".join(p.read_bytes() for p in run_dir.rglob("*") if p.is_file())
    assert key.encode() not in everything
    assert b"Bearer [REDACTED]" in everything
    assert verify_transcript(run_dir / "transcript.jsonl").finished


def test_backoff_and_the_retry_schedule() -> None:
    policy = RetryPolicy(4, Decimal("0.5"), Decimal("2"), Decimal("3"), Decimal("10"))
    assert [backoff_wait(policy, n) for n in (1, 2, 3, 4)] == [
        Decimal("0.5"),
        Decimal("1.0"),
        Decimal("2.00"),
        Decimal("3"),
    ]
    assert backoff_wait(policy, 1, Decimal("2.5")) == Decimal("2.5")
    assert backoff_wait(policy, 1, Decimal("60")) == Decimal("3")
    assert simulate(policy, [("timeout", None), ("ok", None)]) == {
        "status": "answered",
        "attempts": "2",
        "waits": ["0.5"],
        "cause": None,
    }
    assert (
        simulate(policy, [("server-error", None)] * 4)["cause"] == "server-error after 4 attempts"
    )
    assert simulate(policy, [("http-error", None)])["attempts"] == "1"


@pytest.mark.parametrize(
    ("body", "shape"),
    [
        ({"choices": [{"message": {"content": "x"}}]}, "openai-chat-completion"),
        ({"type": "message", "content": [{"type": "text", "text": "x"}]}, "anthropic-messages"),
        ({"candidates": [{"content": {}}]}, "gemini-generate-content"),
        ({"object": "response", "output": []}, "openai-responses"),
        ({"output": [], "status": "completed"}, "openai-responses"),
        ({"error": {"message": "nope"}}, "error-object"),
        ({"choices": []}, "unrecognised"),
        ([1, 2], "unrecognised"),
    ],
)
def test_response_shapes_are_named(body: Any, shape: str) -> None:
    assert classify_shape(body)[0] == shape


def test_echoed_sampling_is_kept_verbatim() -> None:
    assert echoed_sampling({"temperature": Decimal("1.0"), "seed": 7, "model": "m"}) == [
        {"name": "temperature", "valueJson": "1.0"},
        {"name": "seed", "valueJson": "7"},
    ]


def test_masking_patterns() -> None:
    assert mask_text("a sk-ant-api03-abcdefghijk b ghp_abcdefghij1234 c AIza" + "x" * 24) == (
        "a [REDACTED] b [REDACTED] c [REDACTED]"
    )
    assert mask_text("Authorization: bearer abcdefghij.klm") == "Authorization: bearer [REDACTED]"
    assert mask_text("short sk-abc and plain text 12345") == "short sk-abc and plain text 12345"
