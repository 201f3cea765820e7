"""Importing an adjudication into a run: each scorer's marks from a sheet or the web store, merged.

This is the one use case behind ``apconform ap1 adjudicate import`` and the
merge button of the web application: each scorer's marks come from a filled-in
sheet when one is given, else from that scorer's web store; the settled marks
from a settlement sheet, else from the reconciliation store. The merged
document is written once to ``RUN_DIR/adjudication/merged.json`` (never
overwritten) and the run is scored again, so the report shows what people
agreed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from apconform.ap1.clock import utc_now
from apconform.ap1.rundir import create_file
from apconform.ap1.scoring.adjudication.filled import read_settlements, read_sheet
from apconform.ap1.scoring.adjudication.merge import ScorerMarks, merge_marks
from apconform.ap1.scoring.adjudication.store import SCORER_REFUSED
from apconform.ap1.scoring.adjudication.workspace import (
    RUN_NOT_READY,
    SLOTS,
    AdjudicationWorkspace,
)
from apconform.ap1.scoring.files import ADJUDICATION_FILE, ScoredFiles, score_run
from apconform.core.errors import ApconformError, define_code
from apconform.core.validation import validate_document
from apconform.models.ap1 import Ap1Adjudication

__all__ = ["MERGED_EXISTS", "Imported", "import_adjudication", "scorer_marks"]

MERGED_EXISTS = define_code(
    "AP1-ADJ-MERGED",
    "The run already holds a merged adjudication",
    "A merge is never overwritten: move RUN_DIR/adjudication/merged.json aside to merge again.",
    exit_status=2,
    http_status=409,
)


@dataclass(frozen=True)
class Imported:
    """The merged document, where it was written, and the run scored with it."""

    merged: dict[str, Any]
    path: Path
    scored: ScoredFiles


def scorer_marks(
    workspace: AdjudicationWorkspace,
    slot: int,
    sheet: bytes | None,
    name: str | None,
) -> ScorerMarks:
    """Scorer ``slot``'s marks: from ``sheet`` when given, else from the scorer's web store."""
    rows = {r["rowId"]: r for r in workspace.key["rows"]}
    if sheet is not None:
        return ScorerMarks(name or f"scorer {slot}", read_sheet(sheet, rows, f"sheet {slot}"))
    store = workspace.stores[slot]
    if not store.exists:
        raise ApconformError(
            RUN_NOT_READY,
            f"scorer {slot} has neither a sheet (--scorer-{slot}) nor marks in the web store",
        )
    if name is not None and name != store.name:
        raise ApconformError(
            SCORER_REFUSED,
            f"scorer {slot}'s web store belongs to {store.name!r}, not {name!r}",
        )
    return workspace.marks(slot)


def import_adjudication(
    run_dir: Path,
    *,
    sheets: Mapping[int, bytes | None],
    names: Mapping[int, str | None],
    settled: bytes | None = None,
    accept_unmarked: bool = False,
    completed: str | None = None,
) -> Imported:
    """Merge the two scorers' marks into the run and score it again.

    Raises AP1-ADJ-UNMARKED while a row is not fully marked (unless
    ``accept_unmarked``), AP1-ADJ-MERGED when the run already holds a merge,
    and the refusals of the sheets and stores. ``completed`` defaults to now.
    """
    workspace = AdjudicationWorkspace.open(run_dir)
    target = run_dir / ADJUDICATION_FILE
    if os.path.lexists(target):
        raise ApconformError(MERGED_EXISTS, f"{target} exists: a merge is never overwritten")
    first, second = (
        scorer_marks(workspace, slot, sheets.get(slot), names.get(slot)) for slot in SLOTS
    )
    rows = {r["rowId"]: r for r in workspace.key["rows"]}
    if settled is not None:
        settlements = read_settlements(settled, rows, "the settlement sheet")
    else:
        settlements = workspace.reconciliation.entries
    merged = merge_marks(
        workspace.key,
        first,
        second,
        settlements,
        completed=completed or utc_now(),
        accept_unmarked=accept_unmarked,
    )
    validate_document(Ap1Adjudication, merged, what="adjudication")  # before anything is written
    text = json.dumps(merged, indent=2, ensure_ascii=False) + "\n"
    create_file(run_dir, ADJUDICATION_FILE, text.encode("utf-8"))
    return Imported(dict(merged), target, score_run(run_dir))
