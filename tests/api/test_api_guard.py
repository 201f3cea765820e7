"""The guard: load shedding, time limits, the last-resort 500, and access logs without bodies."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest
from conftest import call
from fastapi import APIRouter
from starlette.requests import Request

from apconform.api import ApiSettings, create_app, read_json, route_doc
from apconform.api.guard import RequestGuard
from apconform.api.routing import BODY_STATUSES, JsonResponse


async def _slow_app(scope: Any, receive: Any, send: Any) -> None:
    await asyncio.sleep(0.3)
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"{}"})


def _scope(path: str = "/x") -> dict[str, Any]:
    return {"type": "http", "method": "GET", "path": path, "headers": [], "client": None}


async def _collect(guard: RequestGuard, receive: Any = None) -> tuple[int, dict[str, str], bytes]:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def no_body() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    await guard(_scope(), receive or no_body, send)
    start = sent[0]
    headers = {k.decode(): v.decode() for k, v in start["headers"]}
    return start["status"], headers, b"".join(m.get("body", b"") for m in sent[1:])


def test_requests_beyond_max_in_flight_get_503_with_retry_after() -> None:
    guard = RequestGuard(_slow_app, ApiSettings(max_in_flight=2))

    async def three_at_once() -> list[tuple[int, dict[str, str], bytes]]:
        return list(await asyncio.gather(*(_collect(guard) for _ in range(3))))

    results = sorted(asyncio.run(three_at_once()), key=lambda r: r[0])
    assert [status for status, _, _ in results] == [200, 200, 503]
    _, headers, body = results[2]
    assert headers["retry-after"] == "1"
    assert json.loads(body)["code"] == "APC-HTTP-BUSY"
    assert guard.in_flight == 0


def test_processing_time_limit_answers_503() -> None:
    guard = RequestGuard(_slow_app, ApiSettings(request_timeout=0.05))
    status, _, body = asyncio.run(_collect(guard))
    assert status == 503
    problem = json.loads(body)
    assert problem["code"] == "APC-HTTP-TIMEOUT"
    assert problem["detail"] == "the request was not answered within 0.05 seconds"


def test_slow_upload_answers_408() -> None:
    guard = RequestGuard(_slow_app, ApiSettings(body_timeout=0.05))

    async def trickle() -> dict[str, Any]:
        await asyncio.sleep(1)
        return {"type": "http.request", "body": b"x", "more_body": True}

    status, headers, body = asyncio.run(_collect(guard, trickle))
    assert status == 408
    assert headers["connection"] == "close"
    assert json.loads(body)["code"] == "APC-HTTP-UPLOAD-TIMEOUT"


def _planted() -> APIRouter:
    router = APIRouter()

    @router.post("/v1/selftest/explode", **route_doc(answer={}, statuses=BODY_STATUSES, body={}))
    async def explode(request: Request) -> JsonResponse:
        value = await read_json(request)
        return JsonResponse({"ratio": 1 / value["n"]})

    return router


def test_an_escaped_exception_is_a_500_problem_and_the_trace_goes_to_the_log_only(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app = create_app(ApiSettings(), extra=_planted())
    with caplog.at_level(logging.INFO, logger="apconform.api"):
        reply = call(app, "POST", "/v1/selftest/explode", json_body={"n": 0})
    assert reply.status == 500
    problem = json.loads(reply.body)
    assert problem["code"] == "APC-HTTP-INTERNAL"
    assert problem["detail"] == "internal error (ZeroDivisionError) while handling the request"
    assert b"Traceback" not in reply.body and b"division" not in reply.body
    errors = [r for r in caplog.records if r.name == "apconform.api"]
    assert len(errors) == 1
    assert errors[0].fields["requestId"] == problem["requestId"]  # type: ignore[attr-defined]
    assert errors[0].exc_info is not None


def test_access_log_has_one_structured_line_per_request_and_no_body(
    api: Any, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="apconform.api.access"):
        reply = call(
            api,
            "POST",
            "/v1/kit/canonicalize",
            json_body={"value": "secret-token-123"},
            headers=[("x-request-id", "req-1")],
        )
    assert reply.status == 200
    records = [r for r in caplog.records if r.name == "apconform.api.access"]
    assert len(records) == 1
    fields = records[0].fields  # type: ignore[attr-defined]
    assert fields["requestId"] == "req-1"
    assert fields["method"] == "POST"
    assert fields["path"] == "/v1/kit/canonicalize"
    assert fields["status"] == 200
    assert fields["requestBytes"] == len(b'{"value": "secret-token-123"}')
    assert fields["responseBytes"] == len(reply.body)
    from apconform.api.logs import JsonFormatter

    line = JsonFormatter().format(records[0])
    assert "secret-token-123" not in line
    assert json.loads(line)["status"] == 200


def test_operations_also_run_on_the_event_loop_when_threads_is_0() -> None:
    app = create_app(ApiSettings(threads=0))
    assert app.state.executor is None
    reply = call(app, "POST", "/v1/kit/parse", json_body={"text": "[1, 2.50]"})
    assert reply.status == 200
    assert json.loads(reply.body) == {"canonical": "[1,2.5]"}
    refused = call(app, "POST", "/v1/kit/parse", json_body={"text": "[1,]"})
    assert refused.status == 400
    assert json.loads(refused.body)["code"] == "APC-JSON-SYNTAX"
