"""The fuzz hooks make a body's documents agree, for a share of positive cases only."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
import schemathesis
from conftest import call
from fastapi import FastAPI
from fuzz_hooks import NATIVE_REASONS, REPAIRS, coherent, map_case, repaired_share
from hypothesis import HealthCheck, given, settings
from schemathesis.generation.modes import GenerationMode

from apconform.ap1.seal.build import composite_hash
from apconform.ap1.seal.reference import reference_config_hash, reference_seal_hashes
from apconform.ap1.transcript.verify import verify_transcript_bytes
from apconform.core.canonical import canonical_text, sha256_hex, sha256_text
from apconform.core.files import load_path
from apconform.resources import data_path


def _vector_input(*parts: str) -> dict[str, Any]:
    value = load_path(data_path("vectors", "ap1", *parts))["input"]
    assert isinstance(value, dict)
    return value


def _in_share(body: dict[str, Any], member: str = "ap1Text") -> dict[str, Any]:
    """``body`` with ``member`` suffixed until the body is one the hooks repair."""
    for n in range(100):
        candidate = {**body, member: f"{body[member]} {n}"}
        if repaired_share(candidate):
            return candidate
    raise AssertionError("no variant in the repaired share")


def _out_of_share(body: dict[str, Any], member: str = "ap1Text") -> dict[str, Any]:
    for n in range(100):
        candidate = {**body, member: f"{body[member]} {n}"}
        if not repaired_share(candidate):
            return candidate
    raise AssertionError("no variant outside the repaired share")


def _incoherent_render_request() -> dict[str, Any]:
    """The base render-request vector with every cross-document relation broken."""
    body = copy.deepcopy(_vector_input("inputs", "ap1-request-base.json"))
    body["itemId"] = "no-such-item"
    for entity in body["fixture"]["entities"]:
        entity["id"] = entity["id"].upper()
    body["questions"]["items"].append(copy.deepcopy(body["questions"]["items"][0]))
    body["derivations"]["derivations"].pop()
    return _in_share(body)


def test_about_three_in_four_bodies_are_repaired() -> None:
    shares = [repaired_share({"text": str(n)}) for n in range(1000)]
    assert 700 <= sum(shares) <= 800
    assert shares == [repaired_share({"text": str(n)}) for n in range(1000)]


def test_a_broken_render_request_is_refused_then_answered_once_repaired(api: FastAPI) -> None:
    body = _incoherent_render_request()
    refused = call(api, "POST", "/v1/ap1/render-request", json_body=body)
    assert refused.status == 422
    repaired = coherent("/v1/ap1/render-request", body)
    assert repaired is not body and body["itemId"] == "no-such-item"  # the input is not changed
    answered = call(api, "POST", "/v1/ap1/render-request", json_body=repaired)
    assert answered.status == 200, answered.json
    # Agreement is derived from what was generated: the hash of the generated text, the
    # generated entities and items, a duplicated item id made unique.
    assert repaired["config"]["ap1"]["textSha256"] == sha256_text(body["ap1Text"])
    entities = {e["id"] for e in repaired["fixture"]["entities"]}
    assert entities == {e["id"] for e in body["fixture"]["entities"]}
    items = repaired["questions"]["items"]
    assert all(set(item["sourceEntities"]) <= entities for item in items)
    ids = [item["id"] for item in items]
    assert len(set(ids)) == len(ids) == 3
    assert repaired["itemId"] in ids
    assert [d["itemId"] for d in repaired["derivations"]["derivations"]] == ids


def test_a_coherent_body_keeps_its_values(api: FastAPI) -> None:
    body = _in_share(_vector_input("inputs", "ap1-request-base.json"), "condition")
    body["condition"] = "base"
    body = _in_share(body)
    body["config"]["ap1"]["textSha256"] = sha256_text(body["ap1Text"])
    assert repaired_share(body)
    assert coherent("/v1/ap1/render-request", body) == body


def test_a_body_outside_the_share_is_left_as_generated() -> None:
    body = _out_of_share(_incoherent_render_request())
    assert coherent("/v1/ap1/render-request", body) is body


def test_kit_parse_gets_a_json_text_holding_the_generated_text(api: FastAPI) -> None:
    body = _in_share({"text": "not JSON {"}, "text")
    repaired = coherent("/v1/kit/parse", body)
    assert json.loads(repaired["text"]) == body["text"]
    answered = call(api, "POST", "/v1/kit/parse", json_body=repaired)
    assert answered.status == 200, answered.json


def test_a_configuration_s_own_relations_are_repaired(api: FastAPI) -> None:
    config = _vector_input("inputs", "ap1-request-base.json")["config"]
    config["transport"]["backoffInitialSeconds"] = "90"
    config["transport"]["backoffMaxSeconds"] = "2"
    pair = config["conditions"]
    pair["instructionRemoved"][pair["varies"]] = pair["base"][pair["varies"]]
    for probe in range(100):
        config["transport"]["timeoutSeconds"] = f"{probe + 1}"
        if repaired_share(config):
            break
    assert call(api, "POST", "/v1/ap1/validate-config", json_body=config).status == 422
    repaired = coherent("/v1/ap1/validate-config", config)
    assert repaired["transport"]["backoffInitialSeconds"] == "2"
    assert repaired["transport"]["backoffMaxSeconds"] == "90"
    answered = call(api, "POST", "/v1/ap1/validate-config", json_body=repaired)
    assert answered.status == 200, answered.json


SCHEMA = schemathesis.openapi.from_path(str(data_path("schemas", "openapi.json")))


def _draw(
    mode: GenerationMode,
    count: int,
    test: Any,
    path: str = "/v1/ap1/render-request",
    *,
    derandomize: bool = False,
) -> None:
    operation = SCHEMA[path]["POST"]
    # No deadline: a test never fails on timing (a draw can take a second on a busy machine).
    settings(
        max_examples=count,
        database=None,
        derandomize=derandomize,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )(given(operation.as_strategy(generation_mode=mode))(test))()


def _hook(case: Any) -> Any:
    return map_case(schemathesis.HookContext(operation=case.operation), case)


def test_the_hook_repairs_a_positive_case() -> None:
    broken = _incoherent_render_request()
    seen: list[Any] = []

    def test(case: Any) -> None:
        case.body = copy.deepcopy(broken)  # schema-valid: the case stays positive
        seen.append(_hook(case).body)

    _draw(GenerationMode.POSITIVE, 1, test)
    assert seen == [coherent("/v1/ap1/render-request", broken)]
    assert seen[0] != broken


@pytest.mark.parametrize(
    ("path", "count"),
    [
        ("/v1/ap1/render-request", 40),
        ("/v1/ap1/tool-loop", 20),
        ("/v1/ap1/validate-derivations", 20),
        ("/v1/ap1/import-reference", 20),
        ("/v1/apx/adapter", 20),
    ],
)
def test_the_hook_leaves_every_negative_case_as_generated(path: str, count: int) -> None:
    would_change: list[bool] = []

    def test(case: Any) -> None:
        assert case.meta.generation.mode == GenerationMode.NEGATIVE
        before = copy.deepcopy(case.body)
        would_change.append(coherent(case.operation.path, before) != before)
        assert _hook(case).body == before

    _draw(GenerationMode.NEGATIVE, count, test, path)
    assert any(would_change)  # a repair would have touched some of them


def test_every_repaired_route_is_in_the_openapi_document() -> None:
    ledger = load_path(data_path("schemas", "openapi-ledger.json"))["paths"]  # --ledger only
    assert set(REPAIRS) <= set(SCHEMA.raw_schema["paths"]) | set(ledger)


def _rescore_body() -> dict[str, Any]:
    """The profile vector's sealed run, its AP-1 text and one record edited (chain broken)."""
    body = copy.deepcopy(_vector_input("report", "ap1-rpt-profile.json"))
    body["records"][2]["recordedAt"] = "2000-01-01T00:00:00Z"
    return _in_share(body)


