"""The routes answer what the library answers; the OpenAPI says everything they can answer."""

from __future__ import annotations

import importlib
import json
import pkgutil
from pathlib import Path
from typing import Any

import pytest
from conftest import call
from fastapi import FastAPI
from shipped_vectors import shipped_vectors

import apconform
from apconform.api import OPENAPI_PATH, openapi_text, operation_path
from apconform.api.routing import OPERATION_STATUSES
from apconform.conformance.clauses import load_clause_registry
from apconform.conformance.compare import match_answer, match_refusal
from apconform.conformance.vectors import LoadedVector
from apconform.core.errors import registered_codes
from apconform.core.schemas import document_names, schema_digest

VECTORS = list(shipped_vectors())


@pytest.mark.parametrize("item", VECTORS, ids=[v.id for v in VECTORS])
def test_every_vector_passes_through_the_http_convention(api: FastAPI, item: LoadedVector) -> None:
    """Body = input; 2xx body = answer; 4xx problem code = refusal (the http: adapter's rules)."""
    vector = item.vector
    reply = call(api, "POST", operation_path(vector.operation), json_body=vector.input)
    if 200 <= reply.status < 300:
        assert reply.headers["content-type"] == "application/json"
        mismatches = match_answer(vector.expected, reply.json, vector.comparison)
    else:
        assert 400 <= reply.status < 500
        assert reply.headers["content-type"] == "application/problem+json"
        problem = reply.json
        mismatches = match_refusal(
            vector.expected, problem["code"], problem["detail"], problem.get("path")
        )
    assert [m.to_dict() for m in mismatches] == []


def test_operation_paths_follow_the_convention() -> None:
    assert operation_path("kit.canonicalize") == "/v1/kit/canonicalize"
    assert operation_path("ap1.resolve_operand") == "/v1/ap1/resolve-operand"


def test_version_reports_every_digest(api: FastAPI) -> None:
    report = call(api, "GET", "/v1/version").json
    assert report["kitVersion"] == apconform.__version__
    assert report["apiVersion"] == "v1"
    names = [entry["document"] for entry in report["schemas"]]
    assert names == document_names()
    assert {"clause-registry", "vector", "adapter-run"} <= set(names)
    assert report["schemas"] == [{"document": n, "sha256": schema_digest(n)} for n in names]
    assert report["clauseRegistrySha256"] == load_clause_registry().digest
    assert "kit.canonicalize" in report["operations"]


def test_clause_registry_is_served_as_committed(api: FastAPI, repo: Path) -> None:
    served = call(api, "GET", "/v1/conformance/clauses").json
    assert served == json.loads((repo / "spec/clauses.json").read_text(encoding="utf-8"))


def test_vectors_are_listed_filtered_and_fetched(api: FastAPI, repo: Path) -> None:
    everything = call(api, "GET", "/v1/conformance/vectors").json
    assert everything["count"] == len(VECTORS) == len(everything["vectors"])
    parse = call(api, "GET", "/v1/conformance/vectors", query="operation=kit.parse").json
    ids = [v["id"] for v in parse["vectors"]]
    assert ids == sorted(v.id for v in VECTORS if v.vector.operation == "kit.parse")
    depth = call(api, "GET", "/v1/conformance/vectors", query="clause=KIT-LOAD-2&protocol=kit").json
    assert "kit-load-depth-33" in [v["id"] for v in depth["vectors"]]
    apx = call(api, "GET", "/v1/conformance/vectors", query="protocol=apx").json
    assert apx["count"] == len([v for v in VECTORS if v.vector.protocol == "apx"])
    assert all(v["protocol"] == "apx" for v in apx["vectors"])
    one = call(api, "GET", "/v1/conformance/vectors/kit-load-depth-33")
    path = repo / "vectors/kit/parse/kit-load-depth-33.json"
    assert one.json == json.loads(path.read_text(encoding="utf-8"))
    missing = call(api, "GET", "/v1/conformance/vectors/no-such-vector")
    assert missing.status == 404
    assert missing.json["code"] == "APC-HTTP-VECTOR-UNKNOWN"


