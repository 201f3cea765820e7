"""The OpenAPI document is worth reading: every operation described, real examples, true answers.

Every request example is posted to a real `apconform serve`; the status and body it answers must
be the response example documented for that request (the request id aside).
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from apconform.api.examples import EXAMPLE_REQUEST_ID

REPO = Path(__file__).resolve().parents[2]
DOCUMENT = json.loads((REPO / "schemas/openapi.json").read_text(encoding="utf-8"))
OPERATIONS = [
    (path, method, operation)
    for path, item in DOCUMENT["paths"].items()
    for method, operation in item.items()
]

VOLATILE = {"/v1/ap1/verify-seal"}
"""The one route documented without an answer example: its answer names (the first digits of)
the digest of the instrument's own source code, every file of ``ap1/`` and ``core/``, so an
answer example would change the committed document with every edit of that code. The score
reports' examples name the scorer's digest, over the scoring code alone; those are kept."""


def _request_examples() -> list[tuple[str, str, Any]]:
    found = []
    for path, _, operation in OPERATIONS:
        body = operation.get("requestBody")
        if body:
            for name, example in body["content"]["application/json"].get("examples", {}).items():
                found.append((path, name, example["value"]))
    return found


def _response_examples(operation: dict[str, Any]) -> dict[str, tuple[int, Any]]:
    found = {}
    for status, response in operation["responses"].items():
        for media in response.get("content", {}).values():
            for name, example in media.get("examples", {}).items():
                found[name] = (int(status), example["value"])
    return found


def _validator(schema: dict[str, Any]) -> Draft202012Validator:
    return Draft202012Validator({**schema, "components": DOCUMENT["components"]})


def test_every_operation_has_a_description_and_examples() -> None:
    undescribed = [path for path, _, op in OPERATIONS if len(op.get("description", "")) < 40]
    assert undescribed == []
    with_body = {path for path, _, op in OPERATIONS if "requestBody" in op}
    with_example = {path for path, _, _ in _request_examples()}
    assert with_body - with_example == set()
    answered = {path for path, _, op in OPERATIONS if _response_examples(op)}
    unanswered = VOLATILE
    assert {path for path, _, _ in OPERATIONS} - answered == unanswered
    assert len(OPERATIONS) == 122
    assert len(with_example) == 117


def test_the_document_names_its_server() -> None:
    assert DOCUMENT["servers"][0]["url"] == "/"
    assert "/v1/docs" in DOCUMENT["info"]["description"]


@pytest.mark.parametrize(("path", "name", "value"), _request_examples())
def test_every_request_example_meets_its_schema(path: str, name: str, value: Any) -> None:
    schema = DOCUMENT["paths"][path]["post"]["requestBody"]["content"]["application/json"]
    errors = [e.message for e in _validator(schema["schema"]).iter_errors(value)]
    assert errors == [], f"{path} example {name}"


def test_every_response_example_meets_its_schema() -> None:
    checked = 0
    for path, _, operation in OPERATIONS:
        for status, response in operation["responses"].items():
            for media in response.get("content", {}).values():
                for name, example in media.get("examples", {}).items():
                    errors = [
                        e.message for e in _validator(media["schema"]).iter_errors(example["value"])
                    ]
                    assert errors == [], f"{path} {status} example {name}"
                    checked += 1
    assert checked >= 110  # at least one per operation (checked above), some have two


def test_the_ledger_document_has_every_example_and_each_meets_its_schema() -> None:
    """schemas/openapi-ledger.json: every route described, a request example for the body and
    an answer example for every route, each valid against its schema."""
    ledger = json.loads((REPO / "schemas/openapi-ledger.json").read_text(encoding="utf-8"))
    checked = []
    for path, item in ledger["paths"].items():
        for method, operation in item.items():
            assert len(operation.get("description", "")) >= 40, path
            media = [operation["responses"]["200"]["content"]["application/json"]]
            if "requestBody" in operation:
                media.append(operation["requestBody"]["content"]["application/json"])
            for content in media:
                assert content.get("examples"), f"{method} {path}"
                validator = Draft202012Validator(
                    {**content["schema"], "components": ledger["components"]}
                )
                for name, example in content["examples"].items():
                    errors = [e.message for e in validator.iter_errors(example["value"])]
                    assert errors == [], f"{method} {path} example {name}"
                    checked.append(name)
    assert len(checked) == 7


def test_examples_come_from_vectors() -> None:
    """An operation route's example is named after the vector whose input it is."""
    from apconform.api.examples import vector_input

    operation = DOCUMENT["paths"]["/v1/kit/canonicalize"]["post"]
    examples = operation["requestBody"]["content"]["application/json"]["examples"]
    assert len(examples) == 1
    for name, example in examples.items():
        assert vector_input(name) == example["value"]
    answer = operation["responses"]["200"]["content"]["application/json"]["examples"]
    assert set(answer) == set(examples)


