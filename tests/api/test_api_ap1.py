"""The typed AP-1 routes: the instrument's own checks over HTTP, and seal verification in memory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import call
from fastapi import FastAPI

from apconform.ap1 import load_run_inputs, verify_seal, write_sealed_run
from apconform.ap1.seal.build import build_seal
from apconform.core.canonical import sha256_hex
from apconform.core.files import load_path
from apconform.resources import data_path

EXAMPLE = ("config-mock.json", "fixture.json", "questions.json", "derivations.json")


def _example(name: str) -> Any:
    return load_path(data_path("examples", "ap1", name))


def _text() -> str:
    return data_path("examples", "ap1", "ap1-text-stand-in.md").read_text(encoding="utf-8")


def _inputs() -> dict[str, Any]:
    config, fixture, questions, derivations = (_example(name) for name in EXAMPLE)
    return {
        "config": config,
        "fixture": fixture,
        "questions": questions,
        "derivations": derivations,
    }


def _problem(reply: Any) -> dict[str, Any]:
    assert reply.headers["content-type"] == "application/problem+json"
    problem: dict[str, Any] = reply.json
    return problem


@pytest.mark.parametrize(
    ("path", "member", "document"),
    [
        ("/v1/ap1/validate-config", "config", "ap1-config"),
        ("/v1/ap1/validate-fixture", "fixture", "ap1-fixture"),
        ("/v1/ap1/validate-questions", "questions", "ap1-questions"),
    ],
)
def test_a_valid_document_gets_the_digest_its_seal_records(
    api: FastAPI, path: str, member: str, document: str
) -> None:
    inputs = _inputs()
    seal = build_seal(load_run_inputs(**inputs, ap1_text=_text()), sealed_at="2026-01-01T00:00:00Z")
    reply = call(api, "POST", path, json_body=inputs[member])
    assert reply.status == 200
    assert reply.json == {"document": document, "sha256": seal["inputs"][member]["sha256"]}


def test_the_worked_example_derivations_pass_with_every_digest(api: FastAPI) -> None:
    inputs = _inputs()
    reply = call(api, "POST", "/v1/ap1/validate-derivations", json_body=inputs)
    assert reply.status == 200
    assert reply.json == {
        "documents": [
            {"document": f"ap1-{name}", "sha256": sha256_hex(inputs[name])}
            for name in ("config", "fixture", "questions", "derivations")
        ]
    }


def test_a_config_with_bare_numbers_lists_each(api: FastAPI) -> None:
    config = _example("config-mock.json")
    config["repeats"] = 3
    config["answer"]["quantisation"]["places"] = 2
    problem = _problem(call(api, "POST", "/v1/ap1/validate-config", json_body=config))
    assert (problem["status"], problem["code"]) == (422, "AP1-CONFIG-BARE-NUMBER")
    assert sorted((v["code"], v["path"]) for v in problem["violations"]) == [
        ("AP1-CONFIG-BARE-NUMBER", "$.answer.quantisation.places"),
        ("AP1-CONFIG-BARE-NUMBER", "$.repeats"),
    ]


def test_a_fixture_with_a_duplicate_entity_is_refused(api: FastAPI) -> None:
    fixture = _example("fixture.json")
    fixture["entities"].append(fixture["entities"][0])
    last = len(fixture["entities"]) - 1
    problem = _problem(call(api, "POST", "/v1/ap1/validate-fixture", json_body=fixture))
    assert problem["code"] == "AP1-DUPLICATE-ID"
    assert [v["path"] for v in problem["violations"]] == [
        "$.entities[0].id",
        f"$.entities[{last}].id",
    ]


def test_derivation_faults_are_located_inside_their_member(api: FastAPI) -> None:
    inputs = _inputs()
    inputs["derivations"]["derivations"][0]["constants"][1]["value"] = "13"
    inputs["questions"]["items"][1]["requiredOperation"] = "abacus"
    problem = _problem(call(api, "POST", "/v1/ap1/validate-derivations", json_body=inputs))
    # questions against the configuration come first; derivations only once those hold
    assert [(v["code"], v["path"]) for v in problem["violations"]] == [
        ("AP1-REQUIRED-OPERATION", "$.questions.items[1].requiredOperation")
    ]
    inputs["questions"]["items"][1]["requiredOperation"] = "calculator"
    problem = _problem(call(api, "POST", "/v1/ap1/validate-derivations", json_body=inputs))
    assert (problem["status"], problem["code"], problem["path"]) == (
        422,
        "AP1-DRV-EXPECTED",
        "$.derivations.derivations[0]",
    )


def test_every_document_of_a_bundle_is_checked(api: FastAPI) -> None:
    inputs = _inputs()
    inputs["config"]["repeats"] = 3
    inputs["fixture"]["entities"].append(inputs["fixture"]["entities"][0])
    problem = _problem(call(api, "POST", "/v1/ap1/validate-derivations", json_body=inputs))
    paths = [v["path"] for v in problem["violations"]]
    assert paths[0] == "$.config.repeats"
    assert "$.fixture.entities[0].id" in paths


def _verification(inputs: dict[str, Any], seal: dict[str, Any]) -> dict[str, Any]:
    return {"seal": seal, **inputs, "ap1Text": _text()}


def test_verify_seal_finds_what_the_command_finds(api: FastAPI, tmp_path: Path) -> None:
    inputs = _inputs()
    record = write_sealed_run(tmp_path / "run", load_run_inputs(**inputs, ap1_text=_text()))
    reply = call(api, "POST", "/v1/ap1/verify-seal", json_body=_verification(inputs, record))
    assert reply.status == 200
    assert reply.json == {"valid": True, "findings": []}

    inputs["fixture"]["entities"][0]["fields"][0]["amount"] = "1.00"
    (tmp_path / "run" / "inputs" / "fixture.json").write_text(
        json.dumps(inputs["fixture"]), encoding="utf-8"
    )
    reply = call(api, "POST", "/v1/ap1/verify-seal", json_body=_verification(inputs, record))
    findings, _ = verify_seal(tmp_path / "run")
    assert reply.status == 200
    assert reply.json["valid"] is False
    assert reply.json["findings"] == [f.to_dict() for f in findings]
    assert reply.json["findings"][0]["component"] == "inputs.fixture"


def test_verify_seal_names_an_edited_record_and_text(api: FastAPI) -> None:
    inputs = _inputs()
    record = build_seal(
        load_run_inputs(**inputs, ap1_text=_text()), sealed_at="2026-01-01T00:00:00Z"
    )
    record["plan"]["repeats"] = "7"
    body = {**_verification(inputs, record), "ap1Text": _text() + "\nedited"}
    answer = call(api, "POST", "/v1/ap1/verify-seal", json_body=body).json
    assert answer["valid"] is False
    components = [f["component"] for f in answer["findings"]]
    assert components[:2] == ["sealHash", "ap1.textSha256"]
    assert all(f["fatal"] for f in answer["findings"])


def test_verify_seal_needs_a_seal_record_that_meets_its_schema(api: FastAPI) -> None:
    inputs = _inputs()
    body = {**_verification(inputs, {"schemaVersion": "apconform-ap1-seal/1"}), "trustedKeys": [1]}
    problem = _problem(call(api, "POST", "/v1/ap1/verify-seal", json_body=body))
    assert (problem["status"], problem["code"]) == (422, "APC-DOC-REFUSED")
    paths = {v["path"] for v in problem["violations"]}
    assert {"$.seal.sealHash", "$.seal.plan", "$.trustedKeys[0]"} <= paths


def test_parse_figures_refuses_a_blank_currency_symbol(api: FastAPI) -> None:
    """Schemathesis found this: an empty symbol once came back as a token's blank currency."""
    body = {"text": "$7 and 7", "decimalSeparator": ".", "currencySymbols": ["$"]}
    reply = call(api, "POST", "/v1/ap1/parse-figures", json_body=body)
    assert reply.status == 200
    assert reply.json == {
        "tokens": [{"value": "7", "text": "$7", "currency": "$"}, {"value": "7", "text": "7"}]
    }
    problem = _problem(
        call(api, "POST", "/v1/ap1/parse-figures", json_body={**body, "currencySymbols": ["$", ""]})
    )
    assert (problem["status"], problem["code"]) == (422, "APC-OP-INPUT")
    assert "currencySymbols" in json.dumps(problem)