def _chain_holds(records: list[dict[str, Any]], seal_hash: str) -> bool:
    text = "".join(canonical_text(r) + "\n" for r in records)
    return verify_transcript_bytes(text.encode("utf-8"), seal_hash=seal_hash).ok


def test_the_seal_and_the_chain_are_rebuilt_from_the_generated_documents(api: FastAPI) -> None:
    body = _rescore_body()
    original = _vector_input("report", "ap1-rpt-profile.json")
    assert not _chain_holds(body["records"], body["seal"]["sealHash"])
    repaired = coherent("/v1/ap1/rescore", body)
    seal = repaired["seal"]
    assert seal["ap1"]["textSha256"] == sha256_text(body["ap1Text"])
    assert seal["inputs"]["config"]["sha256"] == sha256_hex(repaired["config"])
    assert seal["sealHash"] == composite_hash(seal) != original["seal"]["sealHash"]
    assert _chain_holds(repaired["records"], seal["sealHash"])
    assert repaired["records"][2]["recordedAt"] == "2000-01-01T00:00:00Z"  # the edit is kept
    assert call(api, "POST", "/v1/ap1/rescore", json_body=body).status == 422
    answered = call(api, "POST", "/v1/ap1/rescore", json_body=repaired)
    assert answered.status == 200, answered.json
    integrity = answered.json["integrity"]
    assert integrity["inputsMatchSeal"] is True
    assert integrity["transcript"]["verified"] is True
    assert integrity["transcript"]["sealHashes"] == [seal["sealHash"]]


