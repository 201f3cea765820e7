"""Schemathesis over every operation, in process, with every built-in check and a fixed seed.

Negative data rejection and response schema conformance are among the
checks; the settings (seed, the operation routes' refusal statuses) come from
tests/api/schemathesis.toml, the file the CI run against a real server uses
too, and so do the hooks (tests/api/fuzz_hooks/) that make the documents of
a share of positive bodies agree with each other. The self-test plants a
division by zero in a test-only route and shows the same machinery reports it.

In process the run is kept short (about half a minute on a 2-core machine):
every operation gets its explicit examples, its coverage cases and
``EXAMPLES`` generated cases, except the ``HEAVY`` ones, whose bodies nest
whole APx campaigns, AP-1 input sets or other large documents: generating one
such body takes Hypothesis up to seconds, and their coverage phases alone
would be some 18,000 cases. They get a few generated cases and no coverage
phase here; the CI run against a real server runs every phase for every
operation with at least 100 generated cases each.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import deferred_fuzz
import pytest
import schemathesis
from fastapi import APIRouter
from fuzz_hooks import REPAIRS  # registers the hooks .ci/fuzz-api loads too
from hypothesis import HealthCheck, settings
from schemathesis.checks import CHECKS, load_all_checks
from schemathesis.config import SchemathesisConfig
from shipped_vectors import shipped_vectors
from starlette.requests import Request

from apconform.api import OPENAPI_PATH, ApiSettings, create_app, read_json, route_doc
from apconform.api.routing import BODY_STATUSES, JsonResponse
from apconform.core.errors import ApconformError
from apconform.core.validation import SCHEMA_VIOLATION

EXAMPLES = 10
VECTORS = list(shipped_vectors())
HEAVY = {
    # bodies nesting paired APx campaigns
    "/v1/apx/compare": 1,
    "/v1/documents/apx-comparison/validate": 1,
    "/v1/documents/apx-promotion-request/validate": 1,
    # a manifest and a run, or the four AP-1 inputs
    "/v1/apx/evaluate": 1,
    "/v1/apx/validate-run": 1,
    "/v1/documents/apx-evaluation-request/validate": 2,
    "/v1/ap1/validate-derivations": 1,
    # the four AP-1 inputs and an execution record, or a transcript
    "/v1/ap1/score-execution": 2,
    "/v1/ap1/score-transcript": 2,
    # one large document
    "/v1/apx/freeze": 3,
    "/v1/apx/validate-manifest": 3,
    "/v1/documents/apx-manifest/validate": 3,
    "/v1/documents/apx-run/validate": 3,
    "/v1/documents/apx-result/validate": 5,
    "/v1/ap1/validate-config": 5,
    "/v1/documents/ap1-config/validate": 5,
    "/v1/documents/ap1-derivations/validate": 4,
    "/v1/documents/ap1-seal/validate": 4,
    "/v1/documents/ap1-transcript-record/validate": 4,
    "/v1/documents/report-case/validate": 5,
    "/v1/documents/report-header/validate": 4,
    "/v1/ap1/verify-seal": 4,
    # vector operations taking the four AP-1 input documents, or execution records
    "/v1/ap1/adjudication-sheets": 1,
    "/v1/ap1/derivation-findings": 1,
    "/v1/ap1/evaluate-derivation": 1,
    "/v1/ap1/render-request": 1,
    "/v1/ap1/rescore": 1,
    "/v1/ap1/seal-record": 1,
    "/v1/ap1/tool-loop": 1,
    "/v1/ap1/seal-hash": 3,
    "/v1/ap1/classify-invocation": 4,
    "/v1/ap1/parameter-echo": 4,
    # beyond APx 0.1: paired campaigns, or simulations bounded only by the work budget
    "/v1/apx/population": 1,
    "/v1/documents/apx-ext-population-request/validate": 1,
    "/v1/documents/apx-ext-population/validate": 2,
    "/v1/apx/power": 2,
}
"""Operations whose bodies are expensive to generate or have hundreds of coverage cases:
in process they get this many generated cases and no coverage phase."""


def _in_process_config() -> SchemathesisConfig:
    """The shared settings, with the in-process budget (``EXAMPLES``, ``HEAVY``)."""
    with Path(__file__).with_name("schemathesis.toml").open("rb") as handle:
        data = tomllib.load(handle)
    data.setdefault("generation", {})["max-examples"] = EXAMPLES
    data["operations"] = [
        *data.get("operations", []),
        *(
            {
                "include-path": path,
                "generation": {"max-examples": count},
                "phases": {"coverage": {"enabled": False}},
            }
            for path, count in HEAVY.items()
        ),
    ]
    return SchemathesisConfig.from_dict(data)


CONFIG = _in_process_config()
load_all_checks()
ALL_CHECKS = CHECKS.get_all()

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
if os.environ.get(PLANT):  # the self-test's inner run needs the planted route only
    # (an exclusion: with [[operations]] in the settings, schemathesis's include filters
    # are or-ed with one that matches every operation)
    schema = schema.exclude(path_regex="^/v1/(?!selftest/)")


@pytest.mark.skipif(bool(os.environ.get(PLANT)), reason="the self-test's inner run")
def test_schema_covers_every_route() -> None:
    labels = {op.ok().label for op in schema.get_all_operations()}
    document = _APP.openapi()
    routes = {
        f"{method.upper()} {path}" for path, item in document["paths"].items() for method in item
    }
    assert labels == routes
    assert len(routes) >= 70
    assert {f"POST {path}" for path in HEAVY} <= routes
    # the ledger routes are served (and fuzzed) only with a ledger: test_api_ledger_fuzz.py
    assert {f"POST {p}" for p in REPAIRS if not p.startswith("/v1/ledger/")} <= routes


@pytest.mark.skipif(bool(os.environ.get(PLANT)), reason="the self-test's inner run")
def test_in_process_budget_is_applied_per_operation() -> None:
    project = CONFIG.projects.default
    operations = {op.ok().path: op.ok() for op in schema.get_all_operations()}

    def budget(path: str) -> tuple[int | None, bool]:
        operation = operations[path]
        examples = project.generation_for(operation=operation, phase="fuzzing").max_examples
        return examples, project.phases_for(operation=operation).coverage.enabled

    assert budget("/v1/apx/compare") == (1, False)
    assert budget("/v1/ap1/verify-seal") == (4, False)
    assert budget("/v1/kit/parse") == (EXAMPLES, True)


@settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def _conforms(case: Any) -> None:
    case.call_and_validate(checks=ALL_CHECKS)


@pytest.mark.parametrize("operation", deferred_fuzz.labels(schema))
def test_api_conforms_to_its_openapi(operation: str) -> None:
    """Each operation's examples, coverage and generated cases (built here, not at collection:
    see tests/api/deferred_fuzz.py)."""
    deferred_fuzz.run(schema, operation, _conforms)


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


def test_every_operation_route_is_typed_in_the_schema() -> None:
    """Each vector operation's body and answer are its contract's generated models."""
    from apconform.api import operation_path
    from apconform.conformance.contracts import contract_names, operation_contract

    typed_elsewhere = {
        "apx.validate_manifest": "ApxManifestRequest",
        "apx.validate_run": "EvaluationRequest",
        "apx.freeze": "ApxManifestDraft",
        "apx.evaluate": "EvaluationRequest",
        "apx.compare": "PromotionRequest",
        "ap1.score_execution": "Ap1ScoreExecutionRequest",
    }
    for name in contract_names():
        contract = operation_contract(name)
        assert contract is not None
        raw = schema[operation_path(name)]["POST"].definition.raw
        body = raw["requestBody"]["content"]["application/json"]
        expected = typed_elsewhere.get(name, contract.input_model.__name__)
        assert raw["requestBody"]["required"] is True
        assert body["schema"] == {"$ref": f"#/components/schemas/{expected}"}, name
        answer = raw["responses"]["200"]["content"]["application/json"]["schema"]
        assert answer == {"$ref": f"#/components/schemas/{contract.answer_model.__name__}"}, name
        answered = [
            v for v in VECTORS if v.vector.operation == name and v.vector.expected.kind != "refusal"
        ]
        assert body.get("examples") or not answered, name
