"""The AP-1 scoring routes: a record scored, a real run's transcript re-scored like the command."""

from __future__ import annotations

import copy
import io
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from conftest import call
from fastapi import FastAPI

from apconform.ap1.inputs.plan import load_run_inputs
from apconform.ap1.mock import MockEndpoint
from apconform.ap1.run.engine import RunOptions, run_sealed
from apconform.ap1.seal.build import write_sealed_run
from apconform.api import typed
from apconform.api.guard import REQUEST_ID_HEADER
from apconform.api.routes.ap1 import small_ap1_inputs
from apconform.api.routes.ap1_scoring import PreparedInputsCache, transcript_text
from apconform.cli import main
from apconform.core.files import load_path
from apconform.core.jsonload import loads
from apconform.core.jsonmemo import LoadedBody, MemberMemo
from apconform.models.ap1 import ScorableExecutionRecord
from apconform.resources import data_path

SCORE = "/v1/ap1/score-execution"
RESCORE = "/v1/ap1/score-transcript"
DOCUMENTS = ("config", "fixture", "questions", "derivations")


def _vector_input(*parts: str) -> dict[str, Any]:
    value: dict[str, Any] = load_path(data_path("vectors", "ap1", *parts))["input"]
    return value


def _computed() -> dict[str, Any]:
    return _vector_input("execution-scores", "ap1-score-execution-computed.json")


def _problem(reply: Any) -> dict[str, Any]:
    assert reply.headers["content-type"] == "application/problem+json"
    problem: dict[str, Any] = reply.json
    return problem