def _vector_body(name: str) -> dict[str, Any]:
    body: dict[str, Any] = load_path(data_path("vectors", "ap1", "derivations", name))["input"]
    return body


@pytest.mark.parametrize(
    ("route", "extra"),
    [
        ("/v1/ap1/evaluate-derivation", {}),
        ("/v1/ap1/render-request", {"condition": "base"}),
        ("/v1/ap1/tool-loop", {"condition": "base", "responses": []}),
    ],
)
def test_an_item_the_questions_lack_is_refused_by_name(
    api: FastAPI, route: str, extra: dict[str, Any]
) -> None:
    """Schemathesis found these answering 500 (KeyError) for an unknown itemId."""
    body = {**_vector_body("ap1-derivation-exact-evaluation.json"), **extra, "itemId": "Q404"}
    problem = _problem(call(api, "POST", route, json_body=body))
    assert (problem["status"], problem["code"]) == (422, "APC-OP-INPUT")
    assert problem["detail"].endswith("the question set has no item 'Q404'")


def test_derivation_findings_report_a_question_fault_instead_of_failing(api: FastAPI) -> None:
    body = _vector_body("ap1-derivation-constants-used.json")
    body["fixture"]["entities"] = [
        {"id": "other", "name": "Other", "fields": [{"name": "a", "label": "x"}]}
    ]
    reply = call(api, "POST", "/v1/ap1/derivation-findings", json_body=body)
    assert reply.status == 200
    codes = {v["code"] for v in reply.json["violations"]}
    assert codes == {"AP1-UNKNOWN-ENTITY"}


