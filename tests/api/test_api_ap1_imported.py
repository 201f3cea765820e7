"""The API and the CLI accept the same records: an imported reference run, scored both ways.

Finding 5 of issue 13: records converted from the reference instrument (attempt
times from its Unix clock) were scored by `ap1 rescore` and refused by
`POST /v1/ap1/score-execution`. Here the same records go to both (AP1-SCR-1).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ap1.published_runs import Call, grounded_v1, grounded_v2, write_published_run
from conftest import call
from fastapi import FastAPI

from apconform.cli import main

SCORE = "/v1/ap1/score-execution"
DOCUMENTS = ("config", "fixture", "questions", "derivations")


def _sealed(run_dir: Path) -> dict[str, Any]:
    inputs = run_dir / "inputs"
    body: dict[str, Any] = {
        name: json.loads((inputs / f"{name}.json").read_text(encoding="utf-8"))
        for name in DOCUMENTS
    }
    body["ap1Text"] = (inputs / "ap1-text.md").read_text(encoding="utf-8")
    return body


def _scored(folder: Path) -> list[dict[str, Any]]:
    lines = (folder / "executions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Run F with a float-noise operand (finding 3) among grounded executions."""
    where = tmp_path_factory.mktemp("imported")
    noisy = grounded_v1()
    noisy.calls[0] = Call(1, "1800.00 * 3.5 / 100 / 12", "5.250000000000001", [])
    noisy.calls[1] = Call(2, "5.250000000000001 - 2.00", "3.250000000000001", [])
    executions = [grounded_v1(), noisy, grounded_v2(), grounded_v1("instruction_removed")]
    run = write_published_run(where, "run_f_sol", executions)
    assert main(run.import_args(where / "run")) == 0
    return where / "run"


def test_each_imported_record_scores_as_the_rescore_scores_it(
    api: FastAPI, imported: Path, tmp_path: Path
) -> None:
    assert main(["ap1", "rescore", str(imported), "--output-dir", str(tmp_path)]) == 0
    expected = _scored(tmp_path)
    lines = (imported / "transcript.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line)["execution"] for line in lines if '"kind":"execution"' in line]
    assert [r["rounds"][0]["attempts"][0]["startedAt"] for r in records] == [
        "2026-09-08T11:13:20.5Z"
    ] * 4
    body = _sealed(imported)
    answers = [call(api, "POST", SCORE, json_body={**body, "record": r}) for r in records]
    assert [a.status for a in answers] == [200] * 4
    assert [a.json for a in answers] == expected
    noisy = answers[1].json["operation"]["calls"]
    assert [(c["outcome"], c["value"]) for c in noisy] == [
        ("OPERATION-CORRECT", "5.250"),
        ("OPERATION-CORRECT", "3.250"),
    ]
    assert noisy[1]["returnsAsEvaluated"] == [
        {"call": "1", "literal": "5.250000000000001", "value": "5.250"}
    ]


def test_records_with_unix_seconds_text_score_the_same_both_ways(
    api: FastAPI, imported: Path, tmp_path: Path
) -> None:
    """The hand conversion of issue 13 wrote attempt times as Unix-seconds text."""
    records = []
    for line in (imported / "transcript.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["kind"] == "execution":
            for round_ in record["execution"]["rounds"]:
                for attempt in round_["attempts"]:
                    attempt["startedAt"] = "1788866374.8974025"
        records.append(record)
    transcript = tmp_path / "hand-converted.jsonl"
    transcript.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "rescored"
    status = main(
        [
            "ap1",
            "rescore",
            "--transcript",
            str(transcript),
            "--inputs",
            str(imported / "inputs"),
            "--seal",
            str(imported / "seal.json"),
            "--output-dir",
            str(out),
        ]
    )
    assert status == 0
    integrity = json.loads((out / "score-report.json").read_text(encoding="utf-8"))["integrity"]
    assert integrity["transcript"]["verified"] is False  # edited records: the chain says so
    expected = _scored(out)
    assert len(expected) == 4
    body = _sealed(imported)
    executions = [r["execution"] for r in records if r["kind"] == "execution"]
    answers = [call(api, "POST", SCORE, json_body={**body, "record": e}) for e in executions]
    assert [(a.status, a.json) for a in answers] == [(200, e) for e in expected]
