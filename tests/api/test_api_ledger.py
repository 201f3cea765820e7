"""The ledger routes: mounted only with a ledger, every submission verified before it is stored."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import call
from result_samples import PLANTED, conformance_records

from apconform.api import ApiSettings, create_app
from apconform.api.app import ledger_openapi_text
from apconform.api.ledger_service import LedgerService
from apconform.core.errors import ApconformError
from apconform.core.signing import Ed25519Key, generate_signing_key
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
    service = LedgerService(str(tmp_path / "open.db"), allow_unsigned=True, open_submission=True)
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
    service = LedgerService(
        str(tmp_path / "ex.db"), allow_unsigned=True, open_submission=True, clock=lambda: moment
    )
    app = create_app(ApiSettings(), ledger=service, load_catalog=False)
    body = paths["/v1/ledger/entries"]["post"]["requestBody"]["content"]["application/json"]
    requests = body["examples"]
    assert list(requests) == [
        "submission-of-apx-claim-result-valid-fixed-clock",
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


def _dated(
    records: list[dict[str, object]],
    moment: datetime,
    key: Ed25519Key | None = KEY,
    **correction: Any,
) -> dict[str, object]:
    """A submission whose claim says it was made at ``moment``."""
    submission = prepare(
        ResultKind.CONFORMANCE_REPORT, records, key=key, created_at=moment, **correction
    )
    return {"claim": submission.claim, "document": submission.document}


def test_a_replayed_submission_appends_nothing(app: object) -> None:
    """Issue 27, finding 2: re-posting an accepted submission made a new entry and turned the
    matrix back to the old result. Now it is answered with the entry that holds it; an old
    result never submitted cannot become the latest either, unless it is a correction."""
    failing = conformance_records({PLANTED: "wrong-value"}, name="impl-a", version="1")
    passing = conformance_records(name="impl-a", version="2")
    old = _submission(failing)  # claims made now, one after the other
    first = call(app, "POST", "/v1/ledger/entries", json_body=old)
    new = call(app, "POST", "/v1/ledger/entries", json_body=_submission(passing))
    assert (first.status, new.status) == (200, 200)
    replay = call(app, "POST", "/v1/ledger/entries", json_body=old)
    assert (replay.status, replay.json) == (200, first.json)  # the entry that holds it
    assert call(app, "GET", "/v1/ledger/entries").json["count"] == 2
    [column] = call(app, "GET", "/v1/ledger/matrix/kit").json["columns"]
    assert (column["seq"], column["verdict"]) == (2, "pass")
    now = datetime.now(UTC)
    again = _dated(failing, now - timedelta(seconds=1))  # the same document, claimed afresh
    refused = call(app, "POST", "/v1/ledger/entries", json_body=again)
    assert (refused.status, refused.json["code"]) == (409, "APC-LEDGER-DUPLICATE")
    assert "as entry 1 (" in refused.json["detail"]
    older = conformance_records({PLANTED: "error"}, name="impl-a", version="1.5")
    stale = call(
        app, "POST", "/v1/ledger/entries", json_body=_dated(older, now - timedelta(hours=1))
    )
    assert (stale.status, stale.json["code"]) == (409, "APC-LEDGER-STALE")
    assert stale.json["detail"].startswith("the latest conformance-report of 'impl-a' is entry 2")
    assert call(app, "GET", "/v1/ledger/entries").json["count"] == 2
    correction = _dated(
        older,
        now - timedelta(hours=1),
        supersedes=[new.json["entrySha256"]],
        reason="version 2 was measured on the wrong build",
    )
    corrected = call(app, "POST", "/v1/ledger/entries", json_body=correction)
    assert (corrected.status, corrected.json["seq"]) == (200, 3)
    [column] = call(app, "GET", "/v1/ledger/matrix/kit").json["columns"]
    assert (column["seq"], column["implementation"]["version"]) == (3, "1.5")


def test_a_claim_must_say_when_it_was_made(app: object) -> None:
    records = conformance_records(name="impl-d")
    undated = make_claim(
        ResultKind.CONFORMANCE_REPORT,
        prepare(ResultKind.CONFORMANCE_REPORT, records).document_sha256,
        key=KEY,
    )
    reply = call(
        app, "POST", "/v1/ledger/entries", json_body={"claim": undated, "document": records}
    )
    assert (reply.status, reply.json["code"]) == (422, "APC-LEDGER-CREATED")
    assert reply.json["detail"] == "the claim does not say when it was made"
    ahead = _dated(records, datetime.now(UTC) + timedelta(hours=1))
    reply = call(app, "POST", "/v1/ledger/entries", json_body=ahead)
    assert (reply.status, reply.json["code"]) == (422, "APC-LEDGER-CREATED")
    assert "more than 5 minutes after this ledger's clock" in reply.json["detail"]
    assert call(app, "GET", "/v1/ledger/entries").json["count"] == 0


def test_a_ledger_is_served_only_with_a_trust_decision(tmp_path: Path) -> None:
    """Issue 27, finding 3: a server with a ledger and no trusted key took a report signed by
    any fresh key for an implementation another key had signed, as that implementation's
    column. A ledger is now served only with trusted keys or with open submission."""
    for options in ({}, {"allow_unsigned": True}):
        with pytest.raises(ApconformError) as refused:
            LedgerService(str(tmp_path / "default.db"), **options)
        assert refused.value.code == "APC-LEDGER-TRUST"
    assert not (tmp_path / "default.db").exists()
    with pytest.raises(ApconformError) as refused:
        LedgerService(
            str(tmp_path / "x.db"), trusted_keys=(KEY.public_key_hex,), allow_unsigned=True
        )
    assert refused.value.code == "APC-LEDGER-TRUST"


def test_a_fresh_key_cannot_take_an_implementations_column(tmp_path: Path) -> None:
    """Issue 27, finding 3, as it was found: on a server started with a ledger and no trusted
    key, a report signed by a key made for the purpose became victim-impl's column. The most
    open server one can start now (open submission, no trusted key) refuses it."""
    victim, fresh = generate_signing_key(), generate_signing_key()
    service = LedgerService(str(tmp_path / "open.db"), open_submission=True)
    app = create_app(ApiSettings(), ledger=service, load_catalog=False)
    now = datetime.now(UTC)
    failing = conformance_records({PLANTED: "wrong-value"}, name="victim-impl", version="1")
    passing = conformance_records(name="victim-impl", version="2")
    signed = _dated(failing, now - timedelta(minutes=2), victim)
    assert call(app, "POST", "/v1/ledger/entries", json_body=signed).status == 200
    forged = _dated(passing, now - timedelta(minutes=1), fresh)
    taken = call(app, "POST", "/v1/ledger/entries", json_body=forged)
    assert (taken.status, taken.json.get("code")) == (409, "APC-LEDGER-BOUND")
    [column] = call(app, "GET", "/v1/ledger/matrix/kit").json["columns"]
    assert (column["seq"], column["verdict"], column.get("signer")) == (1, "fail", victim.key_id)


def test_under_open_submission_a_subject_stays_with_its_signer(tmp_path: Path) -> None:
    victim, fresh, operator = generate_signing_key(), generate_signing_key(), generate_signing_key()
    service = LedgerService(
        str(tmp_path / "open.db"),
        open_submission=True,
        allow_unsigned=True,
        trusted_keys=(operator.public_key_hex,),
    )
    app = create_app(ApiSettings(), ledger=service, load_catalog=False)
    now = datetime.now(UTC)

    def post(name: str, version: str, key: Ed25519Key | None, minutes: int) -> Any:
        body = _dated(
            conformance_records(name=name, version=version), now + timedelta(minutes=minutes), key
        )
        return call(app, "POST", "/v1/ledger/entries", json_body=body)

    assert post("victim-impl", "1", victim, -10).status == 200
    taken = post("victim-impl", "2", fresh, -9)
    assert (taken.status, taken.json["code"]) == (409, "APC-LEDGER-BOUND")
    assert taken.json["detail"] == (
        f"'victim-impl' (conformance-report) is bound to {victim.key_id}, which signed entry 1; "
        f"this claim is signed by {fresh.key_id}"
    )
    unsigned = post("victim-impl", "3", None, -8)
    assert (unsigned.status, unsigned.json["code"]) == (409, "APC-LEDGER-BOUND")
    assert post("fresh-impl", "1", fresh, -7).status == 200  # a subject of its own is fine
    assert post("victim-impl", "4", victim, -6).status == 200
    matrix = call(app, "GET", "/v1/ledger/matrix/kit").json
    signers = {c["implementation"]["name"]: c["signer"] for c in matrix["columns"]}
    assert signers == {"victim-impl": victim.key_id, "fresh-impl": fresh.key_id}
    assert post("victim-impl", "5", operator, -5).status == 200  # a trusted key takes it over
    assert post("victim-impl", "6", victim, -4).json["code"] == "APC-LEDGER-BOUND"
    description = call(app, "GET", "/v1/openapi.json").json["info"]["description"]
    assert "OPEN SUBMISSION: this server's ledger accepts results signed by any key" in description
    assert f"The trusted keys {operator.key_id} may take any subject over." in description


def test_entry_numbers_are_bounded(app: object) -> None:
    """Issue 27, finding 5: ``after=9223372036854775808`` overflowed the database (500)."""
    for value in ("9223372036854775808", "9007199254740992", "-1"):
        reply = call(app, "GET", "/v1/ledger/entries", query=f"after={value}")
        assert (reply.status, reply.json["code"]) == (422, "APC-HTTP-PARAMETER"), value
    reply = call(app, "GET", "/v1/ledger/entries", query="after=9007199254740991")
    assert (reply.status, reply.json["count"]) == (200, 0)
    document = json.loads(ledger_openapi_text())
    for operation in document["paths"]["/v1/ledger/entries"].values():
        for parameter in operation.get("parameters", []):
            if parameter["schema"].get("type") == "integer":
                assert "maximum" in parameter["schema"], parameter["name"]
