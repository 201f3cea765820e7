"""One merge whichever way the marks came (sheets, the web store, both); none merged silently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apconform.ap1.scoring.adjudication.exchange import load_sheet
from apconform.ap1.scoring.adjudication.importing import import_adjudication
from apconform.ap1.scoring.adjudication.workspace import AdjudicationWorkspace
from apconform.cli import main
from apconform.results import profile_figures
from apconform.site.pages import profiles_section

from .adjudication_support import (
    copy_run,
    key_rows,
    planned_marks,
    settlement_sheet,
    sheet_with,
)

COMPLETED = "2026-12-06T10:00:00Z"


@pytest.fixture
def run(demo: tuple[Path, str], tmp_path: Path) -> Path:
    return copy_run(demo[0], tmp_path / "run")


def _import(run: Path, *extra: str) -> int:
    return main(["ap1", "adjudicate", "import", str(run), *extra])


def test_unfilled_sheets_are_refused_with_the_count_of_rows_left(
    run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README tour's line: the blank sheets as ``ap1 score`` wrote them are not marks."""
    sheets = run / "report/adjudication"
    args = ["--scorer-1", str(sheets / "scorer-1.csv"), "--scorer-2", str(sheets / "scorer-2.csv")]
    assert _import(run, *args) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith(
        "error AP1-ADJ-UNMARKED: scorer 1 (scorer 1): 67 of 67 row(s) not fully marked "
        "(67 unmarked, 0 partly marked): "
    )
    assert "scorer 2 (scorer 2): 67 of 67 row(s) not fully marked" in captured.err
    assert "--accept-unmarked" in captured.err and "merged" not in captured.out
    assert not (run / "adjudication/merged.json").exists()
    assert _import(run, *args, "--accept-unmarked") == 0
    out = capsys.readouterr().out
    assert "scorer 1 (scorer 1): 0 of 67 row(s) marked, 67 NOT fully marked" in out
    merged = json.loads((run / "adjudication/merged.json").read_text(encoding="utf-8"))
    assert merged["acceptedIncomplete"] is True and merged["agreement"] == []
    report = json.loads((run / "report/score-report.json").read_text(encoding="utf-8"))
    assert report["adjudication"]["acceptedIncomplete"] is True
    assert "accepting rows left unmarked" in (run / "report/report.md").read_text(encoding="utf-8")


