"""Importing two scorers' marks: agreement, disagreements, and the agreed outcomes for the profile.

Each filled-in sheet is checked against the key (every row id known, every
mark from the row's rubric); then, per measure, the rows both scorers marked
give the raw agreement and Cohen's kappa (with its caveat below 30 rows) and
the full list of disagreements. Only marks both scorers gave identically are
agreed. The report folds agreed marks in as human-adjudicated, beside the
automated figures and never merged into them.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from decimal import Decimal
from typing import Any

from apconform.ap1.scoring.adjudication.sheets import ACCURACY_MARKS, RUBRICS
from apconform.ap1.scoring.aggregate import Accumulator
from apconform.ap1.scoring.rates import rate
from apconform.core.canonical import sha256_bytes
from apconform.core.errors import ApconformError, define_code
from apconform.core.stats import cohen_kappa

__all__ = ["MERGED_SCHEMA", "SHEET_REFUSED", "adjudicated_section", "merge_sheets"]

MERGED_SCHEMA = "apconform-ap1-adjudication/1"
SHEET_REFUSED = define_code(
    "AP1-ADJ-SHEET",
    "A filled-in adjudication sheet cannot be imported",
    "Fill in the CSV written by `apconform ap1 score` without changing its row ids or columns; "
    "use only the marks listed in each row's rubric.",
    exit_status=1,
)
_MAX_SHEET_BYTES = 32 * 1024 * 1024
_TEN = Decimal("1E-10")
_STATEMENT = (
    "Human-adjudicated outcomes are the marks two independent scorers gave identically; they "
    "are reported apart from the automated figures and never counted as automated."
)


def _read(data: bytes, key: dict[str, dict[str, Any]], scorer: int) -> dict[str, dict[str, str]]:
    if len(data) > _MAX_SHEET_BYTES:
        raise ApconformError(
            SHEET_REFUSED, f"sheet {scorer} is larger than {_MAX_SHEET_BYTES} bytes"
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ApconformError(SHEET_REFUSED, f"sheet {scorer} is not UTF-8 text") from None
    try:
        # Read every row now, so a malformed line is refused here and not met mid-merge.
        reader = csv.DictReader(io.StringIO(text))
        rows = list(reader)
    except csv.Error as error:
        raise ApconformError(
            SHEET_REFUSED, f"sheet {scorer} is not readable CSV: {error}"
        ) from None
    missing = [
        c
        for c in ("rowId", "outcome", "accuracy", "selectedValue", "notes")
        if c not in (reader.fieldnames or [])
    ]
    if missing:
        raise ApconformError(
            SHEET_REFUSED, f"sheet {scorer} lacks the column(s) {', '.join(missing)}"
        )
    marks: dict[str, dict[str, str]] = {}
    for line, row in enumerate(rows, start=2):
        row_id = (row.get("rowId") or "").strip()
        if row_id not in key:
            raise ApconformError(
                SHEET_REFUSED, f"sheet {scorer}, line {line}: unknown row id {row_id!r}"
            )
        if row_id in marks:
            raise ApconformError(
                SHEET_REFUSED, f"sheet {scorer}, line {line}: row {row_id} appears twice"
            )
        dimension = key[row_id]["dimension"]
        outcome = (row.get("outcome") or "").strip().upper()
        accuracy = (row.get("accuracy") or "").strip().upper()
        if outcome and outcome not in RUBRICS[dimension]:
            raise ApconformError(
                SHEET_REFUSED,
                f"sheet {scorer}, line {line}: {outcome!r} is not a {dimension} mark; use one of "
                + ", ".join(RUBRICS[dimension]),
            )
        if accuracy and (dimension != "D1" or accuracy not in ACCURACY_MARKS):
            raise ApconformError(
                SHEET_REFUSED,
                f"sheet {scorer}, line {line}: accuracy {accuracy!r} is not allowed here (D1 rows "
                "only: " + ", ".join(ACCURACY_MARKS) + ")",
            )
        marks[row_id] = {
            "outcome": outcome,
            "accuracy": accuracy,
            "selectedValue": (row.get("selectedValue") or "").strip(),
            "notes": (row.get("notes") or "").strip(),
        }
    return marks


def _agreement(measure: str, pairs: list[tuple[str, str, str, str]]) -> dict[str, Any]:
    if not pairs:
        return {
            "measure": measure,
            "n": "0",
            "agreed": "0",
            "rawAgreement": None,
            "kappa": None,
            "caveat": "no row was marked by both scorers",
            "disagreements": [],
        }
    kappa = cohen_kappa([(a, b) for _, _, a, b in pairs])
    return {
        "measure": measure,
        "n": str(kappa.n),
        "agreed": str(kappa.agreed),
        "rawAgreement": format(kappa.raw_agreement.quantize(_TEN), "f"),
        "kappa": None if kappa.kappa is None else format(kappa.kappa.quantize(_TEN), "f"),
        "caveat": kappa.caveat,
        "disagreements": [
            {"rowId": r, "cellKey": c, "scorer1": a, "scorer2": b} for r, c, a, b in pairs if a != b
        ],
    }


def merge_sheets(
    key: dict[str, Any], first: bytes, second: bytes, names: tuple[str, str]
) -> dict[str, Any]:
    """The merged adjudication document of two filled-in sheets."""
    rows = {r["rowId"]: r for r in key["rows"]}
    one, two = _read(first, rows, 1), _read(second, rows, 2)
    merged_rows = []
    pairs: dict[str, list[tuple[str, str, str, str]]] = {}
    for row_id, row in rows.items():
        a = one.get(row_id, {"outcome": "", "accuracy": "", "selectedValue": "", "notes": ""})
        b = two.get(row_id, {"outcome": "", "accuracy": "", "selectedValue": "", "notes": ""})
        dimension = row["dimension"]
        for field, measure in (("outcome", f"{dimension} outcome"), ("accuracy", "D1 accuracy")):
            if a[field] and b[field]:
                pairs.setdefault(measure, []).append((row_id, row["cellKey"], a[field], b[field]))
        merged_rows.append(
            {
                "rowId": row_id,
                "cellKey": row["cellKey"],
                "dimension": dimension,
                "itemId": row["itemId"],
                "scorer1": a,
                "scorer2": b,
                "agreedOutcome": a["outcome"]
                if a["outcome"] and a["outcome"] == b["outcome"]
                else None,
                "agreedAccuracy": a["accuracy"]
                if a["accuracy"] and a["accuracy"] == b["accuracy"]
                else None,
            }
        )
    return {
        "schemaVersion": MERGED_SCHEMA,
        "sealHash": key["sealHash"],
        "scorers": [
            {"scorer": "1", "name": names[0], "sheetSha256": sha256_bytes(first)},
            {"scorer": "2", "name": names[1], "sheetSha256": sha256_bytes(second)},
        ],
        "agreement": [_agreement(m, p) for m, p in sorted(pairs.items())],
        "rows": merged_rows,
    }


def adjudicated_section(acc: Accumulator, merged: dict[str, Any] | None) -> dict[str, Any]:
    """What went to people, and, once imported, what they agreed (never mixed with automated)."""
    routed = Counter(r["dimension"] for r in acc.routed)
    out: dict[str, Any] = {
        "routed": str(len(acc.routed)),
        "routedByDimension": [{"outcome": k, "count": str(v)} for k, v in sorted(routed.items())],
        "imported": merged is not None,
        "statement": _STATEMENT,
    }
    if merged is None:
        return out
    current = {(r["cellKey"], r["dimension"]) for r in acc.routed}
    agreed: dict[str, Counter[str]] = {}
    accuracy: Counter[str] = Counter()
    unresolved = stale = 0
    for row in merged["rows"]:
        if (row["cellKey"], row["dimension"]) not in current:
            stale += 1
            continue
        if row["agreedOutcome"] is None:
            unresolved += 1
        else:
            agreed.setdefault(row["dimension"], Counter())[row["agreedOutcome"]] += 1
        if row["agreedAccuracy"] is not None:
            accuracy[row["agreedAccuracy"]] += 1
    correct, incorrect = accuracy["CORRECT"], accuracy["INCORRECT"]
    by_dimension = [
        {
            "dimension": d,
            "n": str(sum(c.values())),
            "summary": ", ".join(f"{k} {v}" for k, v in sorted(c.items())),
        }
        for d, c in sorted(agreed.items())
        if d != "D1"
    ]
    out.update(
        scorers=[{"scorer": s["scorer"], "name": s["name"]} for s in merged["scorers"]],
        agreement=merged["agreement"],
        answerOutcomes=[
            {"outcome": k, "count": str(v)} for k, v in sorted(agreed.get("D1", Counter()).items())
        ],
        accuracy=rate(correct, correct + incorrect, failures=False),
        noFigure=str(accuracy["NO-FIGURE"]),
        byDimension=by_dimension,
        unresolved=str(unresolved),
        stale=str(stale),
    )
    return out
