"""Filled-in sheets: reading a scorer's marks and the settled marks from CSV, and writing them back.

A filled-in sheet is the CSV that ``apconform ap1 score`` wrote, with the
mark columns filled in; a settlement sheet lists the marks agreed in
reconciliation (``rowId``, ``outcome``, ``accuracy``, ``settledBy``,
``reason``). Reading refuses what the import must not guess about (an unknown
or repeated row id, a missing column, a mark the row does not allow) with the
line it is on. Writing fills a blank sheet with the marks of the web store, so
the web store and the sheets can be exchanged both ways.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from apconform.ap1.scoring.adjudication.marks import (
    MARK_FIELDS,
    SETTLEMENT_FIELDS,
    checked_mark,
    checked_settlement,
)
from apconform.ap1.scoring.rows import Disagreement
from apconform.core.errors import ApconformError, define_code

__all__ = [
    "SETTLEMENT_COLUMNS",
    "SHEET_REFUSED",
    "fill_sheet",
    "read_settlements",
    "read_sheet",
    "settlement_csv",
]

SHEET_REFUSED = define_code(
    "AP1-ADJ-SHEET",
    "A filled-in adjudication sheet cannot be imported",
    "Fill in the CSV written by `apconform ap1 score` without changing its row ids or columns; "
    "use only the marks listed in each row's rubric.",
    exit_status=1,
)
SETTLEMENT_COLUMNS = (
    "rowId",
    "dimension",
    "scorer1",
    "scorer2",
    "outcome",
    "accuracy",
    "settledBy",
    "reason",
)
_MAX_SHEET_BYTES = 64 * 1024 * 1024


def _rows(
    data: bytes, what: str, needed: tuple[str, ...]
) -> Iterator[tuple[int, dict[str, str | None]]]:
    """The CSV's rows by line number: column -> text (None where a line is short)."""
    if len(data) > _MAX_SHEET_BYTES:
        raise ApconformError(SHEET_REFUSED, f"{what} is larger than {_MAX_SHEET_BYTES} bytes")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ApconformError(SHEET_REFUSED, f"{what} is not UTF-8 text") from None
    try:
        # Read every row now, so a malformed line is refused here and not met mid-merge.
        reader = csv.DictReader(io.StringIO(text))
        rows = list(reader)
    except csv.Error as error:
        raise ApconformError(SHEET_REFUSED, f"{what} is not readable CSV: {error}") from None
    missing = [c for c in needed if c not in (reader.fieldnames or [])]
    if missing:
        raise ApconformError(SHEET_REFUSED, f"{what} lacks the column(s) {', '.join(missing)}")
    yield from enumerate(rows, start=2)


def _row_id(row: dict[str, str | None], key: Mapping[str, Any], seen: set[str], where: str) -> str:
    row_id = str(row.get("rowId") or "").strip()
    if row_id not in key:
        raise ApconformError(SHEET_REFUSED, f"{where}: unknown row id {row_id!r}")
    if row_id in seen:
        raise ApconformError(SHEET_REFUSED, f"{where}: row {row_id} appears twice")
    seen.add(row_id)
    return row_id


def read_sheet(
    data: bytes, key: Mapping[str, Mapping[str, Any]], what: str
) -> dict[str, dict[str, str]]:
    """The marks of a filled-in sheet, by row id (rows of ``key``: row id -> key row)."""
    marks: dict[str, dict[str, str]] = {}
    seen: set[str] = set()
    for line, row in _rows(data, what, ("rowId", *MARK_FIELDS)):
        where = f"{what}, line {line}"
        row_id = _row_id(row, key, seen, where)
        try:
            marks[row_id] = checked_mark(
                row_id, key[row_id]["dimension"], {f: row.get(f) or "" for f in MARK_FIELDS}
            )
        except ApconformError as refused:
            raise ApconformError(SHEET_REFUSED, f"{where}: {refused.message}") from None
    return marks


def read_settlements(
    data: bytes, key: Mapping[str, Mapping[str, Any]], what: str
) -> dict[str, dict[str, str]]:
    """The settled marks of a settlement sheet, by row id (checked against the scorers' marks
    when they are merged; here only the row ids, the columns and the mark values)."""
    settled: dict[str, dict[str, str]] = {}
    seen: set[str] = set()
    for line, row in _rows(data, what, ("rowId", *SETTLEMENT_FIELDS)):
        where = f"{what}, line {line}"
        row_id = _row_id(row, key, seen, where)
        fields = {f: str(row.get(f) or "").strip() for f in SETTLEMENT_FIELDS}
        if not (fields["outcome"] or fields["accuracy"]):
            continue  # a disagreement listed but not settled yet
        try:
            settled[row_id] = checked_settlement(row_id, key[row_id]["dimension"], fields)
        except ApconformError as refused:
            raise ApconformError(SHEET_REFUSED, f"{where}: {refused.message}") from None
    return settled


def _csv(header: tuple[str, ...] | list[str], rows: Sequence[Mapping[str, str | None]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(header), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def fill_sheet(blank: bytes, marks: Mapping[str, Mapping[str, str]], what: str) -> str:
    """A scorer's blank sheet (as ``apconform ap1 score`` wrote it) with ``marks`` filled in."""
    rows = []
    header: list[str] = []
    for _, row in _rows(blank, what, ("rowId", *MARK_FIELDS)):
        if not header:
            header = list(row)
        mark = marks.get(str(row["rowId"]))
        if mark is not None:
            row.update({field: mark[field] for field in MARK_FIELDS})
        rows.append(row)
    return _csv(header or ["rowId", *MARK_FIELDS], rows)


def settlement_csv(disagreements: list[Disagreement]) -> str:
    """The settlement sheet: one row per row in dispute, both scorers' marks and the settled one."""
    rows = []
    for d in disagreements:
        settled = d["settled"] or {}
        rows.append(
            {
                "rowId": d["rowId"],
                "dimension": d["dimension"],
                "scorer1": _mark_text(d["scorer1"]),
                "scorer2": _mark_text(d["scorer2"]),
                **{field: str(settled.get(field, "")) for field in SETTLEMENT_FIELDS},
            }
        )
    return _csv(SETTLEMENT_COLUMNS, rows)


def _mark_text(mark: Mapping[str, str]) -> str:
    return " / ".join(mark[f] for f in ("outcome", "accuracy") if mark[f]) or "(unmarked)"
