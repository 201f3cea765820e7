"""Schemathesis over every operation, in process, with every built-in check and a fixed seed.

Negative data rejection and response schema conformance are among the
checks; the settings (seed, the operation routes' refusal statuses) come from
tests/api/schemathesis.toml, the file the CI run against a real server uses
too. The self-test plants a division by zero in a test-only route and shows
the same machinery reports it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi import APIRouter
from hypothesis import HealthCheck, settings
from schemathesis.checks import CHECKS, load_all_checks
from schemathesis.config import SchemathesisConfig
from starlette.requests import Request

from apconform.api import OPENAPI_PATH, ApiSettings, create_app, read_json, route_doc
from apconform.api.routing import BODY_STATUSES, JsonResponse
from apconform.core.errors import ApconformError
from apconform.core.validation import SCHEMA_VIOLATION

CONFIG = SchemathesisConfig.from_path(Path(__file__).with_name("schemathesis.toml"))
load_all_checks()
ALL_CHECKS = CHECKS.get_all()
EXAMPLES = 10

PLANT = "APCONFORM_TEST_PLANT_BUG"


def _planted_bug() -> APIRouter:
    """A test-only route with a bug: it divides by zero whenever n is a multiple of 10."""
    router = APIRouter()
    body = {
        "type": "object",
        "required": ["n"],
        "properties": {"n": {"type": "integer", "minimum": -1000, "maximum": 1000}},
        "additionalProperties": False,
    }

    @router.post(
        "/v1/selftest/divide",
        operation_id="selftest_divide",
        **route_doc(answer={"type": "object"}, statuses=BODY_STATUSES, body=body),
    )
    async def divide(request: Request) -> JsonResponse:
        value = await read_json(request)
        n = value.get("n") if isinstance(value, dict) and set(value) == {"n"} else None
        if type(n) not in (int, float) or not float(n).is_integer() or abs(n) > 1000:
            raise ApconformError(SCHEMA_VIOLATION, "n must be the only member, an integer")
        return JsonResponse({"share": 1000 // (int(n) % 10)})  # the bug

    return router


_APP = create_app(ApiSettings(), extra=_planted_bug() if os.environ.get(PLANT) else None)
schema = schemathesis.openapi.from_asgi(OPENAPI_PATH, _APP, config=CONFIG)


@pytest.mark.skipif(bool(os.environ.get(PLANT)), reason="the self-test's inner run")
def test_schema_covers_every_route() -> None:
    labels = {op.ok().label for op in schema.get_all_operations()}
    assert labels >= {
        "GET /v1/conformance/clauses",
        "GET /v1/conformance/vectors",
        "GET /v1/conformance/vectors/{vector_id}",
        "GET /v1/health",
        "GET /v1/version",
        "POST /v1/conformance/check",
        "POST /v1/documents/clause-registry/validate",
        "POST /v1/documents/vector/validate",
        "POST /v1/kit/canonicalize",
        "POST /v1/kit/parse",
    }


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_api_conforms_to_its_openapi(case: Any) -> None:
    case.call_and_validate(checks=ALL_CHECKS)


def test_the_in_process_fuzz_test_catches_a_planted_division_by_zero(tmp_path: Path) -> None:
    """Run this module's fuzz test again with the planted route mounted: it must fail there."""
    env = {**os.environ, PLANT: "1", "PYTHONDONTWRITEBYTECODE": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", __file__, "-k", "selftest", "-p", "no:cacheprovider"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    output = run.stdout + run.stderr
    assert run.returncode == 1, output
    assert (
        "1 failed" in output
        and "test_api_conforms_to_its_openapi[POST /v1/selftest/divide]" in output
    )
    assert "Server error" in output
    assert "internal error (ZeroDivisionError) while handling the request" in output


@pytest.mark.parametrize("path", ["/v1/kit/canonicalize", "/v1/kit/parse"])
def test_operation_routes_are_typed_in_the_schema(path: str) -> None:
    operation = schema[path]["POST"]
    assert operation.definition.raw["requestBody"]["required"] is True
