"""What the import and comparison of published reference runs got wrong, on records in the
published shape (tests/ap1/published_runs.py writes them).

An EV-0 execution (run F's base Q08 #1: one round the reference could not read) gets the
instrument's D7.3 outcome and agrees with the reference's; a repeated execution is refused
with both pairs of lines; an oversized record is called too large, not "not a JSON record";
D1 and D2 are not claimed for an import and the score summary says so; verify-transcript of
an imported run does not advise a resume that `ap1 run --resume` would refuse.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from apconform.cli import main

from .published_runs import (
    DERIVATIONS,
    QUESTIONS,
    published,
    standard_executions,
    transcript_lines,
    unreadable_v1,
    write_published_run,
)


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _rows(run_dir: Path) -> dict[str, tuple[str, str, str, str]]:
    document = _json(run_dir / "comparison" / "reference-comparison.json")
    return {
        row["dimension"]: (row["compared"], row["agree"], row["disagree"], row["notRecorded"])
        for row in document["dimensions"]
    }


def test_an_ev0_execution_gets_a_d7_3_outcome_and_is_compared_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    executions = [*standard_executions(), unreadable_v1("base")]
    run = write_published_run(tmp_path, "run_f_sol", executions)
    run_dir = tmp_path / "run"
    assert main(run.import_args(run_dir)) == 0
    assert main(["ap1", "score", str(run_dir)]) == 0
    scores = [
        json.loads(line)
        for line in (run_dir / "report" / "executions.jsonl").read_text().splitlines()
    ]
    ev0 = next(s for s in scores if s["cellKey"] == "base/V1/3")
    assert ev0["invocation"]["evidenceClass"] == "EV-0"
    assert ev0["figure"]["outcome"] == "UNMEASURABLE"
    assert ev0["transcription"]["outcome"] == "UNOBSERVABLE"
    capsys.readouterr()
    assert main(["ap1", "compare-reference", str(run_dir)]) == 0
    out = capsys.readouterr().out
    assert "None" not in out
    rows = _rows(run_dir)
    assert rows["D7.1 evidence class"] == ("6", "6", "0", "0")
    assert rows["figure outcome"] == ("6", "6", "0", "0")
    assert rows["D7.3 transcription"] == ("6", "6", "0", "0")
    document = _json(run_dir / "comparison" / "reference-comparison.json")
    assert document["disagreements"] == []
    unexplained = next(
        c for c in document["classifications"] if c["classification"] == "unexplained"
    )
    assert unexplained["count"] == "0"


def test_a_repeated_execution_is_refused_naming_both_pairs_of_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, seal = published("run_e_mini")
    lines = transcript_lines(config, seal, standard_executions(), august=False)
    repeated = [*lines, lines[2], lines[3]]  # the second execution's two records, again
    run = write_published_run(tmp_path, "run_e_mini", lines=repeated)
    assert main(run.import_args(tmp_path / "run")) == 2
    err = capsys.readouterr().err
    assert (
        "error AP1-IMPORT-RECORD: line 11: the execution on lines 11-12 repeats the one on "
        "lines 3-4 (the same engine record)"
    ) in err
    assert not (tmp_path / "run").exists()


def test_an_oversized_valid_record_is_called_too_large(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, seal = published("run_e_mini")
    lines = transcript_lines(config, seal, standard_executions(), august=False)
    record = json.loads(lines[4])
    record["response_received"]["choices"][0]["message"]["content"] = "x" * (4 * 1024 * 1024)
    lines[4] = json.dumps(record, sort_keys=True)
    run = write_published_run(tmp_path, "run_e_mini", lines=lines)
    assert main(run.import_args(tmp_path / "run")) == 2
    err = capsys.readouterr().err
    assert "line 5: the record is larger than the 4 MiB a line may be" in err
    assert "not a JSON record" not in err


def _ten_items() -> tuple[dict[str, Any], dict[str, Any]]:
    """The two questions and eight more like V2: D2's minimum item count is met."""
    questions = json.loads(json.dumps(QUESTIONS))
    derivations = json.loads(json.dumps(DERIVATIONS))
    v2 = questions["items"][1]
    d2 = derivations["derivations"][1]
    for number in range(3, 11):
        questions["items"].append({**v2, "id": f"V{number}"})
        derivations["derivations"].append({**d2, "itemId": f"V{number}"})
    return questions, derivations


def test_d1_and_d2_are_not_claimed_and_the_score_summary_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = write_published_run(tmp_path, "run_e_mini")
    questions, derivations = _ten_items()
    run.questions.write_text(json.dumps(questions), encoding="utf-8")
    run.derivations.write_text(json.dumps(derivations), encoding="utf-8")
    run_dir = tmp_path / "run"
    assert main(run.import_args(run_dir)) == 0
    record = _json(run_dir / "import" / "import-record.json")
    dropped = {d["dimension"]: d["reason"] for d in record["claims"]["dropped"]}
    assert sorted(dropped) == ["D1", "D2"]
    assert "AP-1 requires at least 40" in dropped["D1"]
    assert "keeps neither the request bytes nor the response envelopes" in dropped["D2"]
    assert record["claims"]["imported"] == ["D7"]
    capsys.readouterr()
    assert main(["ap1", "score", str(run_dir)]) == 0
    out = capsys.readouterr().out
    assert "  dimensions claimed: D7\n" in out
    d1 = next(line for line in out.splitlines() if line.startswith("  D1 "))
    d2 = next(line for line in out.splitlines() if line.startswith("  D2 "))
    assert "not claimed; " in d1 and "not claimed; " in d2
    report = (run_dir / "report" / "report.md").read_text(encoding="utf-8")
    assert "Not claimed by this run: D1, D2, D3, D4, D5, D6." in report


def test_verify_transcript_of_an_imported_run_points_to_score_not_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = write_published_run(tmp_path, "run_e_mini")
    run_dir = tmp_path / "run"
    assert main(run.import_args(run_dir)) == 0
    capsys.readouterr()
    assert main(["ap1", "verify-transcript", str(run_dir)]) == 3
    out = capsys.readouterr().out
    assert "resume to complete" not in out
    assert f"never resumed: score it with `apconform ap1 score {run_dir}`" in out
    assert out.endswith(
        "transcript verifies; the imported run is unfinished and stays so (exit status 3)\n"
    )
    assert main(["ap1", "score", str(run_dir)]) == 0  # the advice works
