"""Each use case has one typed library function, and every face reaches it (issue 28).

- The AP-1 vector operations answer with TypedDicts (``ap1/operations/answers.py``)
  whose keys are those of the operation's answer schema, so neither can drift.
- Conformance checking: the API's check route and ``apconform check`` give one
  submission the same verdict, the same mismatches and the same message
  differences, because both reach :func:`apconform.conformance.runner.judge`
  (the route through :func:`apconform.conformance.submission.check_submission`).
- Ledger recording: ``apconform ledger record``, ``--ledger`` on a command that
  produces a result, and the API's submit route store the same result alike,
  the CLI faces through :func:`apconform.ledger.recording.record_result`, the
  API through :func:`apconform.ledger.recording.submit_result`.

Everything runs for real; the spies below only count calls and call through.
"""

from __future__ import annotations

import argparse
import json
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from result_samples import conformance_records

from apconform.ap1.operations import answers
from apconform.api import ApiSettings, create_app
from apconform.api.ledger_service import LedgerService
from apconform.cli import main
from apconform.cli.recording import record_result as record_with_ledger_option
from apconform.conformance import runner, submission
from apconform.conformance.clauses import load_clause_registry
from apconform.conformance.protocol import Reply
from apconform.conformance.runner import CheckOptions, case_record
from apconform.conformance.submission import CheckResultJson
from apconform.conformance.vectors import LoadedVector, load_vectors
from apconform.conformance.xfail import ExpectedFailures
from apconform.core.signing import generate_signing_key
from apconform.ledger import Ledger, recording
from apconform.models.api import CheckResult
from apconform.resources import data_path
from apconform.results import ResultKind

ROOT = Path(__file__).resolve().parents[1]

# --- the AP-1 operations' answers --------------------------------------------------------

ANSWER_TYPES: dict[str, type] = {
    "ap1.load_config": answers.ConfigAnswer,
    "ap1.check_inputs": answers.CellPlan,
    "ap1.derivation_findings": answers.Findings,
    "ap1.evaluate_derivation": answers.Evaluation,
    "ap1.seal_hash": answers.SealHashCheck,
    "ap1.hash_text": answers.TextDigest,
    "ap1.tool_call": answers.ToolOutcome,
    "ap1.render_request": answers.RenderedRequest,
    "ap1.classify_response": answers.ResponseShape,
    "ap1.mask": answers.MaskedText,
    "ap1.verify_transcript": answers.TranscriptAnswer,
    "ap1.credential_transport": answers.KeyTransport,
    "ap1.endpoint_failure": answers.Deferral,
    "ap1.import_reference": answers.ImportedRun,
    "ap1.d2_cap": answers.D2Cap,
    "ap1.cohen_kappa": answers.Agreement,
    "ap1.adjudication_sheets": answers.AdjudicationSheets,
}


def _required(typed: type) -> set[str]:
    """The keys a TypedDict requires, read from its annotations (``__required_keys__`` is
    wrong for NotRequired under postponed annotations in Python 3.11)."""
    hints = typing.get_type_hints(typed, include_extras=True)
    return {k for k, hint in hints.items() if typing.get_origin(hint) is not typing.NotRequired}


def _answer_schema(operation: str) -> dict[str, Any]:
    path = ROOT / "schemas" / "operations" / f"{operation}.answer.schema.json"
    schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return schema


@pytest.mark.parametrize("operation", sorted(ANSWER_TYPES))
def test_each_answer_type_has_the_members_of_its_answer_schema(operation: str) -> None:
    typed = ANSWER_TYPES[operation]
    schema = _answer_schema(operation)
    assert schema.get("additionalProperties") is False
    hints = typing.get_type_hints(typed)
    assert set(hints) == set(schema["properties"]), operation
    assert _required(typed) == set(schema.get("required", [])), operation


def test_every_answer_type_names_an_operation_that_answers_it() -> None:
    """A TypedDict of answers.py that no operation answers with would drift unchecked."""
    declared = {
        getattr(answers, name)
        for name in answers.__all__
        if typing.is_typeddict(getattr(answers, name))
    }
    nested = {answers.Quantisation, answers.Finding, answers.Intermediate, answers.AnchorAnswer}
    assert declared - nested == set(ANSWER_TYPES.values())


