"""The error model at the edge: 413 before reading, 400 from the loader, 415, 422, 404, 405."""

from __future__ import annotations

import json

import pytest
from conftest import call
from fastapi import FastAPI

MIB = 1_048_576
JSON = [("content-type", "application/json")]


def _problem(reply_body: bytes) -> dict[str, object]:
    document = json.loads(reply_body)
    assert isinstance(document, dict)
    return document


def test_declared_body_over_1_mib_is_refused_before_a_byte_is_read(api: FastAPI) -> None:
    reply = call(api, "POST", "/v1/kit/canonicalize", body=b" " * (MIB + 1), headers=JSON)
    assert reply.status == 413
    assert reply.receive_calls == 0
    assert reply.headers["content-type"] == "application/problem+json"
    assert reply.headers["connection"] == "close"
    problem = _problem(reply.body)
    assert problem["code"] == "APC-JSON-SIZE"
    assert problem["type"] == "urn:apconform:error:APC-JSON-SIZE"
    assert problem["status"] == 413
    assert problem["detail"] == (
        "request body: the document is 1,048,577 bytes; the limit is 1,048,576 bytes"
    )
    assert problem["requestId"] == reply.headers["x-request-id"]


def test_streamed_body_is_cut_off_as_soon_as_it_passes_1_mib(api: FastAPI) -> None:
    chunk = b" " * 65_536
    reply = call(api, "POST", "/v1/kit/canonicalize", chunks=[chunk] * 40, headers=JSON)
    assert reply.status == 413
    assert reply.receive_calls == 17  # 16 chunks are exactly 1 MiB; the 17th passes the limit
    assert _problem(reply.body)["detail"] == (
        "request body: more than 1,048,576 bytes arrived; the limit is 1,048,576 bytes"
    )


def test_body_of_exactly_1_mib_is_accepted(api: FastAPI) -> None:
    document = b'{"value": [1, "a"]}'
    body = document + b" " * (MIB - len(document))
    reply = call(api, "POST", "/v1/kit/canonicalize", body=body, headers=JSON)
    assert reply.status == 200
    assert reply.json["canonical"] == '[1,"a"]'


def test_json_nested_33_deep_is_a_400_naming_the_limit(api: FastAPI) -> None:
    body = b"[" * 33 + b"0" + b"]" * 33
    reply = call(api, "POST", "/v1/kit/canonicalize", body=body, headers=JSON)
    assert reply.status == 400
    problem = _problem(reply.body)
    assert problem["code"] == "APC-JSON-DEPTH"
    assert problem["detail"] == (
        "request body: value at depth 33 is nested deeper than the limit of 32"
    )
    assert problem["hint"] == "Flatten the document: at most 32 levels below the root are allowed."


@pytest.mark.parametrize(
    "body,code",
    [
        (b"[" * 1000, "APC-JSON-DEPTH"),
        (b'{"value": 1,}', "APC-JSON-SYNTAX"),
        (b"", "APC-JSON-SYNTAX"),
        (b'{"value": 1, "value": 2}', "APC-JSON-DUPLICATE-KEY"),
        (b'{"value": NaN}', "APC-JSON-NONFINITE"),
        (b'{"value": 1e400}', "APC-JSON-NUMBER"),
        (b'{"value": "\\ud800"}', "APC-JSON-SURROGATE"),
        (b'\xef\xbb\xbf{"value": 1}', "APC-JSON-BOM"),
        (b'{"value": "\xff"}', "APC-JSON-ENCODING"),
    ],
)
def test_loader_refusals_are_400_problems(api: FastAPI, body: bytes, code: str) -> None:
    reply = call(api, "POST", "/v1/kit/canonicalize", body=body, headers=JSON)
    assert reply.status == 400
    assert _problem(reply.body)["code"] == code


@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin-1"],
)
def test_wrong_content_type_is_415(api: FastAPI, content_type: str | None) -> None:
    headers = [] if content_type is None else [("content-type", content_type)]
    reply = call(api, "POST", "/v1/kit/canonicalize", body=b'{"value": 1}', headers=headers)
    assert reply.status == 415
    assert _problem(reply.body)["code"] == "APC-HTTP-CONTENT-TYPE"


def test_json_with_utf8_charset_is_accepted(api: FastAPI) -> None:
    headers = [("content-type", "Application/JSON; charset=UTF-8")]
    reply = call(api, "POST", "/v1/kit/canonicalize", body=b'{"value": 1}', headers=headers)
    assert reply.status == 200


def test_schema_violations_are_422_with_every_violation(api: FastAPI) -> None:
    submission = {"vectorId": "Not An Id", "answer": 1, "extra": True}
    reply = call(api, "POST", "/v1/conformance/check", json_body=submission)
    assert reply.status == 422
    problem = _problem(reply.body)
    assert problem["code"] == "APC-DOC-REFUSED"
    assert problem["path"] == "$.vectorId"
    assert problem["violations"] == [
        {
            "code": "APC-SCHEMA-VIOLATION",
            "path": "$.vectorId",
            "message": "string should match pattern '^[a-z0-9][a-z0-9._-]*$'",
        },
        {
            "code": "APC-SCHEMA-VIOLATION",
            "path": "$.extra",
            "message": "this field is not allowed here (the document type is closed)",
        },
    ]


def test_query_parameter_violation_is_422(api: FastAPI) -> None:
    reply = call(api, "GET", "/v1/conformance/vectors", query="protocol=xyz")
    assert reply.status == 422
    problem = _problem(reply.body)
    assert problem["code"] == "APC-HTTP-PARAMETER"
    assert [v["path"] for v in problem["violations"]] == ["$.query.protocol"]  # type: ignore[union-attr]


def test_unknown_path_is_404_and_wrong_method_is_405_with_allow(api: FastAPI) -> None:
    missing = call(api, "GET", "/v1/nothing-here")
    assert missing.status == 404
    assert _problem(missing.body)["code"] == "APC-HTTP-NOT-FOUND"
    wrong = call(api, "PUT", "/v1/kit/parse", json_body={"text": "1"})
    assert wrong.status == 405
    assert wrong.headers["allow"] == "POST"
    assert _problem(wrong.body)["code"] == "APC-HTTP-METHOD"


def test_request_id_is_echoed_when_well_formed_and_made_up_otherwise(api: FastAPI) -> None:
    echoed = call(api, "GET", "/v1/health", headers=[("x-request-id", "trace-42.a:b_c")])
    assert echoed.headers["x-request-id"] == "trace-42.a:b_c"
    replaced = call(api, "GET", "/v1/nothing", headers=[("x-request-id", "bad id\t<script>")])
    made_up = replaced.headers["x-request-id"]
    assert len(made_up) == 32 and int(made_up, 16) >= 0
    assert _problem(replaced.body)["requestId"] == made_up
