"""The routes beyond APx 0.1 answer as the library does, and their work stops with the request."""

from __future__ import annotations

import copy
from typing import Any

from fastapi.testclient import TestClient

from apconform.api.app import create_app
from apconform.api.settings import ApiSettings
from apconform.apx.population import power_request as run_power
from apconform.conformance.vectors import load_vectors

PLAN = next(v.vector for v in load_vectors() if v.vector.id == "apx-ext-power-plan")


def power_request(**changes: Any) -> dict[str, Any]:
    """The input of the vector apx-ext-power-plan, with top-level members replaced."""
    request: dict[str, Any] = copy.deepcopy(PLAN.input)
    request.update(changes)
    return request


def _client(**settings: Any) -> TestClient:
    return TestClient(create_app(ApiSettings(**settings), load_catalog=False, ledger=None))


def test_the_power_route_answers_the_library_document_and_refuses_beyond_its_budget() -> None:
    client = _client()
    request = power_request(target={"kind": "power", "value": 0.8, "vary": "pairs", "upTo": 8})
    answer = client.post("/v1/apx/power", json=request)
    assert answer.status_code == 200
    assert answer.json() == run_power(request)
    over = power_request(
        simulations=10000, target={"kind": "power", "value": 0.8, "vary": "families", "upTo": 1000}
    )
    refused = client.post("/v1/apx/power", json=over)
    assert refused.status_code == 422
    assert (refused.json()["code"], refused.json()["path"]) == ("APX-EXT-POW-BUDGET", "$.budget")


def test_a_power_analysis_stops_when_the_request_times_out() -> None:
    """Within its budget an analysis can outlast the request timeout (10,000,000 work units
    take about 25 s at 2.5 us a unit); once the server has answered 503 the simulations stop,
    so the worker's one thread is free for the next request at once."""
    client = _client(request_timeout=1.0, threads=1)
    plan = {
        "families": 20,
        "instancesPerFamily": 5,
        "participantsPerClass": 3,
        "attemptsPerParticipant": 2,
        "runsPerConfiguration": 10,
        "pairs": 10,
    }
    long = power_request(plan=plan, simulations=4500, budget=10_000_000)
    timed_out = client.post("/v1/apx/power", json=long)
    assert timed_out.status_code == 503
    assert timed_out.json()["code"] == "APC-HTTP-TIMEOUT"
    # Without the deadline this request would wait behind some 20 s of simulations and
    # time out too.
    after = client.post("/v1/apx/power-metrics", json={"creditedHumanHours": 2, "wallHours": 1})
    assert after.status_code == 200, after.text