def test_the_produced_examples_are_the_kits_own() -> None:
    """The badge, ledger and expected-failures examples: what the kit's code makes of its data."""
    documents = DOCUMENT["paths"]

    def example(document: str) -> tuple[str, Any]:
        body = documents[f"/v1/documents/{document}/validate"]["post"]["requestBody"]
        ((name, value),) = body["content"]["application/json"]["examples"].items()
        return name, value["value"]

    assert example("badge") == (
        "reference-kit-badge-2-vectors",
        {
            "schemaVersion": 1,
            "label": "apconform kit",
            "message": "partial run: 2/2 passed",
            "color": "orange",
        },
    )
    name, submission = example("ledger-submission")
    assert name == "submission-of-apx-claim-result-valid-fixed-clock"
    assert example("ledger-claim")[1] == submission["claim"]
    from apconform.api.examples import vector_input
    from apconform.core.canonical import sha256_hex

    assert submission["document"] == vector_input("apx-claim-result-valid")["document"]
    assert submission["claim"]["documentSha256"] == sha256_hex(submission["document"])
    assert submission["claim"]["kind"] == "apx-result"
    assert submission["claim"]["createdAt"] == "2026-01-01T00:00:00.000Z"  # the fixed clock
    assert example("xfail-list")[1]["entries"][0]["id"] == "kit-jcs-negative-zero"


def _document_example(document: str) -> tuple[str, Any]:
    body = DOCUMENT["paths"][f"/v1/documents/{document}/validate"]["post"]["requestBody"]
    ((name, value),) = body["content"]["application/json"]["examples"].items()
    return name, value["value"]


def test_the_run_examples_are_what_the_kits_runs_make() -> None:
    """Reports, ledger entries, imports and score reports: made by the kit's code on a fixed
    clock, signed with the example key, and the same on every build."""
    from apconform.api.example_runs import EXAMPLE_TIME, example_key
    from apconform.api.examples import vector_input
    from apconform.core.canonical import sha256_hex

    name, header = _document_example("report-header")
    assert name == "check-of-2-vectors-fixed-clock"
    assert header["startedAt"] == EXAMPLE_TIME
    assert header["target"] == "direct:apconform.conformance.reference:adapter"
    assert header["selection"] == {
        "protocols": ["kit"],
        "complete": False,
        "only": ["kit-jcs-negative-zero", "kit-vec-id-differs"],
    }
    name, case = _document_example("report-case")
    assert (case["vector"], case["outcome"], case["durationMs"]) == (
        "kit-jcs-negative-zero",
        "pass",
        0.0,
    )
    # the reproduce command names the shipped suite, not the temporary copy the run read
    assert case["reproduce"] == (
        "apconform check --impl direct:apconform.conformance.reference:adapter "
        "--only kit-jcs-negative-zero"
    )
    footer = _document_example("report-footer")[1]
    assert (footer["finishedAt"], footer["counts"]["pass"], footer["verdict"]) == (
        EXAMPLE_TIME,
        2,
        "incomplete",  # a run of two chosen vectors is partial, never a pass
    )
    diff = _document_example("result-diff")[1]
    assert diff["vectors"] == [{"change": "added", "item": "kit-vec-id-differs", "after": "pass"}]
    assert diff["regression"] is False

    key = example_key()
    name, signature = _document_example("report-signature")
    assert name == "check-of-2-vectors-example-key"
    assert signature["signature"]["keyId"] == key.key_id

    name, entry = _document_example("ledger-entry")
    assert name == "ledger-of-apx-claim-result-valid-fixed-clock"
    assert (entry["seq"], entry["previous"], entry["recordedAt"]) == (1, None, EXAMPLE_TIME)
    assert entry["claim"] == _document_example("ledger-claim")[1]
    record = _document_example("ledger-record")[1]
    assert record["entry"] == entry
    assert record["entrySha256"] == sha256_hex(entry)
    assert record["document"] == vector_input("apx-claim-result-valid")["document"]

    name, imported = _document_example("ap1-import-record")
    assert name == "import-of-ap1-imp-august-record"
    august = vector_input("ap1-imp-august-record")
    assert imported["publishedHashes"]["sealHash"] == august["sealRecord"]["seal_hash"]
    comparison = _document_example("ap1-reference-comparison")[1]
    assert comparison["referenceSealHash"] == imported["publishedHashes"]["sealHash"]
    assert comparison["executions"] == "1"

    name, report = _document_example("ap1-score-report")
    assert name == "score-of-ap1-rpt-transcript-anchor"
    name, anchor = _document_example("ap1-score-anchor")
    assert name == "score-of-ap1-rpt-transcript-anchor-example-key"
    assert anchor["sealHash"] == report["run"]["sealHash"]
    assert anchor["signature"]["keyId"] == key.key_id