@pytest.fixture(scope="module")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The worked example cut to one question, sealed and run against mock-mixed (4 cells)."""
    text = data_path("examples", "ap1", "ap1-text-stand-in.md").read_text(encoding="utf-8")
    docs = small_ap1_inputs()
    run_dir = tmp_path_factory.mktemp("small") / "run"
    with MockEndpoint(
        load_run_inputs(**docs, ap1_text=text), seed=7, stall_seconds=Decimal("1.5")
    ) as mock:
        docs["config"]["endpoint"].update(url=mock.url, model="mock-mixed")
        write_sealed_run(run_dir, load_run_inputs(**docs, ap1_text=text))
        run_sealed(run_dir, RunOptions(concurrency=4, progress=io.StringIO(), tty=False))
    return run_dir


def _sealed(run_dir: Path) -> dict[str, Any]:
    inputs = run_dir / "inputs"
    body: dict[str, Any] = {name: load_path(inputs / f"{name}.json") for name in DOCUMENTS}
    body["ap1Text"] = (inputs / "ap1-text.md").read_text(encoding="utf-8")
    return body


def _transcript(run_dir: Path) -> str:
    return (run_dir / "transcript.jsonl").read_bytes().decode("utf-8")


def test_the_computed_vector_record_is_scored(api: FastAPI) -> None:
    reply = call(api, "POST", SCORE, json_body=_computed())
    assert (reply.status, reply.headers["content-type"]) == (200, "application/json")
    score = reply.json
    assert (score["cellKey"], score["status"]) == ("base/V1/1", "EXECUTED")
    assert score["figure"]["outcome"] == "AUTO-MATCH"
    assert score["accuracy"]["outcome"] == "CORRECT"
    assert score["provenance"]["outcome"] == "OPERANDS-GROUNDED"
    assert score["transcription"]["outcome"] == "TRANSCRIBED-EXACT"
    assert score["coverage"]["outcome"] == "GOVERNED-RELEASE"
    assert score["answer"]["outcome"] == "COMPUTED"


def test_each_record_of_a_run_scores_as_its_line_of_executions_jsonl(
    api: FastAPI, small_run: Path, tmp_path: Path
) -> None:
    assert main(["ap1", "score", str(small_run), "--output-dir", str(tmp_path)]) == 0
    lines = (tmp_path / "executions.jsonl").read_text(encoding="utf-8").splitlines()
    expected = [json.loads(line) for line in lines]
    records = [json.loads(line) for line in _transcript(small_run).splitlines()]
    executions = [r["execution"] for r in records if r["kind"] == "execution"]
    body = _sealed(small_run)
    answers = [call(api, "POST", SCORE, json_body={**body, "record": e}).json for e in executions]
    assert answers == expected
    statuses = sorted(a["status"] for a in answers)  # the run's order depends on its threads
    assert statuses == ["EXECUTED", "EXECUTED", "EXECUTED", "UNOBSERVABLE"]


@pytest.mark.parametrize(
    ("record", "detail"),
    [
        ({"status": "NOPE"}, "$.condition is missing"),
        ("not an object", "the execution record is not a JSON object"),
    ],
)
def test_an_unreadable_record_is_refused(api: FastAPI, record: Any, detail: str) -> None:
    problem = _problem(call(api, "POST", SCORE, json_body={**_computed(), "record": record}))
    assert (problem["status"], problem["code"], problem["path"]) == (
        422,
        "AP1-SCORE-RECORD",
        "$.record",
    )
    assert problem["detail"] == detail


def test_a_record_of_an_item_outside_the_sealed_questions_is_refused(api: FastAPI) -> None:
    body = _computed()
    body["record"]["itemId"] = "Z9"
    problem = _problem(call(api, "POST", SCORE, json_body=body))
    assert (problem["status"], problem["code"], problem["path"]) == (
        422,
        "AP1-SCORE-RECORD",
        "$.record",
    )


def test_members_the_scorer_does_not_read_are_not_checked_as_the_rescore_does_not(
    api: FastAPI,
) -> None:
    """AP1-SCR-1: the route accepts exactly what the re-score accepts (finding 5 of issue 13)."""
    body = _computed()
    expected = call(api, "POST", SCORE, json_body=body).json
    body["record"]["rounds"][0]["request"]["bodySha256"] = "not a digest"
    body["record"]["startedAt"] = "1788866374.8974025"
    reply = call(api, "POST", SCORE, json_body=body)
    assert (reply.status, reply.json) == (200, expected)


def test_a_member_the_scorer_reads_is_refused_with_its_type(api: FastAPI) -> None:
    body = _computed()
    body["record"]["toolCalls"][0]["argumentsRaw"] = 12
    problem = _problem(call(api, "POST", SCORE, json_body=body))
    assert (problem["status"], problem["code"], problem["path"]) == (
        422,
        "AP1-SCORE-RECORD",
        "$.record",
    )
    assert problem["detail"] == "$.toolCalls[0].argumentsRaw has the wrong type"


@pytest.mark.parametrize(
    ("member", "value", "detail"),
    [
        ("repeat", "", "$.repeat '' is not a whole number from 1"),
        ("repeat", "0", "$.repeat '0' is not a whole number from 1"),
        ("repeat", "01", "$.repeat '01' is not a whole number from 1"),
        ("cellKey", "", "$.cellKey is blank"),
        ("cellKey", " \u3000\t", "$.cellKey is blank"),
        ("statusReason", "", "$.statusReason is blank (give the reason, or null)"),
        ("statusReason", "\u00a0 ", "$.statusReason is blank (give the reason, or null)"),
    ],
)
def test_a_record_whose_copied_members_break_the_score_s_schema_is_refused(
    api: FastAPI, member: str, value: str, detail: str
) -> None:
    """Schemathesis found a repeat, then a status reason, of "" scored into an answer its schema
    refuses (ST108)."""
    body = _computed()
    body["record"][member] = value
    problem = _problem(call(api, "POST", SCORE, json_body=body))
    assert (problem["status"], problem["code"], problem["path"]) == (
        422,
        "AP1-SCORE-RECORD",
        "$.record",
    )
    assert problem["detail"] == detail


def test_the_published_record_schema_states_the_copied_members_are_not_blank() -> None:
    """The OpenAPI document says what the scorer refuses, so schema-valid records are scored."""
    document = json.loads(data_path("schemas", "openapi.json").read_text(encoding="utf-8"))
    members = document["components"]["schemas"]["ScorableExecutionRecord"]["properties"]
    reason = members["statusReason"]["anyOf"]
    assert reason[1] == {"type": "null"}
    assert reason[0]["type"] == "string"
    assert reason[0]["pattern"] == members["cellKey"]["pattern"]
    assert reason[0]["pattern"].startswith("[^\\t\\n")


def test_a_body_is_validated_once_and_answered_alike_every_time(
    api: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The second post of the same bytes skips the body model (each member passed it before):
    # the answer is the same; a refused body is refused every time, and new bytes in a member
    # are checked against that member's model alone.
    checked: list[str] = []
    real = typed.validate_document
    real_record = ScorableExecutionRecord.model_validate

    def counting(model: Any, value: Any, **kwargs: Any) -> Any:
        checked.append(model.__name__)
        return real(model, value, **kwargs)

    def counting_record(cls: Any, value: Any, **kwargs: Any) -> Any:
        checked.append(cls.__name__)
        return real_record(value, **kwargs)

    monkeypatch.setattr(typed, "validate_document", counting)
    monkeypatch.setattr(ScorableExecutionRecord, "model_validate", classmethod(counting_record))
    monkeypatch.setattr(typed, "_MEMBERS", MemberMemo(eager=True))  # none seen yet
    body = json.dumps(_computed()).encode("utf-8")
    headers = [("content-type", "application/json")]
    first = call(api, "POST", SCORE, body=body, headers=headers)
    second = call(api, "POST", SCORE, body=body, headers=headers)
    assert (first.status, second.status) == (200, 200)
    assert first.json == second.json
    assert checked == ["Ap1ScoreExecutionRequest"]
    refused = _computed()
    refused["record"]["toolCalls"][0]["argumentsRaw"] = 12  # a member the scorer reads
    bad = json.dumps(refused).encode("utf-8")
    for _ in range(2):
        assert call(api, "POST", SCORE, body=bad, headers=headers).status == 422
    # the scorer refuses the record before the body model is consulted, every time
    assert checked == ["Ap1ScoreExecutionRequest"]
    at = body.rindex(b'"toolCalls": [')  # in the record, the last member
    spaced = body[:at] + b'"toolCalls":  [' + body[at + 14 :]  # the same value, other bytes
    assert call(api, "POST", SCORE, body=spaced, headers=headers).json == first.json
    assert checked == ["Ap1ScoreExecutionRequest", "ScorableExecutionRecord"]


class _Forgetful(MemberMemo):
    """Remembers nothing: every body is parsed by the loader and validated whole, as before
    members were remembered."""

    def loads(self, data: bytes, *, source: str = "<input>") -> LoadedBody:
        return LoadedBody(loads(data, source=source))


def _bodies_to_compare(run_dir: Path) -> list[bytes]:
    """Every execution record of a run with its sealed inputs, and bodies each route refuses."""
    sealed = _sealed(run_dir)
    records = [json.loads(line) for line in _transcript(run_dir).splitlines()]
    executions = [r["execution"] for r in records if r["kind"] == "execution"]
    bodies = [{**sealed, "record": e} for e in executions]
    refused: list[Any] = [
        {**bodies[0], "extra": 1},
        {**bodies[0], "ap1Text": 12},
        {**bodies[0], "ap1Text": "another text"},
        {**bodies[0], "record": {"status": "NOPE"}},
        {**bodies[0], "record": {**executions[0], "toolCalls": 3}},
        {**bodies[0], "config": {**sealed["config"], "unknown": True}},
        {**bodies[0], "questions": {**sealed["questions"], "items": "none"}},
        {name: value for name, value in bodies[0].items() if name != "fixture"},
        [bodies[0]],
    ]
    texts = [json.dumps(body).encode("utf-8") for body in [*bodies, *refused]]
    texts.append(texts[0][:-1] + b', "config": {}}')  # a repeated member
    texts.append(texts[0][: len(texts[0]) // 2])  # cut short
    return texts


def test_remembered_members_give_the_same_answers_and_refusals_byte_for_byte(
    api: FastAPI, small_run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Answers, refusals and their bytes are the same whether a body is parsed and validated
    # whole (as before members were remembered), its members are seen for the first time, or
    # they are remembered; and scoring leaves the remembered values as they were parsed.
    headers = [("content-type", "application/json"), (REQUEST_ID_HEADER, "compare")]
    bodies = _bodies_to_compare(small_run)

    def replies(memo: MemberMemo) -> list[tuple[int, str, bytes]]:
        monkeypatch.setattr(typed, "_MEMBERS", memo)
        out = []
        for path in (SCORE, RESCORE):
            for body in bodies:
                reply = call(api, "POST", path, body=body, headers=headers)
                out.append((reply.status, reply.headers["content-type"], reply.body))
        return out

    before = replies(_Forgetful())
    memo = MemberMemo()
    assert replies(memo) == before  # every member new
    assert replies(memo) == before  # seen again: remembered now
    assert replies(memo) == before  # remembered, and proved to pass the body model
    assert sorted(status for status, _, _ in before[: len(bodies)]).count(200) == 4
    assert {status for status, _, _ in before[len(bodies) :]} == {422, 400}
    assert len(memo) > 8
    for (_, text), entry in memo._order.items():
        assert json.dumps(entry.value) == json.dumps(loads(text))  # unchanged by the work


def test_malformed_inputs_are_refused_with_paths_from_the_body_root(api: FastAPI) -> None:
    body = _computed()
    body["config"]["repeats"] = 2
    body["questions"]["items"][0]["requiredOperation"] = "abacus"
    problem = _problem(call(api, "POST", SCORE, json_body=body))
    assert (problem["status"], problem["code"]) == (422, "AP1-CONFIG-BARE-NUMBER")
    assert [(v["code"], v["path"]) for v in problem["violations"]] == [
        ("AP1-CONFIG-BARE-NUMBER", "$.config.repeats")
    ]
    body["config"]["repeats"] = "2"
    problem = _problem(call(api, "POST", SCORE, json_body=body))
    assert [(v["code"], v["path"]) for v in problem["violations"]] == [
        ("AP1-REQUIRED-OPERATION", "$.questions.items[0].requiredOperation")
    ]


def test_an_ap1_text_that_does_not_match_its_hash_is_refused(api: FastAPI) -> None:
    body = {**_computed(), "ap1Text": "another text"}
    problem = _problem(call(api, "POST", SCORE, json_body=body))
    assert (problem["status"], problem["code"], problem["path"]) == (
        422,
        "AP1-SEAL-TEXT-MISMATCH",
        "$.config.ap1.textSha256",
    )


@pytest.mark.parametrize("missing", ["record", "derivations"])
def test_a_body_without_a_member_is_refused_by_its_schema(api: FastAPI, missing: str) -> None:
    """A missing member breaks the operation's input schema: APC-OP-INPUT at that member."""
    body = _computed()
    del body[missing]
    problem = _problem(call(api, "POST", SCORE, json_body=body))
    assert (problem["status"], problem["code"], problem["path"]) == (
        422,
        "APC-OP-INPUT",
        f"$.{missing}",
    )
    assert [v["path"] for v in problem["violations"]] == [f"$.{missing}"]