def test_check_gives_pass_and_fail_with_mismatches(api: FastAPI) -> None:
    passed = call(
        api,
        "POST",
        "/v1/conformance/check",
        json_body={"vectorId": "kit-load-depth-33", "refusal": {"code": "APC-JSON-DEPTH"}},
    ).json
    assert passed == {
        "vectorId": "kit-load-depth-33",
        "operation": "kit.parse",
        "clauses": ["KIT-LOAD-2"],
        "verdict": "pass",
        "mismatches": [],
    }
    failed = call(
        api,
        "POST",
        "/v1/conformance/check",
        json_body={"vectorId": "kit-load-plain-document", "answer": {"canonical": "{}"}},
    ).json
    assert failed["verdict"] == "fail"
    assert failed["mismatches"] == [
        {
            "path": "/canonical",
            "reason": "strings differ",
            "expected": '{"a":[1,2.5,"x",true,null]}',
            "actual": "{}",
        }
    ]
    unknown = call(
        api, "POST", "/v1/conformance/check", json_body={"vectorId": "nope", "answer": None}
    )
    assert unknown.status == 404


def test_served_openapi_is_the_committed_document(api: FastAPI, repo: Path) -> None:
    served = call(api, "GET", OPENAPI_PATH).json
    committed = (repo / "schemas/openapi.json").read_text(encoding="utf-8")
    assert json.loads(committed) == served
    assert openapi_text() == committed


def _operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, op)
        for path, item in document["paths"].items()
        for method, op in item.items()
    ]


def test_every_route_documents_its_statuses_with_problem_bodies(api: FastAPI) -> None:
    document = call(api, "GET", OPENAPI_PATH).json
    for path, _method, op in _operations(document):
        statuses = set(op["responses"])
        assert {"200", "408", "413", "500", "503"} <= statuses, (path, statuses)
        if "requestBody" in op:
            assert {"400", "415", "422"} <= statuses, path
        if op.get("parameters"):
            assert "422" in statuses, path
        for status, response in op["responses"].items():
            assert "X-Request-Id" in response["headers"]
            if status != "200":
                schema = response["content"]["application/problem+json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/Problem"}


_ADJUDICATION_APP_ONLY = {"AP1-ADJ-SCORER"}
"""Codes only `ap1 adjudicate serve`'s own application answers (a scorer naming another's
store is 403 there); no route of the API refuses with them."""


def test_every_error_code_status_is_documented_on_operation_routes() -> None:
    for info in pkgutil.walk_packages(apconform.__path__, "apconform."):
        if not info.name.startswith(("apconform.dev", "apconform.models")):
            importlib.import_module(info.name)
    undocumented = {
        code.code: code.http_status
        for code in registered_codes()
        if code.http_status not in (*OPERATION_STATUSES, 404, 405)
        and code.code not in _ADJUDICATION_APP_ONLY
    }
    assert undocumented == {}, "add these statuses to OPERATION_STATUSES in api/routing.py"


def test_openapi_carries_patterns_bounds_and_enums(api: FastAPI) -> None:
    schemas = call(api, "GET", OPENAPI_PATH).json["components"]["schemas"]
    problem = schemas["Problem"]["properties"]
    assert problem["status"]["minimum"] == 400 and problem["status"]["maximum"] == 599
    assert "ge" not in problem["status"]
    assert problem["code"]["pattern"] == "^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$"
    assert schemas["Vector"]["properties"]["id"]["maxLength"] == 128
    assert schemas["Protocol"]["enum"] == ["apx", "ap1", "kit"]
    assert schemas["Problem"]["additionalProperties"] is False


def test_documents_validate_against_their_schema(api: FastAPI, repo: Path) -> None:
    from apconform.core.canonical import sha256_hex

    vector = json.loads(
        (repo / "vectors/kit/parse/kit-load-depth-33.json").read_text(encoding="utf-8")
    )
    valid = call(api, "POST", "/v1/documents/vector/validate", json_body=vector)
    assert valid.status == 200
    assert valid.json == {"document": "vector", "sha256": sha256_hex(vector)}
    broken = {**vector, "protocol": "apz"}
    del broken["clauses"]
    refused = call(api, "POST", "/v1/documents/vector/validate", json_body=broken)
    assert refused.status == 422
    assert [(v["path"], v["code"]) for v in refused.json["violations"]] == [
        ("$.protocol", "APC-SCHEMA-VIOLATION"),
        ("$.clauses", "APC-SCHEMA-VIOLATION"),
    ]