def test_no_example_names_the_instruments_source_digest() -> None:
    """Why VOLATILE holds only verify-seal: no committed example names the digest of ``ap1/`` and
    ``core/``; the scorer's digest (scoring code only) is named by the score reports alone."""
    from apconform.ap1.scoring.report.document import scorer_identity
    from apconform.ap1.seal.source import instrument_source_hash

    text = json.dumps(DOCUMENT)
    assert instrument_source_hash()[:16] not in text
    naming = {
        path
        for path, _, operation in OPERATIONS
        if scorer_identity()["sourceSha256"] in json.dumps(operation)
    }
    assert naming == {
        "/v1/ap1/rescore",
        "/v1/ap1/score-transcript",
        "/v1/documents/ap1-score-report/validate",
    }


def test_the_example_key_signs_and_is_trusted_by_nobody() -> None:
    """The example signatures verify against the example key and against no default anchor."""
    from apconform.api.example_runs import EXAMPLE_KEY_LABEL, example_key
    from apconform.core.errors import ApconformError
    from apconform.core.signing import verify_document
    from apconform.core.trust import trust_anchors, verify_trusted

    assert "never trust it" in EXAMPLE_KEY_LABEL
    for document in ("report-signature", "ap1-score-anchor"):
        signed = _document_example(document)[1]
        verify_document(signed, trusted_public_keys=[example_key().public_key_hex])
        with pytest.raises(ApconformError) as refused:
            verify_trusted(signed, trust_anchors())
        assert refused.value.error_code.code == "APC-SIG-UNTRUSTED"