def test_a_transcript_rescored_over_http_is_the_commands_report(
    api: FastAPI, small_run: Path
) -> None:
    assert main(["ap1", "rescore", str(small_run)]) == 0
    written = (small_run / "rescore" / "score-report.json").read_bytes()
    body = {**_sealed(small_run), "transcript": _transcript(small_run)}
    body["seal"] = load_path(small_run / "seal.json")
    reply = call(api, "POST", RESCORE, json_body=body)
    assert reply.status == 200
    report = reply.json
    text = json.dumps(report, indent=2, ensure_ascii=False) + "\n"
    assert text.encode("utf-8") == written
    assert report["integrity"]["inputsMatchSeal"] is True
    assert report["integrity"]["transcript"] == {
        **report["integrity"]["transcript"],
        "verified": True,
        "records": "6",
        "executions": "4",
        "problems": [],
    }


def test_an_edited_line_is_named_in_the_report(api: FastAPI, small_run: Path) -> None:
    lines = _transcript(small_run).splitlines()
    record = json.loads(lines[1])
    lines[1] = json.dumps(record)  # the same content, serialised differently
    body = {**_sealed(small_run), "transcript": "\n".join(lines)}  # no final newline
    report = call(api, "POST", RESCORE, json_body=body).json
    transcript = report["integrity"]["transcript"]
    assert transcript["verified"] is False
    assert [(p["line"], p["kind"]) for p in transcript["problems"]] == [("2", "edited")]
    assert report["integrity"]["sealSupplied"] is False


