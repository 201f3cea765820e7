"""A long run's listings go to temporary files and its sheets are sorted from disk: same bytes.

The demo run is small, so the threshold is lowered to a few rows: every
listing (audit, altered, ungoverned, non-outcome cells, routed rows) and the
D2 digests then live in temporary files, the sheets are ordered by their per-row keys and
read back by offset, and with workers the two scorers' sheets are written by
forked processes. The files must equal the demo's own report byte for byte.
"""

from __future__ import annotations

import json
import multiprocessing
import os
from collections import Counter
from pathlib import Path

import pytest

from apconform.ap1.inputs.plan import plan_cells, plan_groups
from apconform.ap1.scoring import compare_reports, score_run
from apconform.ap1.scoring import parallel as parallel_scoring
from apconform.ap1.scoring.tally import CellTally
from apconform.core import distinct, spooled
from apconform.core.errors import ApconformError
from apconform.core.spooled import RowStream, SpooledRows


@pytest.fixture
def spill_early(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spooled, "MEMORY_ROWS", 3)
    monkeypatch.setattr(distinct, "MEMORY_VALUES", 3)
    monkeypatch.setattr(parallel_scoring, "_BLOCK", 30_000)


@pytest.mark.parametrize("jobs", [1, 2])
def test_spooled_listings_write_the_demo_report_bytes(
    demo: tuple[Path, str],
    tmp_path: Path,
    spill_early: None,
    jobs: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run_dir, _ = demo
    counted_from_files: list[int] = []
    count_files = distinct.DistinctCounter._count_files

    def spy(counter: distinct.DistinctCounter) -> Counter[bytes]:
        counts = count_files(counter)
        counted_from_files.append(sum(counts.values()))
        return counts

    monkeypatch.setattr(distinct.DistinctCounter, "_count_files", spy)
    scored = score_run(run_dir, tmp_path / "out", jobs=jobs)
    assert compare_reports(run_dir / "report", scored.output_dir) == []
    document = scored.report.document
    audit = document["operandProvenance"]["audit"]
    assert isinstance(audit, SpooledRows) and audit.spilled and len(audit) > 3
    assert counted_from_files  # the D2 counts were read back from the temporary files
    written = json.loads((scored.output_dir / "score-report.json").read_text(encoding="utf-8"))
    assert scored.report.plain_document() == written
    assert isinstance(scored.report.sheet_rows, RowStream)
    assert len(scored.report.sheet_rows) == int(document["adjudication"]["routed"])
    leftovers = [
        p.name
        for p in scored.output_dir.rglob("*")
        if "spool" in p.name or p.name.endswith(".partial")
    ]
    assert leftovers == []


def test_a_sheet_that_cannot_be_written_by_its_process_fails_the_score(
    demo: tuple[Path, str], tmp_path: Path, spill_early: None
) -> None:
    run_dir, _ = demo
    out = tmp_path / "out"
    (out / "adjudication").mkdir(parents=True)
    os.symlink(tmp_path / "elsewhere.html", out / "adjudication" / "scorer-2.html")
    with pytest.raises(ApconformError) as refused:
        score_run(run_dir, out, jobs=2)
    assert refused.value.code == "AP1-RUN-LINK"
    assert "scorer-2.html" in refused.value.message
    assert not (tmp_path / "elsewhere.html").exists()
    assert not os.path.lexists(out / "adjudication" / "scorer-2.csv")  # never half a pair
    assert [p.name for p in out.rglob("*.partial")] == []


def test_the_tally_counts_recorded_cells_as_sets_of_keys_would(
    demo: tuple[Path, str],
) -> None:
    from apconform.ap1.inputs.plan import load_run_inputs
    from apconform.ap1.rundir import INPUT_FILES
    from apconform.ap1.scoring.context import scoring_inputs
    from apconform.ap1.scoring.files import load_in

    run_dir, _ = demo
    documents = {
        n: load_in(run_dir, INPUT_FILES[n])
        for n in ("config", "fixture", "questions", "derivations")
    }
    inputs = load_run_inputs(**documents, ap1_text=None)
    planned = [cell.key for cell in plan_cells(inputs)]
    tally = CellTally(plan_groups(inputs))
    recorded = [*planned[::3], "base/no-such-item/1", planned[1] + "0" * 3, "odd"]
    recorded += [planned[4].rsplit("/", 1)[0] + "/01", planned[4].rsplit("/", 1)[0] + "/\u0661"]
    for key in recorded:
        tally.add(key)
    tally.add(planned[0])  # again: no change
    keys = set(recorded)
    assert tally.planned == len(planned) == 204
    assert len(tally) == len(keys)
    assert tally.in_plan == len(keys & set(planned))
    assert tally.unplanned == len(keys - set(planned))
    assert all((key in tally) == (key in keys) for key in [*planned, *recorded, "x/y/z"])
    assert scoring_inputs(inputs).items
    # a worker's stretch: recorded as a whole when none of its keys is, else not at all
    assert not tally.add_new([planned[1], planned[0]])  # planned[0] is recorded
    assert not tally.add_new(["odd", "another"])  # "odd" is recorded (off the plan)
    assert planned[1] not in tally and "another" not in tally
    assert tally.add_new([planned[1], planned[2], "another"])
    assert planned[1] in tally and planned[2] in tally and "another" in tally
    assert tally.in_plan == len(keys & set(planned)) + 2
    assert tally.unplanned == len(keys - set(planned)) + 1


def test_flushed_rows_are_read_whole_by_a_forked_process_that_writes_nothing(
    tmp_path: Path,
) -> None:
    rows = SpooledRows(str(tmp_path), memory_rows=2)
    for n in range(5):  # three spilled to the file, two pending in memory
        rows.append({"n": str(n)})
    rows.flush()
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=lambda: send.send([row["n"] for row in rows]))
    child.start()
    assert receive.recv() == ["0", "1", "2", "3", "4"]
    child.join()
    assert child.exitcode == 0
    rows.append({"n": "5"})
    assert [row["n"] for row in rows] == ["0", "1", "2", "3", "4", "5"]
    assert [row["n"] for row in rows.at([5, 0])] == ["5", "0"]


def test_a_cell_key_is_recorded_once_and_refused_after(demo: tuple[Path, str]) -> None:
    from apconform.ap1.inputs.plan import load_run_inputs
    from apconform.ap1.rundir import INPUT_FILES
    from apconform.ap1.scoring.files import load_in

    run_dir, _ = demo
    documents = {
        n: load_in(run_dir, INPUT_FILES[n])
        for n in ("config", "fixture", "questions", "derivations")
    }
    inputs = load_run_inputs(**documents, ap1_text=None)
    planned = [cell.key for cell in plan_cells(inputs)]
    tally = CellTally(plan_groups(inputs))
    assert tally.add_if_new(planned[5]) is True
    assert tally.add_if_new(planned[5]) is False
    assert tally.add_if_new("base/no-such-item/1") is True
    assert tally.add_if_new("base/no-such-item/1") is False
    assert tally.add_if_new(planned[5] + "000") is True  # a repeat past the plan: off the plan
    assert (tally.in_plan, tally.unplanned, len(tally)) == (1, 2, 3)
    assert planned[5] in tally and planned[6] not in tally
