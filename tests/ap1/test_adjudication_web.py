"""The adjudication application's routes: blind scorers, refusals with stable codes, never a 500."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from apconform.ap1.adjudication_web import Desk, create_app
from apconform.ap1.scoring.adjudication.exchange import load_sheet
from apconform.ap1.scoring.adjudication.workspace import AdjudicationWorkspace
from apconform.core.errors import ApconformError

from .adjudication_support import copy_run, key_rows, planned_marks, sheet_with


@pytest.fixture
def run(demo: tuple[Path, str], tmp_path: Path) -> Path:
    return copy_run(demo[0], tmp_path / "run")


def _client(run: Path, **desk: Any) -> TestClient:
    return TestClient(create_app(Desk(run, **desk)), base_url="http://127.0.0.1:8765")


def _problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    assert body["code"] == code and body["status"] == status
    return body


def test_each_scorer_sees_only_their_own_marks(run: Path) -> None:
    client = _client(run)
    assert client.post("/api/scorers", json={"name": "Ada"}).json() == {"slot": 1, "name": "Ada"}
    assert client.post("/api/scorers", json={"name": "Bo"}).json() == {"slot": 2, "name": "Bo"}
    order = client.get("/api/scorers/1/items", params={"name": "Ada"}).json()["order"]
    row = order[0]["rowId"]
    put = client.put(
        f"/api/scorers/1/marks/{row}",
        json={"name": "Ada", "mark": {"outcome": "ORIGINATED", "notes": "ADA-ONLY reason"}},
    )
    assert put.json()["state"] == "partly" and put.json()["written"] is True
    for path in ("/api/scorers/2/items", f"/api/scorers/2/items/{row}"):
        seen = client.get(path, params={"name": "Bo"})
        assert seen.status_code == 200 and "ADA-ONLY" not in seen.text
        assert "ORIGINATED" not in json.dumps(seen.json().get("mark", {}))
    _problem(client.get("/api/scorers/1/items", params={"name": "Bo"}), 403, "AP1-ADJ-SCORER")
    _problem(
        client.get(f"/api/scorers/1/items/{row}", params={"name": "Bo"}), 403, "AP1-ADJ-SCORER"
    )
    item = client.get(f"/api/scorers/1/items/{row}", params={"name": "Ada"}).json()
    assert item["mark"]["notes"] == "ADA-ONLY reason" and item["position"] == 1
    evidence = json.dumps(item["evidence"])
    for hidden in ("instruction-removed", "base/", "cellKey", "condition", "You are a careful"):
        assert hidden not in evidence  # nothing names the condition or the request sent
    _problem(client.get("/api/reconciliation"), 409, "AP1-ADJ-NOT-READY")
    _problem(client.post("/api/reconciliation", json={}), 409, "AP1-ADJ-NOT-READY")


def test_bad_input_is_refused_with_stable_codes(run: Path) -> None:
    client = _client(run)
    client.post("/api/scorers", json={"name": "Ada"})
    client.post("/api/scorers", json={"name": "Bo"})
    row = key_rows(run)[0]["rowId"]
    url = f"/api/scorers/1/marks/{row}"
    body = _problem(
        client.put(url, json={"name": "Ada", "mark": {"outcome": "MAYBE"}}), 422, "AP1-ADJ-MARK"
    )
    assert body["path"] == "$.outcome" and "COMPUTED" in body["detail"]
    _problem(
        client.put(url, json={"name": "Ada", "mark": {"accuracy": "SORT-OF"}}), 422, "AP1-ADJ-MARK"
    )
    _problem(client.put(url, json={"name": "Ada", "mark": {"outcome": 3}}), 422, "AP1-ADJ-MARK")
    _problem(
        client.put("/api/scorers/1/marks/R-000000000000", json={"name": "Ada", "mark": {}}),
        404,
        "AP1-ADJ-ITEM",
    )
    _problem(client.get("/api/scorers/1/items/R-nope", params={"name": "Ada"}), 404, "AP1-ADJ-ITEM")
    _problem(client.put(url, json={"name": "Eve", "mark": {}}), 403, "AP1-ADJ-SCORER")
    _problem(client.post("/api/scorers", json={"name": "Eve"}), 403, "AP1-ADJ-SCORER")
    _problem(client.get("/api/scorers/3/items", params={"name": "Ada"}), 403, "AP1-ADJ-SCORER")
    _problem(
        client.put(url, json={"name": "Ada", "mark": {}, "extra": 1}), 422, "APC-HTTP-PARAMETER"
    )
    _problem(client.get("/api/scorers/1/items"), 422, "APC-HTTP-PARAMETER")
    _problem(client.get("/api/scorers/x/items", params={"name": "Ada"}), 422, "APC-HTTP-PARAMETER")
    _problem(
        client.put(url, content=b"{not json", headers={"Content-Type": "application/json"}),
        422,
        "APC-HTTP-PARAMETER",
    )
    _problem(
        client.put(url, content=b"name=Ada", headers={"Content-Type": "text/plain"}),
        415,
        "APC-HTTP-CONTENT-TYPE",
    )
    _problem(client.get("/api/session", headers={"Host": "evil.example"}), 400, "APC-HTTP-REQUEST")
    _problem(
        client.get("/api/session", headers={"Origin": "https://evil.example"}),
        400,
        "APC-HTTP-REQUEST",
    )
    _problem(client.get("/nowhere"), 404, "APC-HTTP-NOT-FOUND")
    _problem(client.get("/static/../../seal.json"), 404, "APC-HTTP-NOT-FOUND")
    _problem(client.delete(url), 405, "APC-HTTP-METHOD")


def test_a_tampered_store_is_refused_by_the_running_application(run: Path) -> None:
    client = _client(run)
    client.post("/api/scorers", json={"name": "Ada"})
    row = key_rows(run)[0]["rowId"]
    client.put(
        f"/api/scorers/1/marks/{row}", json={"name": "Ada", "mark": {"outcome": "ORIGINATED"}}
    )
    store = run / "adjudication/scorer-1.marks.jsonl"
    store.write_text(
        store.read_text(encoding="utf-8").replace("ORIGINATED", "COMPUTED  "), encoding="utf-8"
    )
    body = _problem(
        client.put(
            f"/api/scorers/1/marks/{row}", json={"name": "Ada", "mark": {"outcome": "COMPUTED"}}
        ),
        409,
        "AP1-ADJ-STORE",
    )
    assert "record 2" in body["detail"]
    with pytest.raises(ApconformError) as caught:
        Desk(run)  # and a server will not start on it
    assert caught.value.code == "AP1-ADJ-STORE"


def test_a_server_for_one_scorer_serves_that_scorer_only(run: Path) -> None:
    client = _client(run, scorer="Bo")
    assert client.get("/api/session").json()["fixedScorer"] == "Bo"
    assert client.post("/api/scorers", json={"name": "Bo"}).json()["slot"] == 1
    _problem(client.post("/api/scorers", json={"name": "Ada"}), 403, "AP1-ADJ-SCORER")
    _problem(client.get("/api/reconciliation"), 403, "AP1-ADJ-SCORER")
    _problem(client.post("/api/reconciliation/merge", json={}), 403, "AP1-ADJ-SCORER")


def test_reconciliation_closes_marking_and_the_merge_is_written_once(run: Path) -> None:
    rows = key_rows(run)
    client = _client(run)
    for name in ("Ada", "Bo"):
        client.post("/api/scorers", json={"name": name})
    desk_ws = AdjudicationWorkspace.open(run)
    blank = run / "report/adjudication"
    for slot, name in ((1, "Ada"), (2, "Bo")):
        load_sheet(
            desk_ws,
            name,
            sheet_with(blank / f"scorer-{slot}.csv", planned_marks(rows, slot)).encode(),
        )
    client = _client(run)  # a server started after the sheets were loaded
    assert client.get("/api/session").json()["reconciliation"] == {"opened": False, "ready": True}
    view = client.post("/api/reconciliation", json={}).json()
    assert view["scorers"] == ["Ada", "Bo"] and view["settled"] == 0
    assert {a["measure"] for a in view["agreement"]} == {"D1 outcome", "D1 accuracy"}
    first = view["disagreements"][0]
    assert first["scorer1"]["outcome"] != first["scorer2"]["outcome"]
    _problem(
        client.put(f"/api/scorers/1/marks/{rows[0]['rowId']}", json={"name": "Ada", "mark": {}}),
        409,
        "AP1-ADJ-CLOSED",
    )
    _problem(
        client.put(
            f"/api/reconciliation/settlements/{rows[0]['rowId']}",
            json={"outcome": "COMPUTED", "settledBy": "Cy"},
        ),
        409,
        "AP1-ADJ-SETTLE",
    )
    _problem(
        client.put(
            f"/api/reconciliation/settlements/{first['rowId']}", json={"outcome": "RETRIEVED"}
        ),
        422,
        "AP1-ADJ-MARK",
    )
    settled = client.put(
        f"/api/reconciliation/settlements/{first['rowId']}",
        json={"outcome": first["scorer1"]["outcome"], "settledBy": "Cy", "reason": "agreed"},
    ).json()
    assert settled["settled"]["settledBy"] == "Cy"
    merged = client.post("/api/reconciliation/merge", json={}).json()
    assert merged["merged"]["settledBy"] == ["Cy"] and Path(merged["path"]).is_file()
    _problem(client.post("/api/reconciliation/merge", json={}), 409, "AP1-ADJ-MERGED")


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    body=st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=20),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
        ),
        max_leaves=12,
    ),
    route=st.sampled_from(["marks", "settle", "claim", "merge"]),
)
def test_no_body_gives_a_500(run: Path, body: Any, route: str) -> None:
    client = _fuzz_client(run)
    row = key_rows(run)[0]["rowId"]
    path = {
        "marks": f"/api/scorers/1/marks/{row}",
        "settle": f"/api/reconciliation/settlements/{row}",
        "claim": "/api/scorers",
        "merge": "/api/reconciliation/merge",
    }[route]
    method = "POST" if route in ("claim", "merge") else "PUT"
    response = client.request(method, path, json=body)
    assert response.status_code < 500, response.text


_CLIENTS: dict[Path, TestClient] = {}


def _fuzz_client(run: Path) -> TestClient:
    if run not in _CLIENTS:
        _CLIENTS[run] = _client(run)
        _CLIENTS[run].post("/api/scorers", json={"name": "Ada"})
    return _CLIENTS[run]
