"""Schemathesis over the ledger routes of a server with a ledger, in process, with every check.

The same settings as the stateless API's fuzz test (tests/api/schemathesis.toml);
the ledger is an SQLite file in a temporary folder, accepting unsigned results,
so schema-valid submissions can reach the store. Nothing may answer 5xx, and
every answer must match the documented schema (schemas/openapi-ledger.json).
"""

from __future__ import annotations

import atexit
import copy
import shutil
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import deferred_fuzz
import pytest
import schemathesis
from conftest import call
from fuzz_hooks import REPAIRS
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import CHECKS, load_all_checks
from schemathesis.config import SchemathesisConfig
from schemathesis.generation.modes import GenerationMode

from apconform.api import OPENAPI_PATH, ApiSettings, create_app
from apconform.api.ledger_service import LedgerService

EXAMPLES = 25


def _config() -> SchemathesisConfig:
    with Path(__file__).with_name("schemathesis.toml").open("rb") as handle:
        data = tomllib.load(handle)
    data.setdefault("generation", {})["max-examples"] = EXAMPLES
    return SchemathesisConfig.from_dict(data)


_FOLDER = tempfile.mkdtemp(prefix="apconform-ledger-fuzz-")
atexit.register(shutil.rmtree, _FOLDER, True)
_APP = create_app(
    ApiSettings(),
    ledger=LedgerService(str(Path(_FOLDER) / "fuzz.db"), allow_unsigned=True, open_submission=True),
    load_catalog=False,
)
load_all_checks()
schema = schemathesis.openapi.from_asgi(OPENAPI_PATH, _APP, config=_config()).exclude(
    path_regex="^/v1/(?!ledger/)"
)


def test_the_schema_holds_the_four_ledger_operations() -> None:
    labels = {op.ok().label for op in schema.get_all_operations()}
    assert labels == {
        "POST /v1/ledger/entries",
        "GET /v1/ledger/entries",
        "GET /v1/ledger/entries/{ref}",
        "GET /v1/ledger/matrix/{protocol}",
    }


@settings(deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
def _conforms(case: Any) -> None:
    case.call_and_validate(checks=CHECKS.get_all())


@pytest.mark.parametrize("operation", deferred_fuzz.labels(schema))
def test_ledger_routes_conform_to_their_openapi(operation: str) -> None:
    """Built when it runs, not at collection (tests/api/deferred_fuzz.py)."""
    deferred_fuzz.run(schema, operation, _conforms)


def test_repaired_submissions_reach_the_store(tmp_path: Path) -> None:
    """The hook's submissions (tests/api/fuzz_hooks/ledger.py) are accepted: without it every
    generated positive submission was refused and schemathesis warned that the route "mostly
    rejected generated data" (seeds 2, 3 and 27 of .ci/fuzz-api's ledger run)."""
    service = LedgerService(str(tmp_path / "hook.db"), allow_unsigned=True, open_submission=True)
    app = create_app(ApiSettings(), ledger=service, load_catalog=False)
    operation = schema["/v1/ledger/entries"]["POST"]
    statuses: list[int] = []
    claims: set[str] = set()

    def post(case: Any) -> None:
        body = copy.deepcopy(case.body)
        if isinstance(body, dict):
            REPAIRS["/v1/ledger/entries"](body)
            claims.add(body["claim"]["documentSha256"])
            statuses.append(call(app, "POST", "/v1/ledger/entries", json_body=body).status)

    settings(
        max_examples=12,
        database=None,
        derandomize=True,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )(given(operation.as_strategy(generation_mode=GenerationMode.POSITIVE))(post))()
    assert statuses == [200] * len(statuses) and len(statuses) >= 10
    # a body drawn twice is the same claim again, answered with its entry (no new one)
    assert call(app, "GET", "/v1/ledger/entries").json["count"] == len(claims) >= 5