def test_a_transcript_text_is_rechained_line_by_line() -> None:
    body = _rescore_body()
    records = body.pop("records")
    lines = [canonical_text(r) for r in records]
    body["transcript"] = "\n".join([*lines[:3], "not a record", *lines[3:]]) + "\n"
    body = _in_share(body)
    repaired = coherent("/v1/ap1/score-transcript", body)
    out = repaired["transcript"].split("\n")
    assert out[3] == "not a record" and out[-1] == ""
    rechained = [json.loads(line) for line in out[:3] + out[4:-1]]
    assert _chain_holds(rechained, repaired["seal"]["sealHash"])


def test_an_execution_record_is_made_one_of_the_questions_cells(api: FastAPI) -> None:
    body = _vector_input("execution-scores", "ap1-score-execution-computed.json")
    body["record"]["itemId"] = "no-such-item"
    body = _in_share(body)
    assert call(api, "POST", "/v1/ap1/score-execution", json_body=body).status == 422
    repaired = coherent("/v1/ap1/score-execution", body)
    record = repaired["record"]
    assert record["itemId"] in {item["id"] for item in repaired["questions"]["items"]}
    assert record["cellKey"] == f"{record['condition']}/{record['itemId']}/{record['repeat']}"
    answered = call(api, "POST", "/v1/ap1/score-execution", json_body=repaired)
    assert answered.status == 200, answered.json
    assert answered.json["cellKey"] == record["cellKey"]


def _not_supported(config: dict[str, Any]) -> None:
    """Two settings omitted as not-supported (each with its detail), without importedFrom."""
    config["request"]["sampling"]["top_p"] = {"omit": "not-supported", "detail": "platform value"}
    config["request"]["toolChoice"] = {"omit": "not-supported", "detail": "no tool choice"}


def test_a_not_supported_omission_takes_a_native_reason_picked_by_its_detail(
    api: FastAPI,
) -> None:
    config = _vector_input("inputs", "ap1-request-base.json")["config"]
    _not_supported(config)
    for probe in range(100):
        config["transport"]["timeoutSeconds"] = f"{probe + 1}"
        if repaired_share(config):
            break
    refused = call(api, "POST", "/v1/ap1/validate-config", json_body=config)
    assert (refused.status, refused.json["code"]) == (422, "APC-SCHEMA-VIOLATION")
    repaired = coherent("/v1/ap1/validate-config", config)
    sampling, choice = repaired["request"]["sampling"], repaired["request"]["toolChoice"]
    # The reason is picked among the native ones by the generated detail; the detail stays.
    assert NATIVE_REASONS == ["operator-declared", "platform-rejected", "platform-unsupported"]
    assert sampling["top_p"] == {"omit": "platform-unsupported", "detail": "platform value"}
    assert choice == {"omit": "operator-declared", "detail": "no tool choice"}
    answered = call(api, "POST", "/v1/ap1/validate-config", json_body=repaired)
    assert answered.status == 200, answered.json


def test_an_imported_configuration_keeps_its_not_supported_omissions() -> None:
    config = _vector_input("inputs", "ap1-request-base.json")["config"]
    _not_supported(config)
    config["importedFrom"] = {"instrument": "other", "configHash": "0" * 64, "sealHash": "1" * 64}
    config = _in_share({"config": config, "ap1Text": "text"})
    repaired = coherent("/v1/ap1/validate-derivations", config)
    assert repaired["config"]["request"]["sampling"]["top_p"]["omit"] == "not-supported"
    assert repaired["config"]["request"]["toolChoice"]["omit"] == "not-supported"