def test_the_check_result_type_has_the_check_result_models_members() -> None:
    aliases = {field.alias or name for name, field in CheckResult.model_fields.items()}
    assert set(typing.get_type_hints(CheckResultJson)) == aliases
    required = {f.alias or n for n, f in CheckResult.model_fields.items() if f.is_required()}
    assert _required(CheckResultJson) == required


# --- conformance checking: the API's check route and `apconform check` ---------------------


@pytest.fixture(scope="module")
def kit_vectors() -> list[LoadedVector]:
    clauses = load_clause_registry()
    return [
        v for v in load_vectors(data_path("vectors"), clauses=clauses) if v.id.startswith("kit-")
    ]


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(ApiSettings())) as test_client:
        yield test_client


def _as_check_writes(vector: LoadedVector, reply: Reply) -> dict[str, Any]:
    """What `apconform check` records for this reply to this vector's case."""
    record = case_record(
        1,
        vector,
        data_path("vectors"),
        load_clause_registry(),
        CheckOptions(impl="python -m an-implementation"),
        ExpectedFailures({}),
        reply,
        0.0,
    )
    return {
        "verdict": record["outcome"],
        "mismatches": record["mismatches"],
        "messageDifferences": record.get("messageDifferences"),
    }


def _as_api_answers(client: TestClient, body: dict[str, Any]) -> dict[str, Any]:
    reply = client.post("/v1/conformance/check", json=body)
    assert reply.status_code == 200, reply.text
    result = reply.json()
    return {
        "verdict": result["verdict"],
        "mismatches": result["mismatches"],
        "messageDifferences": result.get("messageDifferences"),
    }


def _submissions(vector: LoadedVector) -> Iterator[tuple[dict[str, Any], Reply]]:
    """Replies to a vector (right and wrong ones) as the API body and as the harness's Reply."""
    expected = vector.document["expected"]
    if expected["kind"] == "refusal":
        code = expected["errorCode"]
        yield {"refusal": {"code": code}}, Reply("refusal", code=code)
        worded = {"code": code, "message": "worded otherwise"}
        yield {"refusal": worded}, Reply("refusal", code=code, message="worded otherwise")
        yield {"refusal": {"code": "APC-NOT-IT"}}, Reply("refusal", code="APC-NOT-IT")
        yield {"answer": {"an": "answer"}}, Reply("answer", document={"an": "answer"})
    else:
        answer = expected["document"]
        yield {"answer": answer}, Reply("answer", document=answer)
        yield {"answer": None}, Reply("answer", document=None)
        yield {"refusal": {"code": "APC-NOT-IT"}}, Reply("refusal", code="APC-NOT-IT")


def test_the_api_and_check_give_every_kit_vector_the_same_verdict(
    kit_vectors: list[LoadedVector], client: TestClient
) -> None:
    compared = {"pass": 0, "fail": 0}
    for vector in kit_vectors:
        for body, reply in _submissions(vector):
            api = _as_api_answers(client, {"vectorId": vector.id, **body})
            assert api == _as_check_writes(vector, reply), (vector.id, body)
            compared[api["verdict"]] += 1
    assert compared["pass"] >= len(kit_vectors) // 2 and compared["fail"] >= len(kit_vectors)


