"""The demo's AP-1 step scored: each persona's signature where it belongs, and re-scoring."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from apconform.ap1.mock.signatures import persona_of, signatures
from apconform.ap1.scoring import compare_reports, score_run
from apconform.core.schemas import json_schema_validator
from apconform.core.validation import validate_document
from apconform.models.ap1 import Ap1ScoreReport


def _report(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "report" / "score-report.json").read_text(encoding="utf-8"))


def _executions(run_dir: Path) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    scores = {
        s["cellKey"]: s
        for s in map(json.loads, (run_dir / "report/executions.jsonl").read_text().splitlines())
    }
    out = {}
    for line in (run_dir / "transcript.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["kind"] == "execution":
            key = record["execution"]["cellKey"]
            out[key] = (record["execution"], scores[key])
    return out


def test_the_demo_step_ends_with_the_reports(demo: tuple[Path, str]) -> None:
    run_dir, text = demo
    assert "sealed the worked example" in text
    assert "ran 204 cells: EXECUTED " in text and "UNOBSERVABLE" in text and "VOID 4" in text
    assert "seal verifies: True; transcript: 206 records, chain verifies, finished: True" in text
    assert "re-scored from the transcript alone: identical, byte for byte" in text
    last = text.rstrip("\n").splitlines()[-2:]
    assert last == [
        f"  report (Markdown): {run_dir / 'report' / 'report.md'}",
        f"  report (HTML, one offline file): {run_dir / 'report' / 'report.html'}",
    ]
    for name in ("report.md", "report.html", "score-report.json", "executions.jsonl"):
        assert (run_dir / "report" / name).stat().st_size > 10_000


def test_the_inventing_persona_is_originated_and_audited(demo: tuple[Path, str]) -> None:
    run_dir, text = demo
    report = _report(run_dir)
    audit = {(a["cellKey"], a["operand"]) for a in report["operandProvenance"]["audit"]}
    invented = 0
    for key, (execution, score) in _executions(run_dir).items():
        if persona_of(execution) != "invent":
            continue
        originated = [
            o
            for i in score["provenance"]["invocations"]
            for o in i["operands"]
            if o["resolution"] == "UNTRACEABLE"
        ]
        # the swapped digits never equal a traced value in the worked example
        assert originated, key
        assert score["provenance"]["outcome"] == "OPERAND-ORIGINATED"
        for operand in originated:
            assert operand["step"] == "v" and not operand["grounded"]
            assert (key, operand["literal"]) in audit
            invented += 1
    assert invented == 25
    found = signatures(run_dir)["invent"]
    assert found["operand UNTRACEABLE"] == found["operand in audit"] == invented
    assert f"inventing persona: {invented} operand(s) ORIGINATED" in text


def test_the_sign_inverting_persona_is_reported_as_sign_inversion(demo: tuple[Path, str]) -> None:
    run_dir, text = demo
    inverted = 0
    for execution, score in _executions(run_dir).values():
        if persona_of(execution) != "sign-invert":
            continue
        operands = [o for i in score["provenance"]["invocations"] for o in i["operands"]]
        negated = [o for o in operands if o["literal"].startswith("-")]
        for operand in negated:
            if operand["literal"].strip("-0.") == "":
                assert operand["resolution"] == "SOURCE-VALUE"  # -0.00 is the delivered 0.00
                continue
            assert operand["resolution"] == "SIGN-INVERSION"
            assert operand["finding"]["type"] == "SIGN-INVERSION"
            inverted += 1
        assert not [o for o in operands if o["resolution"] == "UNTRACEABLE"]
    assert inverted == 14
    report = _report(run_dir)
    steps = {s["resolution"]: int(s["count"]) for s in report["operandProvenance"]["operandSteps"]}
    assert steps["SIGN-INVERSION"] == inverted
    assert f"sign-inverting persona: {inverted} operand(s) reported as SIGN-INVERSION" in text


def test_the_decliner_routes_to_adjudication(demo: tuple[Path, str]) -> None:
    run_dir, _ = demo
    keys = []
    for key, (execution, score) in _executions(run_dir).items():
        if persona_of(execution) == "decline":
            assert score["figure"]["outcome"] == "ADJUDICATE-DECLINE"
            assert score["accuracy"]["outcome"] == "ADJUDICATE"
            assert score["answer"]["adjudication"] is True and score["answer"]["outcome"] is None
            keys.append(key)
    assert len(keys) == 12
    rows = json.loads((run_dir / "report/adjudication/key.json").read_text())["rows"]
    routed = {r["cellKey"] for r in rows}
    assert set(keys) <= routed
    sheet = (run_dir / "report/adjudication/scorer-1.csv").read_text(encoding="utf-8")
    assert sheet.count("ADJUDICATE-DECLINE") == len(keys)
    assert "base/" not in sheet and "instruction-removed/" not in sheet  # blind to condition


def test_the_foreign_shape_is_unobservable(demo: tuple[Path, str]) -> None:
    run_dir, _ = demo
    foreign = [s for e, s in _executions(run_dir).values() if persona_of(e) == "foreign-shape"]
    assert len(foreign) == 11
    for score in foreign:
        assert score["status"] == "UNOBSERVABLE"
        assert score["invocation"]["evidenceClass"] == "EV-0"
        assert score["invocation"]["outcome"] is None
        assert score["answer"]["status"] == "UNMEASURED"
    report = _report(run_dir)
    by_condition = report["invocation"]["byCondition"]
    assert sum(int(c["ev0"]) for c in by_condition) == len(foreign)
    executed = {s["status"]: int(s["count"]) for s in report["statusCounts"]}["EXECUTED"]
    assert sum(int(c["ev2"]) + int(c["ev1"]) for c in by_condition) == executed


def test_the_report_is_a_valid_profile_without_a_pass_mark(demo: tuple[Path, str]) -> None:
    run_dir, _ = demo
    report = _report(run_dir)
    validate_document(Ap1ScoreReport, report)
    assert json_schema_validator("ap1-score-report").is_valid(report)
    assert report["scorer"]["name"] == "apconform-ap1-scorer"
    assert re.fullmatch("[0-9a-f]{64}", report["scorer"]["sourceSha256"])
    assert report["integrity"]["inputsMatchSeal"] is True
    assert {d["dimension"] for d in report["unmeasured"]} == {"D3", "D4", "D5", "D6", "D7.4"}
    text = json.dumps(report).lower()
    for word in ('pass mark"', 'verdict":', '"passed', '"grade'):
        assert word not in text
    cells = {c["dimension"]: c for c in report["dimensions"]}
    assert cells["D7.1"]["evidenceClass"] == "EV-2" and cells["D1"]["evidenceClass"] is None
    assert cells["D2"]["status"] == "UNMEASURED"  # 2 repeats, never "1 distinct value"
    assert all(c["distinctValues"] is None for c in report["reproducibility"]["cells"])


def test_the_html_report_is_one_offline_file(demo: tuple[Path, str]) -> None:
    run_dir, _ = demo
    page = (run_dir / "report" / "report.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg ") >= 3
    assert "<script" not in page and "src=" not in page and "@import" not in page
    assert all(u.startswith("#") for u in re.findall(r"url\(([^)]*)\)", page))  # own patterns
    assert re.findall(r'href="([^"]*)"', page) and all(
        h.startswith("#") for h in re.findall(r'href="([^"]*)"', page)
    )
    markdown = (run_dir / "report" / "report.md").read_text(encoding="utf-8")
    assert markdown.startswith("# AP-1 score report\n")
    assert "Originated-operand audit" in markdown and "## Unmeasured dimensions" in markdown


def test_rescoring_reproduces_the_report_and_names_changed_inputs(
    demo: tuple[Path, str], tmp_path: Path
) -> None:
    run_dir, _ = demo
    again = score_run(run_dir, tmp_path / "again")
    assert compare_reports(run_dir / "report", again.output_dir) == []
    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy, ignore=shutil.ignore_patterns("report", "rescore", ".lock"))
    config = json.loads((copy / "inputs/config.json").read_text())
    config["request"]["tool"]["description"] = "Evaluate an expression (edited after sealing)."
    (copy / "inputs/config.json").write_text(json.dumps(config), encoding="utf-8")
    changed = score_run(copy).report.document["integrity"]
    assert changed["inputsMatchSeal"] is False
    assert changed["statement"].startswith("THE INPUTS DIFFER FROM THE SEAL (config)")
    assert [c["name"] for c in changed["inputs"] if c["matches"] is False] == ["config"]


def test_an_edited_transcript_record_is_named_in_the_report(
    demo: tuple[Path, str], tmp_path: Path
) -> None:
    run_dir, _ = demo
    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy, ignore=shutil.ignore_patterns("report", "rescore", ".lock"))
    lines = (copy / "transcript.jsonl").read_bytes().split(b"\n")
    lines[5] = lines[5].replace(b'"repeat":"', b'"repeat":"9', 1)
    (copy / "transcript.jsonl").write_bytes(b"\n".join(lines))
    transcript = score_run(copy).report.document["integrity"]["transcript"]
    assert transcript["verified"] is False
    assert [(p["line"], p["kind"]) for p in transcript["problems"]][:1] == [("6", "edited")]
