"""`apconform report diff A B`: a planted regression is found, named and exits 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from result_samples import PLANTED, ap1_report, conformance_records, worsen_invocation, write_report

from apconform.cli import main
from apconform.core.validation import validate_document
from apconform.models.ledger import ResultDiff
from apconform.results import ResultKind, diff_results, render_diff_text


def _json(path: Path, value: object) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def test_planted_regression_is_named_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = write_report(tmp_path / "v1.jsonl", conformance_records(version="1.0.0"))
    after = write_report(
        tmp_path / "v2.jsonl",
        conformance_records({PLANTED: "wrong-value"}, version="1.1.0"),
    )
    assert main(["report", "diff", str(before), str(after), "--format", "json"]) == 1
    diff = json.loads(capsys.readouterr().out)
    validate_document(ResultDiff, diff)
    assert diff["regression"] is True
    assert diff["before"]["verdict"] == "pass" and diff["after"]["verdict"] == "fail"
    assert diff["before"]["implementation"] == {"name": "apconform-reference", "version": "1.0.0"}
    assert [(c["change"], c["item"], c["before"], c["after"]) for c in diff["vectors"]] == [
        ("newly-failing", PLANTED, "pass", "fail")
    ]
    assert "differ" in diff["vectors"][0]["detail"]
    assert [(c["change"], c["item"]) for c in diff["clauses"]] == [("newly-failing", "KIT-JCS-1")]
    assert diff["counts"] == {
        "newlyFailing": 2,
        "newlyPassing": 0,
        "changed": 0,
        "added": 0,
        "removed": 0,
    }
    # and the other way round the same vector and clause are newly passing: no regression
    assert main(["report", "diff", str(after), str(before)]) == 0
    text = capsys.readouterr().out
    assert f"newly passing  {PLANTED}  fail -> pass" in text
    assert text.splitlines()[-1] == (
        "no regression: 0 newly failing, 2 newly passing (1 vector, 1 clause), 0 changed, "
        "0 added, 0 removed"
    )  # one failing case, one clause: the count never mixes them into "2 failing"


def test_identical_reports_do_not_differ(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = write_report(tmp_path / "a.jsonl", conformance_records())
    assert main(["report", "diff", str(report), str(report)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("no regression: 0 newly failing")


def test_a_vector_failing_differently_is_a_change_not_a_regression() -> None:
    before = conformance_records({PLANTED: "wrong-value"})
    after = conformance_records({PLANTED: "wrong-refusal"})
    kind = ResultKind.CONFORMANCE_REPORT
    diff = diff_results(kind, before, kind, after)
    assert diff["regression"] is False
    assert [(c["change"], c["item"]) for c in diff["vectors"]] == [("changed", PLANTED)]
    assert diff["vectors"][0]["detail"].startswith("still failing, differently")


def test_errored_and_skipped_vectors(tmp_path: Path) -> None:
    before = conformance_records({PLANTED: "skip"})
    after = conformance_records({PLANTED: "error"})
    kind = ResultKind.CONFORMANCE_REPORT
    diff = diff_results(kind, before, kind, after)
    assert [(c["change"], c["before"], c["after"]) for c in diff["vectors"]] == [
        ("newly-failing", "skipped", "errored")
    ]
    assert diff["vectors"][0]["detail"] == "the implementation reported an error: failed on purpose"
    assert [(c["item"], c["before"], c["after"]) for c in diff["clauses"]] == [
        ("KIT-JCS-1", "partial", "errored")
    ]


def test_ap1_profiles_regress_only_beyond_their_intervals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = _json(tmp_path / "before.json", ap1_report())
    worse = _json(tmp_path / "after.json", worsen_invocation(ap1_report()))
    assert main(["report", "diff", str(base), str(worse), "--format", "json"]) == 1
    diff = json.loads(capsys.readouterr().out)
    assert diff["kind"] == "ap1-score-report"
    assert diff["before"]["subject"] == "mock-mixed"
    assert [(c["change"], c["item"]) for c in diff["dimensions"]] == [("newly-failing", "D7.1")]
    assert diff["dimensions"][0]["detail"].startswith("not invoked: 14/93 (15.1%")
    # a small change whose intervals overlap is reported as a change only
    nudged = ap1_report()
    rate = nudged["invocation"]["byCondition"][0]["failureRate"]
    rate.update(
        k="15", rate="0.1612903226", clopperPearsonLower="0.0932", clopperPearsonUpper="0.2523"
    )
    diff = diff_results(
        ResultKind.AP1_SCORE_REPORT, ap1_report(), ResultKind.AP1_SCORE_REPORT, nudged
    )
    assert diff["regression"] is False
    assert [(c["change"], c["item"]) for c in diff["dimensions"]] == [("changed", "D7.1")]
    assert render_diff_text(diff).splitlines()[-1].startswith("no regression: 0 newly failing")


def test_kinds_must_match_and_apx_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = write_report(tmp_path / "a.jsonl", conformance_records())
    profile = _json(tmp_path / "p.json", ap1_report())
    assert main(["report", "diff", str(report), str(profile)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "error APC-DIFF-KIND: cannot compare a conformance-report with a ap1-score-report"
    )
    assert "Traceback" not in err
    stranger = _json(tmp_path / "x.json", {"schemaVersion": "something/9"})
    assert main(["report", "diff", str(stranger), str(stranger)]) == 2
    assert capsys.readouterr().err.startswith("error APC-RESULT-UNKNOWN at $.schemaVersion")


def test_an_edited_report_is_refused_with_every_fault(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = conformance_records()
    records[3]["outcome"] = "fail"  # no longer matches the footer's digest and counts
    edited = write_report(tmp_path / "edited.jsonl", records)
    good = write_report(tmp_path / "good.jsonl", conformance_records())
    assert main(["report", "diff", str(good), str(edited)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("refused: 2 violation(s)")
    footer = len(records) - 1
    assert f"APC-RESULT-INCONSISTENT at $[{footer}]: the case records do not match" in err


def test_a_missing_report_is_named_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "v1.jsonl"
    assert main(["report", "diff", str(missing), str(missing)]) == 2
    err = capsys.readouterr().err
    assert f"error APC-FILE-NOT-FOUND: {missing}: no such file or directory" in err
    assert "hint: Check the earlier report (the first path) you named" in err