def test_the_check_route_reaches_the_judge_check_uses(
    kit_vectors: list[LoadedVector], client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    judged: list[str] = []
    use_cases: list[object] = []

    def spy_judge(vector: LoadedVector, reply: Reply, reason: str | None) -> Any:
        judged.append(vector.id)
        return runner.judge(vector, reply, reason)

    def spy_check(value: object, vector_of: Callable[[str], LoadedVector]) -> CheckResultJson:
        use_cases.append(value)
        return real_check(value, vector_of)

    real_check = submission.check_submission
    monkeypatch.setattr(submission, "judge", spy_judge)
    monkeypatch.setattr(submission, "check_submission", spy_check)
    vector = kit_vectors[0]
    body = {"vectorId": vector.id, "answer": None}
    assert client.post("/v1/conformance/check", json=body).status_code == 200
    assert judged == [vector.id] and use_cases == [body]


def test_an_unknown_vector_is_refused_before_anything_is_compared(client: TestClient) -> None:
    reply = client.post("/v1/conformance/check", json={"vectorId": "nope", "answer": None})
    assert reply.status_code == 404
    assert reply.json()["code"] == "APC-HTTP-VECTOR-UNKNOWN"


# --- ledger recording: `ledger record`, --ledger, and the API's submit route ---------------


def _facts(summary: dict[str, Any]) -> dict[str, Any]:
    """What an entry says about its result, leaving out where and when it was stored."""
    left_out = {"seq", "entrySha256", "previous", "recordedAt", "createdAt", "signer"}
    return {k: v for k, v in summary.items() if k not in left_out}


def _only_summary(location: Path) -> dict[str, Any]:
    with Ledger.open(str(location)) as ledger:
        summaries = ledger.summaries()
    assert len(summaries) == 1
    return dict(summaries[0])


@pytest.fixture
def recorded_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The use-case functions called, by name (each still runs for real)."""
    calls: list[str] = []
    real_record, real_submit = recording.record_result, recording.submit_result

    def record(*args: Any, **kwargs: Any) -> recording.Recorded:
        calls.append("record_result")
        return real_record(*args, **kwargs)

    def submit(*args: Any, **kwargs: Any) -> dict[str, Any]:
        calls.append("submit_result")
        return real_submit(*args, **kwargs)

    monkeypatch.setattr(recording, "record_result", record)
    monkeypatch.setattr(recording, "submit_result", submit)
    return calls


def test_every_face_records_the_same_result_alike(
    tmp_path: Path, recorded_calls: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    records = conformance_records(name="impl-a")
    result = tmp_path / "report.jsonl"
    result.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    by_command, by_option, by_api = (tmp_path / f"{n}.db" for n in ("cmd", "opt", "api"))

    # apconform ledger record FILE
    assert main(["ledger", "record", str(result), "--ledger", str(by_command)]) == 0
    assert capsys.readouterr().out.startswith("recorded as entry 1 (")
    # --ledger on check (and ap1 score, apx evaluate): the document the command produced
    options = argparse.Namespace(ledger=str(by_option), ledger_key=None)
    record_with_ledger_option(options, "conformance-report", records)
    assert f"recorded in ledger {by_option} as entry 1 (" in capsys.readouterr().err
    # the API's submit route, given what `apconform ledger submission FILE` prints
    assert main(["ledger", "submission", str(result)]) == 0
    body = json.loads(capsys.readouterr().out)
    service = LedgerService(str(by_api), allow_unsigned=True, open_submission=True)
    app = create_app(ApiSettings(), ledger=service, load_catalog=False)
    with TestClient(app) as test_client:
        reply = test_client.post("/v1/ledger/entries", json=body)
    assert reply.status_code == 200, reply.text

    assert recorded_calls == ["record_result", "record_result", "submit_result"]
    stored = [_only_summary(p) for p in (by_command, by_option, by_api)]
    assert _facts(stored[0]) == _facts(stored[1]) == _facts(stored[2])
    assert _facts(reply.json()) == _facts(stored[2])
    assert stored[0]["kind"] == "conformance-report" and stored[0]["verdict"] == "pass"


def test_the_same_result_again_is_kept_once_by_the_option_and_refused_by_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = conformance_records(name="impl-b")
    location = tmp_path / "ledger.db"
    # Two claims on one document: signed by two keys, so the claims differ.
    one = recording.record_result(str(location), _kind(), records, key=generate_signing_key())
    assert one.entry is not None and one.entry.seq == 1
    again = recording.record_result(
        str(location), _kind(), records, key=generate_signing_key(), keep_once=True
    )
    assert again.entry is None and again.duplicate
    options = argparse.Namespace(ledger=str(location), ledger_key=None)
    record_with_ledger_option(options, "conformance-report", records)
    err = capsys.readouterr().err
    assert err.startswith(f"not recorded in ledger {location}: ") and again.duplicate in err


def _kind() -> ResultKind:
    return ResultKind.CONFORMANCE_REPORT
