"""Sheets in and out of the web store, so a team can mix spreadsheets and the browser.

Exporting fills each scorer's blank sheet (the CSV ``apconform ap1 score``
wrote, in that scorer's order) with the marks of the web store, and writes the
disagreements with their settled marks as a settlement sheet once
reconciliation is open. Loading takes a filled-in sheet and records every mark
it holds in a scorer's web store, one record per changed row.
"""

from __future__ import annotations

from pathlib import Path

from apconform.ap1.rundir import create_file, ensure_directory, read_in
from apconform.ap1.scoring.adjudication.filled import fill_sheet, read_sheet, settlement_csv
from apconform.ap1.scoring.adjudication.marks import mark_state
from apconform.ap1.scoring.adjudication.workspace import SLOTS, AdjudicationWorkspace

__all__ = ["SETTLEMENT_SHEET", "export_sheets", "load_sheet"]

SETTLEMENT_SHEET = "settled.csv"
_BLANK = "report/adjudication/scorer-{slot}.csv"
_SHEET_LIMIT = 64 * 1024 * 1024


def export_sheets(
    workspace: AdjudicationWorkspace, output_dir: Path, slots: tuple[int, ...] = SLOTS
) -> list[Path]:
    """Write ``scorer-N.csv`` for each opened store of ``slots`` (and ``settled.csv``).

    Files are created new in ``output_dir``; an existing one is refused, never replaced.
    """
    ensure_directory(output_dir)
    written = []
    for slot in slots:
        store = workspace.stores[slot]
        if not store.exists:
            continue
        rel = _BLANK.format(slot=slot)
        blank = read_in(workspace.run_dir, rel, max_bytes=_SHEET_LIMIT, what="a blank sheet")
        text = fill_sheet(blank, store.entries, str(workspace.run_dir / rel))
        create_file(output_dir, f"scorer-{slot}.csv", text.encode("utf-8"))
        written.append(output_dir / f"scorer-{slot}.csv")
    if workspace.reconciliation.exists and set(slots) == set(SLOTS):
        text = settlement_csv(workspace.disagreements())
        create_file(output_dir, SETTLEMENT_SHEET, text.encode("utf-8"))
        written.append(output_dir / SETTLEMENT_SHEET)
    return written


def load_sheet(workspace: AdjudicationWorkspace, name: str, sheet: bytes) -> tuple[int, int]:
    """Record a filled-in sheet's marks in ``name``'s store: (the scorer's slot, rows written).

    Rows the sheet leaves blank are left as the store has them; the whole
    sheet is checked before anything is written.
    """
    rows = {r["rowId"]: r for r in workspace.key["rows"]}
    marks = read_sheet(sheet, rows, "the sheet")
    slot = workspace.claim(name)
    written = 0
    for row_id in workspace.order(slot):
        mark = marks.get(row_id)
        if mark is None or (
            mark_state(rows[row_id]["dimension"], mark) == "unmarked" and not mark["notes"]
        ):
            continue
        _, changed = workspace.put_mark(slot, name, row_id, mark)
        written += changed
    return slot, written