def test_partly_marked_rows_are_counted_apart(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = key_rows(run)
    blank = run / "report/adjudication"
    first = planned_marks(rows, 1)
    second = planned_marks(rows, 2)
    for row in rows[:5]:
        second[row["rowId"]]["accuracy"] = ""  # an outcome without its accuracy: partly
    (tmp_path / "a.csv").write_text(sheet_with(blank / "scorer-1.csv", first), encoding="utf-8")
    (tmp_path / "b.csv").write_text(sheet_with(blank / "scorer-2.csv", second), encoding="utf-8")
    assert (
        _import(run, "--scorer-1", str(tmp_path / "a.csv"), "--scorer-2", str(tmp_path / "b.csv"))
        == 1
    )
    err = capsys.readouterr().err
    assert (
        "scorer 2 (scorer 2): 5 of 67 row(s) not fully marked (0 unmarked, 5 partly marked)" in err
    )
    assert "scorer 1" not in err.split("AP1-ADJ-UNMARKED:")[1].split("\n")[0]


def _fill_stores(run: Path) -> dict[str, dict[str, str]]:
    """Both stores filled from the planned marks, reconciliation opened, two rows settled."""
    rows = key_rows(run)
    ws = AdjudicationWorkspace.open(run)
    blank = run / "report/adjudication"
    for slot, name in ((1, "Ada"), (2, "Bo")):
        sheet = sheet_with(blank / f"scorer-{slot}.csv", planned_marks(rows, slot))
        load_sheet(ws, name, sheet.encode())
    ws.open_reconciliation()
    settled = {
        rows[4]["rowId"]: {
            "outcome": "ORIGINATED",
            "accuracy": "",
            "settledBy": "Cy",
            "reason": "",
        },
        rows[7]["rowId"]: {
            "outcome": "",
            "accuracy": "INCORRECT",
            "settledBy": "Cy",
            "reason": "one cent off",
        },
    }
    for row_id, entry in settled.items():
        ws.settle(row_id, entry)
    return settled


def test_the_web_store_and_the_sheets_give_the_same_merged_document(
    demo: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    web = copy_run(demo[0], tmp_path / "web")
    settled = _fill_stores(web)
    from_web = import_adjudication(web, sheets={}, names={}, completed=COMPLETED).merged
    sheets = copy_run(demo[0], tmp_path / "sheets")
    rows = key_rows(sheets)
    blank = sheets / "report/adjudication"
    for slot in (1, 2):
        text = sheet_with(blank / f"scorer-{slot}.csv", planned_marks(rows, slot))
        (tmp_path / f"s{slot}.csv").write_text(text, encoding="utf-8")
    (tmp_path / "settled.csv").write_text(settlement_sheet(settled), encoding="utf-8")
    capsys.readouterr()
    assert (
        _import(
            sheets,
            *("--scorer-1", str(tmp_path / "s1.csv"), "--scorer-1-name", "Ada"),
            *("--scorer-2", str(tmp_path / "s2.csv"), "--scorer-2-name", "Bo"),
            *("--settled", str(tmp_path / "settled.csv"), "--completed", COMPLETED),
        )
        == 0
    )
    out = capsys.readouterr().out
    on_disk = (sheets / "adjudication/merged.json").read_bytes()
    assert on_disk == (web / "adjudication/merged.json").read_bytes()
    assert json.loads(on_disk) == from_web
    outcome = next(a for a in from_web["agreement"] if a["measure"] == "D1 outcome")
    assert f"D1 outcome: n 67, raw agreement {outcome['rawAgreement']}, Cohen's kappa " in out
    assert f"(95% CI {outcome['kappaInterval']['lower']} to " in out
    assert "disagreements settled by Cy" in out
    for run in (web, sheets):  # the same profile either way
        report = json.loads((run / "report/score-report.json").read_text(encoding="utf-8"))
        assert report["adjudication"]["agreement"] == from_web["agreement"]
    # mixed: scorer 1 from the web store, scorer 2 from a sheet
    mixed = copy_run(demo[0], tmp_path / "mixed")
    ws = AdjudicationWorkspace.open(mixed)
    load_sheet(ws, "Ada", (tmp_path / "s1.csv").read_bytes())
    assert (
        _import(
            mixed,
            *("--scorer-2", str(tmp_path / "s2.csv"), "--scorer-2-name", "Bo"),
            *("--settled", str(tmp_path / "settled.csv"), "--completed", COMPLETED),
        )
        == 0
    )
    assert (mixed / "adjudication/merged.json").read_bytes() == on_disk
    # a name that is not the store's is refused
    other = copy_run(demo[0], tmp_path / "other")
    load_sheet(AdjudicationWorkspace.open(other), "Ada", (tmp_path / "s1.csv").read_bytes())
    capsys.readouterr()
    assert _import(other, "--scorer-1-name", "Eve", "--scorer-2", str(tmp_path / "s2.csv")) == 2
    assert "error AP1-ADJ-SCORER: scorer 1's web store belongs to 'Ada', not 'Eve'" in (
        capsys.readouterr().err
    )
    assert _import(other, "--scorer-2", str(tmp_path / "s2.csv"), "--completed", "yesterday") == 2


def test_the_profile_and_the_ledger_say_who_adjudicated_when_and_kappa(run: Path) -> None:
    _fill_stores(run)
    merged = import_adjudication(run, sheets={}, names={}, completed=COMPLETED).merged
    report = json.loads((run / "report/score-report.json").read_text(encoding="utf-8"))
    d1 = report["dimensions"][0]
    outcome = next(a for a in merged["agreement"] if a["measure"] == "D1 outcome")
    kappa = f"{float(outcome['kappa']):.3f}"
    statement = d1["adjudication"]["statement"]
    assert statement.startswith(
        f"Human-adjudicated by Ada and Bo, merged {COMPLETED}; disagreements settled by Cy. "
        f"D1 outcome: Cohen's kappa {kappa} (95% CI "
    )
    assert d1["adjudication"]["scorers"] == ["Ada", "Bo"]
    assert [a["measure"] for a in d1["adjudication"]["agreement"]] == ["D1 outcome", "D1 accuracy"]
    assert all("adjudication" not in d for d in report["dimensions"][1:])
    assert statement in (run / "report/report.md").read_text(encoding="utf-8")
    assert "Adjudicated by scorer 1: Ada (67 marked" in (run / "report/report.md").read_text(
        encoding="utf-8"
    )
    figure = profile_figures(report)[0]
    assert figure.adjudication == statement
    page = profiles_section([({"model": "mock-mixed", "seq": 1, "runDate": "x"}, report)])
    assert "Human-adjudicated by Ada and Bo, merged 2026-12-06T10:00:00Z" in page