def test_quantisation_places_beyond_the_limit_are_refused(api: FastAPI) -> None:
    body = _vector_body("ap1-derivation-constants-used.json")
    body["config"]["answer"]["quantisation"]["places"] = "10000000000"
    problem = _problem(call(api, "POST", "/v1/ap1/derivation-findings", json_body=body))
    assert (problem["status"], problem["code"]) == (422, "AP1-CONFIG-PLACES")


def test_resolve_operand_refuses_an_intermediate_without_a_label(api: FastAPI) -> None:
    """Schemathesis found a blank label answered as a blank candidate (ST108)."""
    body = {
        "operand": "2",
        "item": {
            "sources": {"acct.balance": "2"},
            "constants": {},
            "final": None,
            "intermediates": [{"label": "", "value": "2"}],
        },
        "earlierReturns": [],
    }
    problem = _problem(call(api, "POST", "/v1/ap1/resolve-operand", json_body=body))
    assert (problem["status"], problem["code"]) == (422, "APC-OP-INPUT")
    assert "label" in json.dumps(problem)


@pytest.mark.parametrize("member", ["sources", "constants"])
def test_resolve_operand_refuses_a_blank_source_or_constant_name(api: FastAPI, member: str) -> None:
    """Schemathesis found a blank source name answered as a blank candidate (ST108)."""
    body: dict[str, Any] = load_path(
        data_path("vectors", "ap1", *("operation", "ap1-opd-exact-equality-only.json"))
    )["input"]
    body["item"][member] = {"": "2"}
    problem = _problem(call(api, "POST", "/v1/ap1/resolve-operand", json_body=body))
    assert (problem["status"], problem["code"]) == (422, "APC-OP-INPUT")
    assert problem["detail"].endswith(f"$.item.{member} has a member with a blank name")


def test_merge_adjudication_refuses_a_sheet_that_is_not_csv(api: FastAPI) -> None:
    """Schemathesis found a carriage return inside a field answered as a 500 (csv.Error)."""
    body: dict[str, Any] = load_path(
        data_path("vectors", "ap1", *("adjudication", "ap1-adj-merge.json"))
    )["input"]
    body["sheet1"] = 'rowId,outcome\rx,"y\n'
    problem = _problem(call(api, "POST", "/v1/ap1/merge-adjudication", json_body=body))
    assert (problem["status"], problem["code"]) == (400, "AP1-ADJ-SHEET")
    assert problem["detail"].startswith("sheet 1 is not readable CSV")


def test_a_scripted_response_with_non_integer_numbers_is_read_as_the_engine_reads_it(
    api: FastAPI,
) -> None:
    """A JSON value in the script carries a non-integer number as a float; it was a 500."""
    body = load_path(data_path("vectors", "ap1", "execution", "ap1-loop-no-tool.json"))["input"]
    plain = call(api, "POST", "/v1/ap1/tool-loop", json_body=body)
    assert plain.status == 200, plain.json
    body["responses"][0]["usage"] = {"cost": 0.5, "big": 1e300, "zero": -0.0}
    body["responses"].append(2.5)  # never read: the loop stops after the first answer
    reply = call(api, "POST", "/v1/ap1/tool-loop", json_body=body)
    assert (reply.status, reply.json) == (200, plain.json)
    assert reply.json["finalText"] == "The answer is 3.50."