def test_lines_that_are_not_records_are_findings_not_refusals(api: FastAPI) -> None:
    body = {**_computed(), "transcript": "not json\n[]\n"}
    del body["record"]
    report = call(api, "POST", RESCORE, json_body=body).json
    kinds = [(p["line"], p["kind"]) for p in report["integrity"]["transcript"]["problems"]]
    assert ("1", "not-a-record") in kinds and ("2", "not-a-record") in kinds


def test_a_transcript_of_more_lines_than_the_bound_is_refused(api: FastAPI) -> None:
    body = {**_computed(), "transcript": "\n" * 20_001}
    del body["record"]
    problem = _problem(call(api, "POST", RESCORE, json_body=body))
    assert (problem["status"], problem["code"]) == (422, "AP1-TRANSCRIPT-LINES")
    assert problem["detail"] == "the transcript has 20,001 lines; the API re-scores at most 20,000"
    body["transcript"] = "\n" * 20_000
    report = call(api, "POST", RESCORE, json_body=body).json
    assert report["integrity"]["transcript"]["records"] == "0"


def test_a_bad_seal_is_refused_with_its_paths(api: FastAPI) -> None:
    body = {**_computed(), "transcript": "", "seal": {"schemaVersion": "apconform-ap1-seal/1"}}
    del body["record"]
    problem = _problem(call(api, "POST", RESCORE, json_body=body))
    assert (problem["status"], problem["code"]) == (422, "APC-DOC-REFUSED")
    assert {"$.seal.sealHash", "$.seal.plan"} <= {v["path"] for v in problem["violations"]}


def test_the_openapi_example_transcript_gives_the_vectors_report(api: FastAPI) -> None:
    vector = _vector_input("report", "ap1-rpt-profile.json")
    body = {**vector, "transcript": transcript_text(vector["records"])}
    del body["records"]
    report = call(api, "POST", RESCORE, json_body=body).json
    assert report["integrity"]["transcript"]["problems"] == []
    assert report["integrity"]["inputsMatchSeal"] is True
    assert [d["dimension"] for d in report["dimensions"]][:2] == ["D1", "D2"]


def test_the_cache_is_bounded_and_keyed_by_content() -> None:
    cache = PreparedInputsCache(2)
    first = _computed()
    prepared = cache.prepared(first)
    assert cache.prepared(copy.deepcopy(first)) is prepared  # equal content, same entry
    other = copy.deepcopy(first)
    other["fixture"]["description"] = "another description"
    assert cache.prepared(other) is not prepared
    assert len(cache) == 2
    third = copy.deepcopy(other)
    del third["ap1Text"]
    cache.prepared(third)
    assert len(cache) == 2
    assert cache.prepared(first) is not prepared  # the oldest entry was dropped
