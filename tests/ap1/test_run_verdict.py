"""verify_run: the one transcript verdict the CLI, the vector operation and the engine render.

The worked example's demo run (seal, run against mock-mixed, score) is verified as it is,
then with one record edited, its end cut, its head moved back, and its head gone.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from apconform.ap1.rundir import load_in
from apconform.ap1.scoring.anchor import check_report_anchor
from apconform.ap1.transcript.head import read_head
from apconform.ap1.transcript.verdict import RunVerdict, verify_run, verify_run_at
from apconform.ap1.transcript.verify import verify_transcript
from apconform.cli import main

RECORDS, CELLS = 206, 204
"""The demo run: 204 planned cells, all recorded, plus run-started and run-finished."""


def _copy(demo: tuple[Path, str], tmp_path: Path) -> Path:
    target = tmp_path / "run"
    shutil.copytree(demo[0], target, ignore=shutil.ignore_patterns("rescore", ".lock"))
    return target


def _lines(run_dir: Path) -> list[str]:
    return (run_dir / "transcript.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)


def _write(run_dir: Path, lines: list[str]) -> None:
    (run_dir / "transcript.jsonl").write_text("".join(lines), encoding="utf-8")


def _verdict(run_dir: Path) -> RunVerdict:
    return verify_run_at(run_dir, score_check=check_report_anchor)


def test_an_intact_run_verifies_anchored_finished_and_scored(demo: tuple[Path, str]) -> None:
    run_dir = demo[0]
    verdict = _verdict(run_dir)
    assert (verdict.valid, verdict.finished, verdict.exit_status) == (True, True, 0)
    assert (len(verdict.report.records), len(verdict.report.cells)) == (RECORDS, CELLS)
    assert verdict.planned == CELLS
    assert verdict.deferred == []
    assert verdict.report.problems == []
    assert (verdict.anchor.state, verdict.anchor.head_records) == ("anchored", RECORDS)
    assert verdict.anchor.message == (
        f"anchored: the head names record {RECORDS}, the last one, by its hash"
    )
    assert verdict.anchor.signature is None
    assert verdict.score_report is not None
    assert verdict.score_report.to_dict() == {
        "state": "matches",
        "message": f"the report scored exactly these {RECORDS} records",
    }
    assert verdict.path == run_dir / "transcript.jsonl"
    assert verdict.imported_from is None
    assert verdict.blocks_resume is False
    # the core alone, as the engine and the vector operation call it, decides the same
    seal_hash = load_in(run_dir, "seal.json")["sealHash"]
    report = verify_transcript(run_dir / "transcript.jsonl", seal_hash=seal_hash, in_run_dir=True)
    core = verify_run(report, read_head(run_dir), seal_hash=seal_hash)
    assert (core.valid, core.finished, core.exit_status, core.anchor) == (
        True,
        True,
        0,
        verdict.anchor,
    )
    assert core.score_report is None and core.planned is None


def test_an_edited_record_fails_the_verdict(demo: tuple[Path, str], tmp_path: Path) -> None:
    run_dir = _copy(demo, tmp_path)
    lines = _lines(run_dir)
    lines[5] = lines[5].replace('"base', '"basE', 1)
    _write(run_dir, lines)
    verdict = _verdict(run_dir)
    assert (verdict.valid, verdict.exit_status) == (False, 1)
    assert [p.to_dict() for p in verdict.report.problems] == [
        {
            "line": 6,
            "seq": "5",
            "kind": "edited",
            "message": "the record's content does not match its sha256; the record was edited",
        }
    ]
    # the head still names the last record: the fault is the chain's, not the end's
    assert verdict.anchor.state == "anchored"
    assert verdict.blocks_resume is False


def test_a_cut_end_fails_the_verdict_and_blocks_a_resume(
    demo: tuple[Path, str], tmp_path: Path
) -> None:
    run_dir = _copy(demo, tmp_path)
    _write(run_dir, _lines(run_dir)[:-3])
    verdict = _verdict(run_dir)
    assert (verdict.valid, verdict.finished, verdict.exit_status) == (False, False, 1)
    assert verdict.report.ok is True
    assert (verdict.anchor.state, verdict.anchor.head_records) == ("cut", RECORDS)
    assert verdict.anchor.message == (
        f"cut: the transcript ends at record {RECORDS - 3} of {RECORDS}; "
        "the run-finished record is missing"
    )
    assert verdict.score_report is not None
    assert verdict.score_report.to_dict() == {
        "state": "differs",
        "message": f"the report scored {RECORDS} records; the transcript now holds "
        f"{RECORDS - 3} (records were cut since it was scored)",
    }
    assert verdict.blocks_resume is True


def test_records_after_the_head_are_unfinished(demo: tuple[Path, str], tmp_path: Path) -> None:
    run_dir = _copy(demo, tmp_path)
    records = [json.loads(line) for line in _lines(run_dir)]
    head = json.loads((run_dir / "transcript.head.json").read_text(encoding="utf-8"))
    head |= {
        "records": str(RECORDS - 2),
        "headSha256": records[RECORDS - 3]["sha256"],
        "lastKind": records[RECORDS - 3]["kind"],
    }
    (run_dir / "transcript.head.json").write_text(json.dumps(head), encoding="utf-8")
    verdict = _verdict(run_dir)
    assert (verdict.valid, verdict.report.finished, verdict.finished) == (True, True, False)
    assert (verdict.anchor.state, verdict.exit_status) == ("tail", 3)
    assert verdict.blocks_resume is False
    assert verify_run_at(run_dir, require_anchor=True).exit_status == 3


def test_a_missing_head_blocks_a_resume_unless_only_run_started_was_written(
    demo: tuple[Path, str], tmp_path: Path
) -> None:
    run_dir = _copy(demo, tmp_path)
    (run_dir / "transcript.head.json").unlink()
    verdict = _verdict(run_dir)
    assert (verdict.anchor.state, verdict.valid, verdict.exit_status) == ("head-missing", False, 1)
    assert verdict.blocks_resume is True
    _write(run_dir, _lines(run_dir)[:1])
    verdict = _verdict(run_dir)
    assert (verdict.anchor.state, len(verdict.report.records)) == ("head-missing", 1)
    assert verdict.blocks_resume is False


def test_the_command_line_says_what_the_verdict_says_of_a_tail(
    demo: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A head that anchors an earlier record: the chain is whole and ends in run-finished, but
    the run is unfinished (exit 3); the JSON and the words say so, and counts are numbers."""
    run_dir = _copy(demo, tmp_path)
    records = [json.loads(line) for line in _lines(run_dir)]
    head = json.loads((run_dir / "transcript.head.json").read_text(encoding="utf-8"))
    head |= {
        "records": str(RECORDS - 2),
        "headSha256": records[RECORDS - 3]["sha256"],
        "lastKind": records[RECORDS - 3]["kind"],
    }
    (run_dir / "transcript.head.json").write_text(json.dumps(head), encoding="utf-8")
    capsys.readouterr()
    assert main(["ap1", "verify-transcript", str(run_dir), "--json"]) == 3
    document = json.loads(capsys.readouterr().out)
    assert (document["finished"], document["exitStatus"]) == (False, 3)
    assert (document["records"], document["anchor"]["headRecords"]) == (RECORDS, RECORDS - 2)
    assert document["anchor"]["state"] == "tail"
    assert main(["ap1", "verify-transcript", str(run_dir)]) == 3
    words = capsys.readouterr().out
    assert f"{RECORDS} records, {CELLS} of {CELLS} cells, NOT FINISHED" in words
    assert words.rstrip().endswith("transcript verifies so far, unfinished (exit status 3)")
