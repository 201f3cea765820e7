"""The scoring library over in-memory documents, the CLI commands, the adjudication round trip."""

from __future__ import annotations

import copy
import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from apconform.ap1.scoring import (
    compare_reports,
    prepare_inputs,
    rescore,
    rescore_bytes,
    score_execution,
)
from apconform.cli import main
from apconform.core.errors import ApconformError
from apconform.core.schemas import json_schema_validator
from apconform.models.ap1 import Ap1ScoreReport

from .conftest import example_docs


def _records(run_dir: Path) -> list[dict[str, Any]]:
    text = (run_dir / "transcript.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def _sealed_documents(run_dir: Path) -> dict[str, Any]:
    docs: dict[str, Any] = {
        name: json.loads((run_dir / "inputs" / f"{name}.json").read_text(encoding="utf-8"))
        for name in ("config", "fixture", "questions", "derivations")
    }
    docs["ap1Text"] = (run_dir / "inputs" / "ap1-text.md").read_text(encoding="utf-8")
    return docs


def test_score_execution_agrees_with_the_report(demo: tuple[Path, str]) -> None:
    """Each record scored alone gives the line the streamed report wrote (speed: the benchmark)."""
    run_dir, _ = demo
    inputs = prepare_inputs(_sealed_documents(run_dir))
    executions = [r for r in _records(run_dir) if r["kind"] == "execution"]
    lines = (run_dir / "report" / "executions.jsonl").read_text(encoding="utf-8").splitlines()
    expected = {json.loads(line)["cellKey"]: json.loads(line) for line in lines}
    assert len(executions) == len(expected) == 204
    for record in executions:
        assert score_execution(record, inputs) == expected[record["execution"]["cellKey"]]


def test_rescore_in_memory_gives_the_streamed_report(demo: tuple[Path, str]) -> None:
    run_dir, _ = demo
    seal = json.loads((run_dir / "seal.json").read_text(encoding="utf-8"))
    report = rescore(_records(run_dir), _sealed_documents(run_dir), seal=seal)
    written = (run_dir / "report" / "score-report.json").read_text(encoding="utf-8")
    assert report.json_text() == written


def test_rescore_from_bytes_gives_the_streamed_report_and_sees_edited_bytes(
    demo: tuple[Path, str],
) -> None:
    run_dir, _ = demo
    seal = json.loads((run_dir / "seal.json").read_text(encoding="utf-8"))
    data = (run_dir / "transcript.jsonl").read_bytes()
    documents = _sealed_documents(run_dir)
    written = (run_dir / "report" / "score-report.json").read_text(encoding="utf-8")
    assert rescore_bytes(data, documents, seal=seal).json_text() == written
    assert (
        rescore_bytes(data.splitlines(keepends=True), documents, seal=seal).json_text() == written
    )
    lines = data.split(b"\n")
    lines[3] = lines[3].replace(b'{"', b'{ "', 1)  # same record, other bytes
    edited = rescore_bytes(b"\n".join(lines), documents, seal=seal).document["integrity"]
    assert edited["transcript"]["verified"] is False
    assert [(p["line"], p["kind"]) for p in edited["transcript"]["problems"]] == [("4", "edited")]


def test_a_record_that_cannot_be_scored_is_refused(demo: tuple[Path, str]) -> None:
    run_dir, _ = demo
    inputs = prepare_inputs(_sealed_documents(run_dir))
    record = next(r for r in _records(run_dir) if r["kind"] == "execution")
    broken = copy.deepcopy(record)
    del broken["execution"]["toolCalls"]
    with pytest.raises(ApconformError) as caught:
        score_execution(broken, inputs)
    assert (
        caught.value.code == "AP1-SCORE-RECORD" and "toolCalls is missing" in caught.value.message
    )
    foreign = copy.deepcopy(record)
    foreign["execution"]["itemId"] = "Q99"
    with pytest.raises(ApconformError, match="Q99 is not in the sealed question set"):
        score_execution(foreign, inputs)


def test_report_schema_and_models_agree_on_mutations(demo: tuple[Path, str]) -> None:
    run_dir, _ = demo
    report = json.loads((run_dir / "report" / "score-report.json").read_text(encoding="utf-8"))
    validator = json_schema_validator("ap1-score-report")

    def both(instance: Any) -> tuple[bool, bool]:
        try:
            Ap1ScoreReport.model_validate(instance)
            by_model = True
        except ValueError:
            by_model = False
        return bool(validator.is_valid(instance)), by_model

    assert both(report) == (True, True)
    mutations = []
    for path, value in [
        (("passMark",), "0.95"),
        (("dimensions", 0, "status"), "PASSED"),
        (("accuracy", "rate", "k"), 146),
        (("invocation", "byCondition", 0, "ev2"), None),
        (("reproducibility", "cells", 0, "mechanismClass"), "STABLE"),
        (("integrity", "inputsMatchSeal"), "yes"),
        (("operandProvenance", "audit"), {}),
        (("scorer", "sourceSha256"), "ABC"),
    ]:
        mutated = copy.deepcopy(report)
        target = mutated
        for part in path[:-1]:
            target = target[part]
        target[path[-1]] = value
        mutations.append(mutated)
    removed = copy.deepcopy(report)
    del removed["unmeasured"]
    mutations.append(removed)
    assert [both(m) for m in mutations] == [(False, False)] * len(mutations)


def test_cli_score_and_rescore(
    demo: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir, _ = demo
    copy_dir = tmp_path / "run"
    shutil.copytree(run_dir, copy_dir, ignore=shutil.ignore_patterns("rescore", ".lock"))
    assert main(["ap1", "rescore", str(copy_dir)]) == 0
    out = capsys.readouterr().out
    assert "identical, byte for byte" in out and "D7.2(a)" in out
    report_md = copy_dir / "report" / "report.md"
    report_md.write_text(report_md.read_text(encoding="utf-8") + "edited\n", encoding="utf-8")
    assert main(["ap1", "rescore", str(copy_dir)]) == 1
    assert "DIFFERS from" in (out := capsys.readouterr().out) and "report.md" in out
    assert main(["ap1", "score", str(copy_dir)]) == 0
    assert compare_reports(copy_dir / "report", run_dir / "report") == []
    capsys.readouterr()
    out_dir = tmp_path / "from-transcript"
    args = ["ap1", "rescore", "--transcript", str(copy_dir / "transcript.jsonl")]
    args += ["--inputs", str(copy_dir / "inputs"), "--seal", str(copy_dir / "seal.json")]
    assert main([*args, "--output-dir", str(out_dir)]) == 0
    assert compare_reports(out_dir, run_dir / "report") == []
    assert main(["ap1", "score", str(tmp_path / "nowhere")]) == 2
    assert "APC-FILE-NOT-FOUND" in capsys.readouterr().err  # the one missing-path error


def _fill(sheet: Path, marks: dict[str, tuple[str, str]]) -> str:
    rows = list(csv.DictReader(io.StringIO(sheet.read_text(encoding="utf-8"))))
    for row in rows:
        row["outcome"], row["accuracy"] = marks[row["rowId"]]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def test_adjudication_round_trip(
    demo: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir, _ = demo
    copy_dir = tmp_path / "run"
    shutil.copytree(run_dir, copy_dir, ignore=shutil.ignore_patterns("rescore", ".lock"))
    key = json.loads((copy_dir / "report/adjudication/key.json").read_text(encoding="utf-8"))
    ids = [row["rowId"] for row in key["rows"]]
    first = {
        i: ("MODEL-DECLINED", "NO-FIGURE") if n % 3 == 0 else ("ORIGINATED", "INCORRECT")
        for n, i in enumerate(ids)
    }
    second = dict(first)
    second[ids[1]] = ("WRONG-SCOPE", "INCORRECT")
    second[ids[2]] = ("ORIGINATED", "CORRECT")
    sheets = copy_dir / "report/adjudication"
    (tmp_path / "s1.csv").write_text(_fill(sheets / "scorer-1.csv", first), encoding="utf-8")
    (tmp_path / "s2.csv").write_text(_fill(sheets / "scorer-2.csv", second), encoding="utf-8")
    args = ["ap1", "adjudicate", "import", str(copy_dir), "--scorer-1", str(tmp_path / "s1.csv")]
    args += [
        "--scorer-2",
        str(tmp_path / "s2.csv"),
        "--scorer-1-name",
        "Ada",
        "--scorer-2-name",
        "Bo",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    n = len(ids)
    assert f"D1 outcome: n {n}, raw agreement" in out and "Cohen's kappa" in out
    assert f"{ids[1]} " in out and "scorer 1 ORIGINATED, scorer 2 WRONG-SCOPE" in out
    merged = json.loads((copy_dir / "adjudication/merged.json").read_text(encoding="utf-8"))
    assert json_schema_validator("ap1-adjudication").is_valid(merged)
    outcome = next(a for a in merged["agreement"] if a["measure"] == "D1 outcome")
    assert (outcome["n"], outcome["agreed"]) == (str(n), str(n - 1))
    report = json.loads((copy_dir / "report/score-report.json").read_text(encoding="utf-8"))
    adjudication = report["adjudication"]
    assert adjudication["imported"] is True and adjudication["unresolved"] == "1"
    agreed_incorrect = sum(1 for n_, i in enumerate(ids) if n_ % 3 and i != ids[2])
    assert adjudication["accuracy"]["k"] == "0" and adjudication["accuracy"]["n"] == str(
        agreed_incorrect
    )
    assert report["integrity"]["adjudication"] is not None
    d1 = report["dimensions"][0]
    assert "human-adjudicated: 0/" in d1["summary"] and d1["summary"].startswith(
        "auto-scored correct"
    )
    assert (
        report["accuracy"]["rate"]
        == json.loads((run_dir / "report/score-report.json").read_text(encoding="utf-8"))[
            "accuracy"
        ]["rate"]
    )  # the automated figures are untouched
    assert main(args) == 2
    assert "never overwritten" in capsys.readouterr().err
    wrong = {**first, ids[0]: ("MAYBE", "")}
    (tmp_path / "bad.csv").write_text(_fill(sheets / "scorer-1.csv", wrong), encoding="utf-8")
    (copy_dir / "adjudication/merged.json").unlink()
    args[args.index(str(tmp_path / "s1.csv"))] = str(tmp_path / "bad.csv")
    assert main(args) == 1
    assert "AP1-ADJ-SHEET" in capsys.readouterr().err


def test_prepare_inputs_refuses_bad_documents() -> None:
    docs = example_docs()
    documents = {k: docs[k] for k in ("config", "fixture", "questions", "derivations")}
    documents["ap1Text"] = docs["ap1_text"] + "changed"
    with pytest.raises(ApconformError) as caught:
        prepare_inputs(documents)
    assert caught.value.code == "AP1-SEAL-TEXT-MISMATCH"
    del documents["ap1Text"]
    assert len(prepare_inputs(documents).items) == 52
