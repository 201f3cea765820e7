"""Re-scoring in worker processes writes the same report bytes as one process, damaged or not."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import pytest

from apconform.ap1.scoring import compare_reports, score_run
from apconform.ap1.scoring import parallel as parallel_scoring
from apconform.core.errors import ApconformError


def _copy(run_dir: Path, target: Path) -> Path:
    shutil.copytree(run_dir, target, ignore=shutil.ignore_patterns("report", "rescore", ".lock"))
    return target


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ranges of a few lines each, so a small transcript spans many workers' ranges."""
    monkeypatch.setattr(parallel_scoring, "_BLOCK", 30_000)


def test_two_workers_write_the_single_process_report(
    demo: tuple[Path, str], tmp_path: Path, small_blocks: None
) -> None:
    run_dir, _ = demo
    one = score_run(run_dir, tmp_path / "one", jobs=1)
    two = score_run(run_dir, tmp_path / "two", jobs=2)
    assert (one.jobs, two.jobs) == (1, 2)
    assert compare_reports(one.output_dir, two.output_dir) == []
    assert compare_reports(run_dir / "report", two.output_dir) == []
    executions = two.report.document["integrity"]["transcript"]["executions"]
    lines = (two.output_dir / "executions.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == int(executions) == 204


def test_a_damaged_transcript_is_reported_the_same_with_workers(
    demo: tuple[Path, str], tmp_path: Path, small_blocks: None
) -> None:
    run_dir, _ = demo
    copy = _copy(run_dir, tmp_path / "damaged")
    lines = (copy / "transcript.jsonl").read_bytes().split(b"\n")
    lines[40] = lines[40].replace(b'"repeat":"', b'"repeat":"9', 1)  # edited bytes
    del lines[120]  # a gap: seq and chain break from here on
    lines.insert(200, lines[150])  # a cell scored again, far from its first record
    lines.insert(260, b"[1, 2]")  # JSON, not a record
    lines.insert(300, b"not json")
    (copy / "transcript.jsonl").write_bytes(b"\n".join(lines))
    one = score_run(copy, tmp_path / "one", jobs=1)
    two = score_run(copy, tmp_path / "two", jobs=2)
    assert compare_reports(one.output_dir, two.output_dir) == []
    transcript = two.report.document["integrity"]["transcript"]
    assert transcript["verified"] is False
    kinds = {p["kind"] for p in transcript["problems"]}
    assert kinds == {"edited", "sequence", "chain", "duplicate-cell", "not-a-record"}
    assert [p["line"] for p in transcript["problems"] if p["kind"] == "duplicate-cell"] == ["201"]


def test_workers_are_used_only_for_large_transcripts(
    demo: tuple[Path, str], tmp_path: Path
) -> None:
    run_dir, _ = demo
    transcript = run_dir / "transcript.jsonl"
    assert transcript.stat().st_size < parallel_scoring.PARALLEL_MIN_BYTES
    assert parallel_scoring.auto_jobs(transcript) == 1
    assert score_run(run_dir, tmp_path / "auto").jobs == 1
    with pytest.raises(ApconformError) as refused:
        score_run(run_dir, tmp_path / "none", jobs=0)
    assert refused.value.code == "AP1-SCORE-INPUT"


def test_blocks_end_at_line_ends_and_cover_the_file(tmp_path: Path, small_blocks: None) -> None:
    path = tmp_path / "lines.jsonl"
    rows = [json.dumps({"n": n, "pad": "x" * (n * 977 % 9000)}) for n in range(200)]
    path.write_text("\n".join(rows), encoding="utf-8")  # no final line end
    data = path.read_bytes()
    ranges = list(parallel_scoring._blocks(path))
    assert ranges[0][0] == 0 and ranges[-1][1] == len(data)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges))
    assert all(data[end - 1 : end] == b"\n" for _, end in ranges[:-1])
    assert len(ranges) > 10


def test_the_rescore_command_takes_and_shows_the_worker_count(
    demo: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from apconform.cli import main

    run_dir, _ = demo
    copy = _copy(run_dir, tmp_path / "copy")
    shutil.copytree(run_dir / "report", copy / "report")
    assert main(["ap1", "rescore", str(copy), "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert "executions into" in out and "(2 worker processes)" in out
    assert "identical, byte for byte" in out
    assert main(["ap1", "rescore", str(copy), "--jobs", "0"]) == 2