def test_the_xfail_example_names_a_vector_of_the_suite(tmp_path: Path) -> None:
    """The example list loads as `apconform check --xfail` loads one: its entry names a vector."""
    from apconform.api.examples import XFAIL_EXAMPLE
    from apconform.conformance.vectors import load_vectors
    from apconform.conformance.xfail import load_expected_failures

    path = tmp_path / "xfail.json"
    path.write_text(json.dumps(XFAIL_EXAMPLE), encoding="utf-8")
    loaded = load_expected_failures(path, load_vectors())
    assert list(loaded.by_id) == ["kit-jcs-negative-zero"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real `apconform serve` on a free loopback port: its base URL."""
    port = _free_port()
    log = (tmp_path_factory.mktemp("serve") / "server.log").open("w+", encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-m", "apconform.cli", "serve", "--port", str(port), "--no-access-log"],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                connection.request("GET", "/v1/health")
                connection.getresponse().read()
                connection.close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)


def _send(base: str, method: str, path: str, body: Any = None) -> tuple[int, dict[str, str], bytes]:
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=120)
    try:
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json"} if body is not None else {}
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def test_the_live_server_answers_every_example_as_documented(server: str) -> None:
    """Each request example gets exactly its documented response (2xx, or the vector's refusal)."""
    statuses: dict[int, int] = {}
    for path, name, value in _request_examples():
        status, _, body = _send(server, "POST", path, value)
        expected = _response_examples(DOCUMENT["paths"][path]["post"])
        if path in VOLATILE:
            assert status == 200, f"{path} example {name}"
            continue
        assert name in expected, f"{path}: no response example for request example {name}"
        answer = json.loads(body)
        if status != 200:
            answer["requestId"] = EXAMPLE_REQUEST_ID
        assert (status, answer) == expected[name], f"{path} example {name}"
        statuses[status] = statuses.get(status, 0) + 1
    assert statuses[200] >= 80
    assert set(statuses) <= {200, 400, 409, 422}


def test_the_get_examples_are_answered_as_documented(server: str) -> None:
    """Every GET route's example is the live answer: a vector's id names the vector asked for,
    and the vector list's example names its query."""
    gets = [path for path, method, _ in OPERATIONS if method == "get"]
    assert len(gets) == 5
    for path in gets:
        operation = DOCUMENT["paths"][path]["get"]
        examples = _response_examples(operation)
        assert len(examples) == 1, path
        for name, (status, value) in examples.items():
            target = path.replace("{vector_id}", name)
            if path == "/v1/conformance/vectors":
                assert name == "operation=kit.canonicalize"
                target += "?" + name
            answered, _, body = _send(server, "GET", target)
            assert (answered, json.loads(body)) == (status, value), path
    listed = _response_examples(DOCUMENT["paths"]["/v1/conformance/vectors"]["get"])
    (_, (_, vectors)), *_ = listed.items()
    assert vectors["count"] == len(vectors["vectors"]) > 1
    assert "kit-jcs-negative-zero" in {entry["id"] for entry in vectors["vectors"]}


def test_the_served_document_is_the_committed_one(server: str) -> None:
    status, _, body = _send(server, "GET", "/v1/openapi.json")
    assert status == 200
    assert json.loads(body) == DOCUMENT


VENDORED = REPO / "src/apconform/api/swagger_ui"


def test_the_docs_page_loads_nothing_from_outside(server: str) -> None:
    status, headers, body = _send(server, "GET", "/v1/docs")
    assert status == 200
    assert headers["content-type"] == "text/html; charset=utf-8"
    page = body.decode("utf-8")
    assert "//" not in page  # no absolute or protocol-relative URL: every one is relative
    assert "default-src 'none'" in headers["content-security-policy"]
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css", "apconform-docs.js"):
        assert f'"docs/{asset}"' in page
        status, headers, served = _send(server, "GET", f"/v1/docs/{asset}")
        assert status == 200
        assert served == (VENDORED / asset).read_bytes()
    status, headers, body = _send(server, "GET", "/v1/docs/../openapi.json")
    assert status == 404
    status, headers, body = _send(server, "GET", "/v1/docs/swagger-ui.css.map")
    assert (status, json.loads(body)["code"]) == (404, "APC-HTTP-NOT-FOUND")


def test_the_vendored_files_are_the_pinned_package() -> None:
    """The digests in VENDORED.md: swagger-ui-dist 5.35.0 unchanged, with its licence."""
    import hashlib

    note = (VENDORED / "VENDORED.md").read_text(encoding="utf-8")
    assert "swagger-ui-dist@5.35.0" in note
    digests = {
        "swagger-ui-bundle.js": "e6a898692f2d768e807c3ba4626068a69a2c5dd960dd6c76f3e4d3a3de180af2",
        "swagger-ui.css": "5ed08757e53da3e026d6cbecc61fe5d43585c9560b302d534ad56692519a273d",
        "LICENSE": "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30",
    }
    for name, digest in digests.items():
        assert hashlib.sha256((VENDORED / name).read_bytes()).hexdigest() == digest
    assert "Apache License" in (VENDORED / "LICENSE").read_text(encoding="utf-8")


@pytest.mark.skipif(os.environ.get("APCONFORM_NO_BROWSER") == "1", reason="browser tests off")
def test_the_interactive_docs_render_every_operation(
    server: str, browser: Any, tmp_path: Path
) -> None:
    browser.context.set_offline(False)  # the page's own server is on the loopback
    try:
        view = browser.open(f"{server}/v1/docs", allow=(server + "/",))
        view.page.wait_for_selector(".opblock", timeout=60_000)
        rendered = view.texts(".opblock-summary-path")
        title = view.texts(".info .title")
        canonicalize = view.page.locator("#operations-kit-kit_canonicalize")
        canonicalize.locator(".opblock-summary").click()
        canonicalize.locator(".opblock-body").wait_for(timeout=30_000)
        opened = canonicalize.inner_text()
        view.screenshot(tmp_path / "docs.png", full_page=False)
    finally:
        browser.context.set_offline(True)
    assert view.outside_requests == []
    assert view.console_errors == []
    assert title and title[0].startswith("apconform HTTP API")
    paths = {text.replace("\u200b", "").strip() for text in rendered}
    assert paths == set(DOCUMENT["paths"])
    assert len(rendered) == len(OPERATIONS)
    # the opened operation shows its description, its vector example and the answer to it
    assert "RFC 8785" in opened
    operation = DOCUMENT["paths"]["/v1/kit/canonicalize"]["post"]
    (example,) = operation["requestBody"]["content"]["application/json"]["examples"]
    assert example in opened
