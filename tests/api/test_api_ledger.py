"""The ledger routes: mounted only with a ledger, every submission verified before it is stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import call
from result_samples import conformance_records

from apconform.api import ApiSettings, create_app
from apconform.api.app import ledger_openapi_text
from apconform.api.ledger_service import LedgerService
from apconform.core.signing import generate_signing_key
from apconform.ledger import Ledger, make_claim, prepare, verify_ledger
from apconform.results import ResultKind

KEY = generate_signing_key()


def _submission(records: list[dict[str, object]], **claim: object) -> dict[str, object]:
    submission = prepare(ResultKind.CONFORMANCE_REPORT, records, key=claim.pop("key", KEY))  # type: ignore[arg-type]
    return {"claim": submission.claim, "document": submission.document}


@pytest.fixture
def app(tmp_path: Path) -> object:
    service = LedgerService(str(tmp_path / "ledger.db"), trusted_keys=(KEY.public_key_hex,))
    return create_app(ApiSettings(), ledger=service, load_catalog=False)


def test_without_a_ledger_the_routes_do_not_exist() -> None:
    stateless = create_app(ApiSettings(), ledger=None, load_catalog=False)
    reply = call(stateless, "GET", "/v1/ledger/entries")
    assert reply.status == 404
    assert reply.json["code"] == "APC-HTTP-NOT-FOUND"


def test_submit_list_fetch_and_matrix(app: object, tmp_path: Path) -> None:
    records = conformance_records(name="impl-a")
    reply = call(app, "POST", "/v1/ledger/entries", json_body=_submission(records))
    assert reply.status == 200, reply.json
    entry = reply.json
    assert (entry["seq"], entry["previous"], entry["signer"]) == (1, None, KEY.key_id)
    assert entry["implementation"]["name"] == "impl-a" and entry["verdict"] == "pass"
    listing = call(app, "GET", "/v1/ledger/entries", query="kind=conformance-report").json
    assert (listing["count"], listing["headSeq"], listing["headSha256"]) == (
        1,
        1,
        entry["entrySha256"],
    )
    fetched = call(app, "GET", f"/v1/ledger/entries/{entry['entrySha256'][:12]}").json
    assert fetched["entrySha256"] == entry["entrySha256"] and fetched["document"] == records
    matrix = call(app, "GET", "/v1/ledger/matrix/kit").json
    assert [c["implementation"]["name"] for c in matrix["columns"]] == ["impl-a"]
    assert call(app, "GET", "/v1/ledger/entries/99").status == 404
    assert call(app, "GET", "/v1/ledger/entries/zz").status == 422
    with Ledger.open(tmp_path / "ledger.db") as ledger:
        assert verify_ledger(ledger, trusted_keys=[KEY.public_key_hex]).intact


def test_nothing_unverified_is_stored(app: object, tmp_path: Path) -> None:
    records = conformance_records()
    unsigned = prepare(ResultKind.CONFORMANCE_REPORT, records)
    reply = call(
        app,
        "POST",
        "/v1/ledger/entries",
        json_body={"claim": unsigned.claim, "document": unsigned.document},
    )
    assert (reply.status, reply.json["code"]) == (422, "APC-LEDGER-UNSIGNED")
    stranger = _submission(records, key=generate_signing_key())
    reply = call(app, "POST", "/v1/ledger/entries", json_body=stranger)
    assert (reply.status, reply.json["code"]) == (400, "APC-SIG-UNTRUSTED")
    edited = json.loads(json.dumps(_submission(records)))
    edited["document"][3]["outcome"] = "fail"  # type: ignore[index]
    reply = call(app, "POST", "/v1/ledger/entries", json_body=edited)
    assert (reply.status, reply.json["code"]) == (422, "APC-DOC-REFUSED")
    other = conformance_records(name="impl-z")
    swapped = _submission(records)
    swapped["document"] = other  # the claim's digest names another document
    reply = call(app, "POST", "/v1/ledger/entries", json_body=swapped)
    assert (reply.status, reply.json["code"]) == (422, "APC-LEDGER-DIGEST")
    claim = make_claim(
        ResultKind.CONFORMANCE_REPORT, "0" * 64, supersedes=["1" * 64], reason="x", key=KEY
    )
    reply = call(app, "POST", "/v1/ledger/entries", json_body={"claim": claim, "document": records})
    assert reply.status == 422  # the digest is checked before the superseded entry is looked up
    assert call(app, "GET", "/v1/ledger/entries").json["count"] == 0


def test_an_operator_may_allow_unsigned_results(tmp_path: Path) -> None:
    service = LedgerService(str(tmp_path / "open.db"), allow_unsigned=True)
    app = create_app(ApiSettings(), ledger=service, load_catalog=False)
    unsigned = prepare(ResultKind.CONFORMANCE_REPORT, conformance_records())
    reply = call(
        app,
        "POST",
        "/v1/ledger/entries",
        json_body={"claim": unsigned.claim, "document": unsigned.document},
    )
    assert reply.status == 200 and "signer" not in reply.json


def test_the_served_document_is_the_stateless_one_plus_the_ledger_routes(
    app: object, repo: Path
) -> None:
    served = call(app, "GET", "/v1/openapi.json").json
    stateless = json.loads((repo / "schemas/openapi.json").read_text(encoding="utf-8"))
    ledger = json.loads((repo / "schemas/openapi-ledger.json").read_text(encoding="utf-8"))
    assert ledger_openapi_text() == (repo / "schemas/openapi-ledger.json").read_text(
        encoding="utf-8"
    )
    assert set(served["paths"]) == set(stateless["paths"]) | set(ledger["paths"])
    assert set(ledger["paths"]) == {
        "/v1/ledger/entries",
        "/v1/ledger/entries/{ref}",
        "/v1/ledger/matrix/{protocol}",
    }
    for path, item in stateless["paths"].items():
        assert served["paths"][path] == item, path
    for name, schema in ledger["components"]["schemas"].items():
        assert served["components"]["schemas"][name] == schema, name


def test_the_ledger_documents_examples_are_what_a_ledger_answers(tmp_path: Path) -> None:
    """Posted in order to a new ledger whose clock reads the example time, each request example
    is answered with its documented answer, and so are the list, the first entry and the matrix."""
    from apconform.api.example_runs import EXAMPLE_TIME, example_moment

    document = json.loads(ledger_openapi_text())
    paths = document["paths"]

    def answers(path: str, method: str) -> dict[str, object]:
        media = paths[path][method]["responses"]["200"]["content"]["application/json"]
        return {name: example["value"] for name, example in media["examples"].items()}

    moment = example_moment()
    service = LedgerService(str(tmp_path / "ex.db"), allow_unsigned=True, clock=lambda: moment)
    app = create_app(ApiSettings(), ledger=service, load_catalog=False)
    body = paths["/v1/ledger/entries"]["post"]["requestBody"]["content"]["application/json"]
    requests = body["examples"]
    assert list(requests) == [
        "submission-of-apx-claim-result-valid.document",
        "check-of-2-vectors",
    ]
    submitted = answers("/v1/ledger/entries", "post")
    for name, example in requests.items():
        reply = call(app, "POST", "/v1/ledger/entries", json_body=example["value"])
        assert (reply.status, reply.json) == (200, submitted[name]), name
    assert [entry["recordedAt"] for entry in submitted.values()] == [EXAMPLE_TIME] * 2  # type: ignore[index]
    for path, target in (
        ("/v1/ledger/entries", "/v1/ledger/entries"),
        ("/v1/ledger/entries/{ref}", "/v1/ledger/entries/1"),
        ("/v1/ledger/matrix/{protocol}", "/v1/ledger/matrix/kit"),
    ):
        ((name, value),) = answers(path, "get").items()
        assert target.endswith(name) or name == "everything"
        reply = call(app, "GET", target)
        assert (reply.status, reply.json) == (200, value), path
    matrix = answers("/v1/ledger/matrix/{protocol}", "get")["kit"]
    assert [c["implementation"]["name"] for c in matrix["columns"]] == ["apconform-reference"]  # type: ignore[index]