def _broken_inputs(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with its configuration's and documents' relations broken."""
    body = copy.deepcopy(body)
    _not_supported(body["config"])
    body["config"]["transport"]["backoffMaxSeconds"] = "0.5"  # below the first wait
    for entity in body["fixture"]["entities"]:
        entity["id"] = entity["id"].upper()
    body["questions"]["items"].append(copy.deepcopy(body["questions"]["items"][0]))
    body["derivations"]["derivations"].pop()
    return body


def test_a_broken_tool_loop_body_is_refused_then_runs_the_loop_once_repaired(
    api: FastAPI,
) -> None:
    vector = _vector_input("execution", "ap1-loop-no-tool.json")
    expected = call(api, "POST", "/v1/ap1/tool-loop", json_body=vector)
    assert expected.status == 200, expected.json
    body = _broken_inputs(vector)
    body["itemId"] = "no-such-item"
    body = _in_share(body)
    assert call(api, "POST", "/v1/ap1/tool-loop", json_body=body).status == 422
    repaired = coherent("/v1/ap1/tool-loop", body)
    assert repaired["itemId"] in {item["id"] for item in repaired["questions"]["items"]}
    assert repaired["responses"] == body["responses"]  # the endpoint's script as generated
    answered = call(api, "POST", "/v1/ap1/tool-loop", json_body=repaired)
    assert answered.status == 200, answered.json
    assert (answered.json["status"], answered.json["finalText"]) == (
        expected.json["status"],
        expected.json["finalText"],
    )


def test_a_broken_derivation_check_is_refused_then_answered_once_repaired(api: FastAPI) -> None:
    inputs = _vector_input("inputs", "ap1-request-base.json")
    names = ("derivations", "questions", "fixture", "config")
    body = _broken_inputs({name: inputs[name] for name in names})
    for probe in range(100):
        body["fixture"]["description"] = f"probe {probe}"
        if repaired_share(body):
            break
    refused = call(api, "POST", "/v1/ap1/validate-derivations", json_body=body)
    assert refused.status == 422
    repaired = coherent("/v1/ap1/validate-derivations", body)
    answered = call(api, "POST", "/v1/ap1/validate-derivations", json_body=repaired)
    assert answered.status == 200, answered.json
    ids = [item["id"] for item in repaired["questions"]["items"]]
    assert len(set(ids)) == len(ids) == 3
    assert [d["itemId"] for d in repaired["derivations"]["derivations"]] == ids


def test_a_broken_check_inputs_body_is_refused_then_answered_once_repaired(api: FastAPI) -> None:
    body = copy.deepcopy(_vector_input("inputs", "ap1-inputs-valid-plan.json"))
    for entity in body["fixture"]["entities"]:
        entity["id"] = entity["id"].upper()
    body = _in_share(body)  # the suffixed text no longer has the configured hash
    refused = call(api, "POST", "/v1/ap1/check-inputs", json_body=body)
    assert refused.status == 422 and refused.json["code"] == "AP1-UNKNOWN-ENTITY"
    repaired = coherent("/v1/ap1/check-inputs", body)
    answered = call(api, "POST", "/v1/ap1/check-inputs", json_body=repaired)
    assert answered.status == 200, answered.json
    assert answered.json["valid"] is True and len(answered.json["cells"]) > 0
    assert repaired["config"]["ap1"]["textSha256"] == sha256_text(body["ap1Text"])
    entities = {e["id"] for e in repaired["fixture"]["entities"]}
    assert all(set(i["sourceEntities"]) <= entities for i in repaired["questions"]["items"])


def test_a_negative_check_inputs_case_is_sent_as_generated() -> None:
    body = copy.deepcopy(_vector_input("inputs", "ap1-inputs-valid-plan.json"))
    for entity in body["fixture"]["entities"]:
        entity["id"] = entity["id"].upper()
    # ap1Text must be a string: a number makes the body schema-invalid, a negative case.
    broken = next(b for n in range(100) if repaired_share(b := {**body, "ap1Text": n}))
    assert coherent("/v1/ap1/check-inputs", broken) != broken  # a repair would touch it
    seen: list[Any] = []

    def test(case: Any) -> None:
        assert case.meta.generation.mode == GenerationMode.NEGATIVE
        case.body = copy.deepcopy(broken)
        seen.append(_hook(case).body)

    _draw(GenerationMode.NEGATIVE, 1, test, "/v1/ap1/check-inputs")
    assert seen == [broken]


def test_a_negative_check_vector_case_is_sent_as_generated() -> None:
    body = _check_vector_body()
    body["vector"]["id"] = "fuzzed-id"  # the file name no longer matches
    # fileName must be a string: a number makes the body schema-invalid, a negative case.
    broken = next(b for n in range(100) if repaired_share(b := {**body, "fileName": n}))
    assert coherent("/v1/kit/check-vector", broken)["fileName"] == "fuzzed-id.json"
    seen: list[Any] = []

    def test(case: Any) -> None:
        assert case.meta.generation.mode == GenerationMode.NEGATIVE
        case.body = copy.deepcopy(broken)
        seen.append(_hook(case).body)

    _draw(GenerationMode.NEGATIVE, 1, test, "/v1/kit/check-vector")
    assert seen == [broken]


def _check_vector_body() -> dict[str, Any]:
    value = load_path(data_path("vectors", "kit", "vectors", "kit-vec-valid.json"))["input"]
    assert isinstance(value, dict)
    return value


def test_a_broken_check_vector_body_is_refused_then_answered_once_repaired(api: FastAPI) -> None:
    body = _check_vector_body()
    vector = body["vector"]
    vector["id"] = "fuzzed-id"
    vector["operation"] = "apx.canonicalize"  # not a kit operation
    vector["clauses"] = ["KIT-JCS-1", "NO-SUCH-CLAUSE"]
    vector["expected"] = {"kind": "refusal", "document": {"canonical": "[1]"}, "path": "$"}
    body = _in_share(body, "fileName")
    refused = call(api, "POST", "/v1/kit/check-vector", json_body=body)
    assert refused.status == 422 and refused.json["code"] == "APC-DOC-REFUSED"
    repaired = coherent("/v1/kit/check-vector", body)
    answered = call(api, "POST", "/v1/kit/check-vector", json_body=repaired)
    assert answered.status == 200, answered.json
    assert answered.json == {"id": "fuzzed-id", "protocol": "kit", "negative": False}
    fixed = repaired["vector"]
    assert repaired["fileName"] == "fuzzed-id.json"
    assert fixed["operation"] == "kit.canonicalize"
    # A known clause is kept; the unknown one becomes a kit clause of the registry.
    assert fixed["clauses"][0] == "KIT-JCS-1"
    assert fixed["clauses"][1].startswith("KIT-") and fixed["clauses"][1] != "NO-SUCH-CLAUSE"
    # The expectation takes the kind of the member it carries; a refusal-only member goes.
    assert fixed["expected"] == {"kind": "exact", "document": {"canonical": "[1]"}}
    assert vector["clauses"][1] == "NO-SUCH-CLAUSE"  # the generated body is not changed


def test_a_check_vector_matcher_keeps_exactly_one_check() -> None:
    body = _check_vector_body()
    body["vector"]["expected"] = {
        "kind": "partial",
        "matchers": [
            {"path": "/a", "equals": 1, "present": True},
            {"path": "/b", "absent": False},
            {"path": "/c", "absent": True},
        ],
    }
    repaired = coherent("/v1/kit/check-vector", _in_share(body, "fileName"))
    assert repaired["vector"]["expected"]["matchers"] == [
        {"path": "/a", "equals": 1},
        {"path": "/b", "absent": False, "present": True},
        {"path": "/c", "absent": True},
    ]


def test_a_checker_body_whose_member_is_not_a_document_is_left_as_generated() -> None:
    body = copy.deepcopy(_vector_input("inputs", "ap1-inputs-valid-plan.json"))
    body["fixture"]["entities"][0]["unknownMember"] = [1]  # the fixture schema refuses it
    body = _in_share(body)
    assert coherent("/v1/ap1/check-inputs", body) is body
    vector_body = _in_share(_check_vector_body(), "fileName")
    vector_body["vector"]["clauses"] = "KIT-JCS-1"  # a list in the vector schema
    assert coherent("/v1/kit/check-vector", vector_body) is vector_body


def _hours_in_share(work: float, wall: Any) -> dict[str, Any]:
    """{"creditedHumanHours", "wallHours"} in the repaired share, the work moved by whole hours."""
    for n in range(100):
        candidate = {"creditedHumanHours": work + n if work >= 0 else work - n, "wallHours": wall}
        if repaired_share(candidate):
            return candidate
    raise AssertionError("no variant in the repaired share")


def test_power_metrics_hours_become_numbers_apx_divides(api: FastAPI) -> None:
    body = _hours_in_share(-3.5, {"a": [1]})
    refused = call(api, "POST", "/v1/apx/power-metrics", json_body=body)
    assert (refused.status, refused.json["code"]) == (400, "APX-METRIC-INPUT")
    repaired = coherent("/v1/apx/power-metrics", body)
    # Derived from what was generated: the number's magnitude, the JSON text's length.
    assert repaired["creditedHumanHours"] == -body["creditedHumanHours"] >= 3.5
    assert repaired["wallHours"] == len('{"a": [1]}') == 10
    answered = call(api, "POST", "/v1/apx/power-metrics", json_body=repaired)
    assert answered.status == 200, answered.json
    assert answered.json["AP"] == repaired["creditedHumanHours"] / 10


def test_power_metrics_keeps_good_hours_and_lifts_a_zero_wall_time() -> None:
    assert coherent("/v1/apx/power-metrics", _hours_in_share(8, 0))["wallHours"] == 1
    good = _hours_in_share(8, 2.5)
    assert coherent("/v1/apx/power-metrics", good) == good


def _foreign_import_body() -> dict[str, Any]:
    """An import-reference body as the fuzzer makes them: documents of other types, a float,
    unknown configuration members, records that are not the reference's, hashes that do not
    reproduce."""
    body = copy.deepcopy(_vector_input("importing", "ap1-imp-august-record.json"))
    body["config"] = {"model": "model under test", "colour": "blue", "repeat_count": 2.5}
    body["fixture"] = ["not", "an", "object"]
    body["questions"] = {"items": [{"id": "Q 1", "derivable": False}, 7]}
    body["sealRecord"] = {"runner_version_tag": "v9", "ev3_implemented": False}
    body["records"] = [{"condition": "base", "timestamp": "2026-09-08T11:20:00Z"}, "line"]
    return _in_share(body)


def _refused_then_repaired(api: FastAPI, path: str, body: dict[str, Any], code: str) -> Any:
    """The repaired copy of ``body``, which the route refuses as generated with ``code``."""
    refused = call(api, "POST", path, json_body=body)
    assert (refused.status, refused.json["code"]) == (422, code)
    return coherent(path, body)


def test_an_import_body_is_made_a_consistent_reference_run(api: FastAPI) -> None:
    body = _foreign_import_body()
    repaired = _refused_then_repaired(api, "/v1/ap1/import-reference", body, "APC-OP-INPUT")
    config, printed = repaired["config"], repaired["sealRecord"]
    assert config["model"] == "model under test"  # a generated text kept
    assert config["repeat_count"] == 4  # a float is no count: 1 + the length of "2.5"
    assert "colour" not in config
    assert printed["runner_version_tag"] == "v9"
    assert printed["ev3_implemented"] == "false"  # printed as text, as the reference prints
    hashes = reference_seal_hashes(config, printed)
    assert printed["config_hash"] == hashes["configHash"] == reference_config_hash(config)
    assert printed["seal_hash"] == hashes["sealHash"]
    assert [r["seal_hash"] for r in repaired["records"]] == [printed["seal_hash"]]
    assert repaired["questions"]["items"][0]["id"] == "Q1"
    answered = call(api, "POST", "/v1/ap1/import-reference", json_body=repaired)
    assert answered.status == 200, answered.json
    assert answered.json["sealHash"] == printed["seal_hash"]
    assert [e["status"] for e in answered.json["executions"]] == ["VOID"]
    assert answered.json["executions"][0]["cellKey"] == "base/Q1/1"


def test_an_import_body_outside_the_share_is_left_as_generated() -> None:
    body = _foreign_import_body()
    outside = _out_of_share(body)
    assert coherent("/v1/ap1/import-reference", outside) is outside


@pytest.mark.parametrize("path", ["/v1/ap1/import-reference", "/v1/apx/adapter"])
def test_repaired_generated_bodies_are_accepted(api: FastAPI, path: str) -> None:
    """Every drawn positive body, repaired (share aside), is one the operation accepts: a run
    import-reference imports, a campaign the APx adapter scores."""
    repair = REPAIRS[path]
    statuses: list[int] = []

    def test(case: Any) -> None:
        body = copy.deepcopy(case.body)
        repair(body)
        statuses.append(call(api, "POST", path, json_body=body).status)

    _draw(GenerationMode.POSITIVE, 12, test, path, derandomize=True)
    assert statuses == [200] * len(statuses) and len(statuses) >= 10


LOAD_CONFIG = "/v1/ap1/load-config"


def _config_vector(name: str) -> dict[str, Any]:
    return _vector_input("config", f"{name}.json")


def _broken_config_body(share: bool) -> dict[str, Any]:
    """The valid configuration with five things the loader refuses, in or out of the share."""
    config = _config_vector("ap1-config-valid")["config"]
    config["request"]["sampling"]["temperature"] = {"send": 0.7}  # a bare number
    config["repeats"] = 3  # a bare number
    config["transport"]["backoffMultiplier"] = "0.5"  # below 1
    config["endpoint"]["model"] = "sk-proj-abcdefghijklmnopqrstuvwx"  # credential-shaped
    config["top_p"] = {"send": "0.9"}  # a sampling parameter outside sampling
    for probe in range(100):
        config["ap1"]["version"] = f"v1.3 probe {probe}"
        if repaired_share({"config": config}) == share:
            return {"config": config}
    raise AssertionError("no variant on that side of the share")


def test_a_refused_configuration_is_loaded_once_repaired(api: FastAPI) -> None:
    body = _broken_config_body(share=True)
    refused = call(api, "POST", LOAD_CONFIG, json_body=body)
    assert refused.status == 422
    repaired = coherent(LOAD_CONFIG, body)
    assert body["config"]["repeats"] == 3  # the generated body is not changed
    config = repaired["config"]
    # Each refused value made one the loader takes, derived from what was generated:
    # the numbers as their decimal texts, the multiplier raised by 1, the credential-shaped
    # model a word naming it, the misplaced parameter dropped.
    assert config["request"]["sampling"]["temperature"] == {"send": "0.7"}
    assert config["repeats"] == "3"
    assert config["transport"]["backoffMultiplier"] == "1.5"
    model = config["endpoint"]["model"]
    assert model.startswith("v") and len(model) == 13 and "sk-" not in model
    assert "top_p" not in config
    # Every other value is kept as generated.
    expected = copy.deepcopy(body["config"])
    del expected["top_p"]
    expected["request"]["sampling"]["temperature"] = {"send": "0.7"}
    expected["repeats"] = "3"
    expected["transport"]["backoffMultiplier"] = "1.5"
    expected["endpoint"]["model"] = model
    assert config == expected
    answered = call(api, "POST", LOAD_CONFIG, json_body=repaired)
    assert answered.status == 200, answered.json
    assert answered.json["valid"] is True
    assert answered.json["quantisation"] == {"places": "2", "rounding": "ROUND_HALF_UP"}


@pytest.mark.parametrize(
    "name",
    [
        "ap1-conditions-user-preamble",
        "ap1-config-half-even",
        "ap1-config-imported-not-supported",
        "ap1-config-key-by-variable-name",
        "ap1-config-platform-omission-with-detail",
        "ap1-config-quoted-decimal",
        "ap1-config-sampling-inside-sampling",
        "ap1-config-valid",
    ],
)
def test_a_configuration_the_loader_accepts_is_kept_as_it_is(api: FastAPI, name: str) -> None:
    body = _config_vector(name)
    assert call(api, "POST", LOAD_CONFIG, json_body=body).status == 200
    repaired = copy.deepcopy(body)
    REPAIRS[LOAD_CONFIG](repaired)
    assert repaired == body


def test_a_value_that_is_no_configuration_becomes_one_derived_from_it(api: FastAPI) -> None:
    repair = REPAIRS[LOAD_CONFIG]
    first, second, same = {"config": [1, "a"]}, {"config": [2, "a"]}, {"config": [1, "a"]}
    for body in (first, second, same):
        repair(body)
        answered = call(api, "POST", LOAD_CONFIG, json_body=body)
        assert answered.status == 200, answered.json
    assert first == same  # deterministic
    # Members the value lacks are derived from their names and the value's hash.
    assert first["config"]["endpoint"]["model"] != second["config"]["endpoint"]["model"]
    assert first["config"]["schemaVersion"] == "apconform-ap1-config/1"


def test_a_load_config_body_outside_the_share_is_left_as_generated() -> None:
    body = _broken_config_body(share=False)
    assert coherent(LOAD_CONFIG, body) is body


def test_a_negative_load_config_case_is_sent_as_generated() -> None:
    config = _broken_config_body(share=True)["config"]
    # The input has one member: another makes the body schema-invalid, a negative case.
    broken = next(b for n in range(100) if repaired_share(b := {"config": config, "extra": n}))
    assert coherent(LOAD_CONFIG, broken) != broken  # a repair would touch it
    seen: list[Any] = []

    def test(case: Any) -> None:
        assert case.meta.generation.mode == GenerationMode.NEGATIVE
        case.body = copy.deepcopy(broken)
        seen.append(_hook(case).body)

    _draw(GenerationMode.NEGATIVE, 1, test, LOAD_CONFIG)
    assert seen == [broken]


def test_repaired_generated_load_config_bodies_are_accepted(api: FastAPI) -> None:
    """Every drawn positive body, repaired (share aside), is a configuration the route loads."""
    repair = REPAIRS[LOAD_CONFIG]
    generated: list[int] = []
    statuses: list[int] = []

    def test(case: Any) -> None:
        generated.append(call(api, "POST", LOAD_CONFIG, json_body=case.body).status)
        body = copy.deepcopy(case.body)
        repair(body)
        statuses.append(call(api, "POST", LOAD_CONFIG, json_body=body).status)

    _draw(GenerationMode.POSITIVE, 12, test, LOAD_CONFIG, derandomize=True)
    assert statuses == [200] * len(statuses) and len(statuses) >= 10
    assert generated.count(200) < len(generated)  # as generated, some were refused


def _foreign_adapter_body(inside: bool = True) -> dict[str, Any]:
    """An adapter body as the fuzzer makes them: a manifest that is no object, a run of
    another campaign with values out of the contract's ranges (in the repaired share or not)."""
    for n in range(100):
        body = {"adapter": "metaharness", "manifest": ["a", n], "run": _foreign_run()}
        if repaired_share(body) == inside:
            return body
    raise AssertionError("no variant found")


def _foreign_run() -> dict[str, Any]:
    return {
        "id": "receipt 7",
        "assistanceMode": "autonomous",
        "humanReviewHours": 3,
        "wallBreakdown": {"executionHours": 2.5, "retryHours": "x"},
        "outcomes": [{"slotId": "s9", "accepted": True, "quality": 0.75, "provenance": [{}]}],
    }


def test_an_adapter_body_is_made_a_campaign_the_adapter_scores(api: FastAPI) -> None:
    body = _foreign_adapter_body()
    repaired = _refused_then_repaired(api, "/v1/apx/adapter", body, "APX-VAL-OBJECT")
    manifest, run = repaired["manifest"], repaired["run"]
    assert manifest["schemaVersion"] == "apx/0.1"
    assert manifest["suite"]["taskSetHash"] == sha256_hex(manifest["suite"]["slots"])
    assert run["suiteHash"] == manifest["suite"]["hash"]
    assert run["id"] == "receipt 7"  # a generated text kept
    # Autonomous: no review hours; the wall time the sum of the breakdown ('"x"' is 3 long,
    # an absent segment's null 4).
    assert run["humanReviewHours"] == run["wallBreakdown"]["reviewHours"] == 0
    assert run["wallBreakdown"]["retryHours"] == 3
    assert run["wallHours"] == sum(run["wallBreakdown"].values()) == 2.5 + 3 + 0 + 4 + 4
    assert [o["quality"] for o in run["outcomes"]] == [0.75]
    answered = call(api, "POST", "/v1/apx/adapter", json_body=repaired)
    assert answered.status == 200, answered.json
    assert answered.json["adapter"]["name"] == "metaharness"


def _large_adapter_body() -> dict[str, Any]:
    """An adapter body with 1,000 slots and attempts and one outcome holding 100 evidence
    entries (in the repaired share): repeated for every slot, that outcome's evidence made an
    18 MB body before the repair was bounded."""
    for n in range(100):
        body = {
            "adapter": "metaharness",
            "manifest": {
                "suite": {"slots": [{"id": f"s{i}", "classId": f"c{i % 7}"} for i in range(1000)]},
                "baseline": {"attempts": [{"id": f"a{i}", "classId": n} for i in range(1000)]},
            },
            "run": {
                "outcomes": [{"provenance": [{"id": f"e{j}", "kind": "x"} for j in range(100)]}]
            },
        }
        if repaired_share(body):
            return body
    raise AssertionError("no variant found")


def test_a_large_adapter_body_is_repaired_into_a_small_campaign(api: FastAPI) -> None:
    body = _large_adapter_body()
    repaired = coherent("/v1/apx/adapter", body)
    slots = repaired["manifest"]["suite"]["slots"]
    assert [s["id"] for s in slots] == [f"s{i}" for i in range(16)]  # the first 16 kept
    attempts = repaired["manifest"]["baseline"]["attempts"]
    # The first 32 generated attempts, all pointed at one class; the other six classes of the
    # kept slots each given one.
    assert [a["id"] for a in attempts[:32]] == [f"a{i}" for i in range(32)]
    assert len(attempts) == 38
    assert {a["classId"] for a in attempts} == {f"c{k}" for k in range(7)}
    outcomes = repaired["run"]["outcomes"]
    assert [o["slotId"] for o in outcomes] == [s["id"] for s in slots]
    assert {tuple(e["id"] for e in o["provenance"]) for o in outcomes} == {("e0", "e1", "e2", "e3")}
    assert len(json.dumps(body)) > 60_000
    assert len(json.dumps(repaired)) < 30_000
    answered = call(api, "POST", "/v1/apx/adapter", json_body=repaired)
    assert answered.status == 200, answered.json
    assert answered.json["result"]["declaredSlots"] == 16
    assert len(answered.json["result"]["perClass"]) == 7


def test_an_adapter_body_outside_the_share_is_left_as_generated() -> None:
    outside = _foreign_adapter_body(inside=False)
    assert coherent("/v1/apx/adapter", outside) is outside
