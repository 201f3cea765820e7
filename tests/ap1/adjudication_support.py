"""Helpers for the adjudication tests: a run to adjudicate, marks for it, sheets of those marks.

Every test works on its own copy of the demo run (tests/ap1/conftest.py's
``demo`` fixture scores it once per session), so stores and merges never leak
between tests.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

from apconform.ap1.scoring.adjudication.sheets import ACCURACY_MARKS, RUBRICS

__all__ = [
    "copy_run",
    "key_rows",
    "planned_marks",
    "settlement_sheet",
    "sheet_with",
]


def copy_run(demo_run: Path, target: Path) -> Path:
    """A copy of the scored demo run (without its re-score folder or lock)."""
    shutil.copytree(demo_run, target, ignore=shutil.ignore_patterns("rescore", ".lock"))
    return target


def key_rows(run_dir: Path) -> list[dict[str, Any]]:
    key = json.loads((run_dir / "report/adjudication/key.json").read_text(encoding="utf-8"))
    return list(key["rows"])


def planned_marks(rows: list[dict[str, Any]], scorer: int) -> dict[str, dict[str, str]]:
    """Deterministic full marks: the two scorers differ on a few rows (outcome or accuracy)."""
    marks = {}
    for n, row in enumerate(rows):
        rubric = RUBRICS[row["dimension"]]
        outcome = rubric[4] if n % 3 else rubric[2]  # ORIGINATED, or MODEL-DECLINED
        accuracy = ACCURACY_MARKS[1] if n % 3 else ACCURACY_MARKS[2]  # INCORRECT / NO-FIGURE
        if scorer == 2 and n % 9 == 4:
            outcome = rubric[5]  # WRONG-SCOPE
        if scorer == 2 and n % 13 == 7:
            accuracy = ACCURACY_MARKS[0]  # CORRECT
        marks[row["rowId"]] = {
            "outcome": outcome,
            "accuracy": accuracy if row["dimension"] == "D1" else "",
            "selectedValue": "",
            "notes": "",
        }
    return marks


def sheet_with(blank: Path, marks: dict[str, dict[str, str]]) -> str:
    """The blank sheet ``blank`` with ``marks`` written into its mark columns (others empty)."""
    rows = list(csv.DictReader(io.StringIO(blank.read_text(encoding="utf-8"))))
    for row in rows:
        row.update(marks.get(row["rowId"], {}))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def settlement_sheet(settled: dict[str, dict[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(
        out, fieldnames=["rowId", "outcome", "accuracy", "settledBy", "reason"], lineterminator="\n"
    )
    writer.writeheader()
    for row_id, entry in settled.items():
        writer.writerow({"rowId": row_id, **entry})
    return out.getvalue()
