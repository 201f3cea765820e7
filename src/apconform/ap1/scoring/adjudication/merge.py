"""Merging two scorers' marks: completeness, agreement, settled disagreements, agreed outcomes.

The one merge behind every way in: two filled-in sheets, the web store, or a
mix of both give :class:`ScorerMarks`, and :func:`merge_marks` makes the
merged document from them, so equal marks give the same document whichever
way they came. It refuses to merge while a scorer left a row unmarked or
partly marked, unless the caller accepts that (and the document then says
so). Agreement and Cohen's kappa, with its interval, are computed from the
scorers' own marks over the rows both marked; a disagreement settled in
reconciliation gives the row its agreed mark and names who settled it, and
never changes the agreement figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from apconform.ap1.scoring.adjudication.agreement import AgreementResult
from apconform.ap1.scoring.adjudication.filled import read_settlements, read_sheet
from apconform.ap1.scoring.adjudication.marks import (
    EMPTY_MARK,
    Completeness,
    completeness,
    marks_sha256,
)
from apconform.ap1.scoring.adjudication.merged_document import (
    AdjudicatedRow,
    Ap1Adjudication,
    RowMarks,
)
from apconform.core.errors import ApconformError, define_code
from apconform.core.stats import KAPPA_INTERVAL_METHOD, cohen_kappa, kappa_interval

__all__ = [
    "MERGED_SCHEMA",
    "SETTLEMENT_REFUSED",
    "UNMARKED",
    "ScorerMarks",
    "check_settlement",
    "disputed_fields",
    "merge_marks",
    "merge_sheets",
]

MERGED_SCHEMA = "apconform-ap1-adjudication/2"
UNMARKED = define_code(
    "AP1-ADJ-UNMARKED",
    "A scorer has left rows unmarked or partly marked",
    "Finish the marks (every row's outcome, and the accuracy of every D1 row), or merge them as "
    "they are with --accept-unmarked (acceptUnmarked in a request); the merged document then "
    "says it is incomplete.",
    exit_status=1,
    http_status=409,
)
SETTLEMENT_REFUSED = define_code(
    "AP1-ADJ-SETTLE",
    "A settled mark does not settle a disagreement",
    "Settle only rows both scorers marked differently, giving exactly the marks in dispute "
    "(from the row's rubric) and the name of who settled them.",
    exit_status=1,
    http_status=409,
)
_TEN = Decimal("1E-10")


@dataclass(frozen=True)
class ScorerMarks:
    """One scorer's marks, by row id, and the scorer's name."""

    name: str
    marks: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def mark(self, row_id: str) -> Mapping[str, str]:
        return self.marks.get(row_id, EMPTY_MARK)


def _quantised(value: Decimal | None) -> str | None:
    return None if value is None else _decimal_text(value)


def _decimal_text(value: Decimal) -> str:
    return format(value.quantize(_TEN), "f")


def _agreement(
    measure: str, pairs: list[tuple[str, str, str, str]], settled: Mapping[str, str]
) -> AgreementResult:
    if not pairs:
        return {
            "measure": measure,
            "n": "0",
            "agreed": "0",
            "rawAgreement": None,
            "kappa": None,
            "kappaInterval": None,
            "caveat": "no row was marked by both scorers",
            "disagreements": [],
        }
    marks = [(a, b) for _, _, a, b in pairs]
    kappa = cohen_kappa(marks)
    interval = kappa_interval(marks, kappa)
    return {
        "measure": measure,
        "n": str(kappa.n),
        "agreed": str(kappa.agreed),
        "rawAgreement": _quantised(kappa.raw_agreement),
        "kappa": _quantised(kappa.kappa),
        "kappaInterval": None
        if interval is None
        else {
            "lower": _decimal_text(interval.lower),
            "upper": _decimal_text(interval.upper),
            "confidence": "0.95",
            "method": KAPPA_INTERVAL_METHOD,
        },
        "caveat": kappa.caveat,
        "disagreements": [
            {"rowId": r, "cellKey": c, "scorer1": a, "scorer2": b, "settled": settled.get(r)}
            for r, c, a, b in pairs
            if a != b
        ],
    }


def _row_marks(mark: Mapping[str, str]) -> RowMarks:
    """A scorer's marks of a row, member by member in the order of ``MARK_FIELDS``."""
    return {
        "outcome": mark["outcome"],
        "accuracy": mark["accuracy"],
        "selectedValue": mark["selectedValue"],
        "notes": mark["notes"],
    }


def disputed_fields(dimension: str, a: Mapping[str, str], b: Mapping[str, str]) -> tuple[str, ...]:
    """The mark fields both scorers gave and gave differently (outcome; accuracy on D1 rows)."""
    fields = ("outcome", "accuracy") if dimension == "D1" else ("outcome",)
    return tuple(f for f in fields if a[f] and b[f] and a[f] != b[f])


def check_settlement(
    row: Mapping[str, object], disputed: tuple[str, ...], s: Mapping[str, str]
) -> None:
    """Refuse (AP1-ADJ-SETTLE) a settlement that does not give exactly the marks in dispute."""
    row_id = row["rowId"]
    if not disputed:
        raise ApconformError(
            SETTLEMENT_REFUSED,
            f"row {row_id}: the scorers did not mark it differently, so there is nothing to settle",
            path=f"$.rows.{row_id}",
        )
    for name in ("outcome", "accuracy"):
        if name in disputed and not s[name]:
            raise ApconformError(
                SETTLEMENT_REFUSED,
                f"row {row_id}: the {name} is in dispute; the settlement gives none",
                path=f"$.rows.{row_id}.{name}",
            )
        if name not in disputed and s[name]:
            raise ApconformError(
                SETTLEMENT_REFUSED,
                f"row {row_id}: the {name} is not in dispute; only marks in dispute are settled",
                path=f"$.rows.{row_id}.{name}",
            )
    if not s["settledBy"].strip():
        raise ApconformError(
            SETTLEMENT_REFUSED,
            f"row {row_id}: the settlement does not name who settled it",
            path=f"$.rows.{row_id}.settledBy",
        )


def _incomplete_refusal(states: list[tuple[str, Completeness]]) -> ApconformError:
    lines = [c.sentence(who) for who, c in states if not c.complete]
    return ApconformError(
        UNMARKED,
        "; ".join(lines),
        context={
            "unmarked": {who: c.to_json() for who, c in states},
        },
    )


def merge_marks(
    key: Mapping[str, Any],
    first: ScorerMarks,
    second: ScorerMarks,
    settlements: Mapping[str, Mapping[str, str]] | None = None,
    *,
    completed: str | None = None,
    accept_unmarked: bool = False,
) -> Ap1Adjudication:
    """The merged adjudication document (schema ``ap1-adjudication``) of two scorers' marks.

    ``key`` is the run's key.json; every row id in the marks must be one of
    its rows (the readers check that). ``completed`` is when the adjudication
    was merged (None leaves it unstated). Raises AP1-ADJ-UNMARKED while a row
    is not fully marked and ``accept_unmarked`` is false, and AP1-ADJ-SETTLE
    for a settlement of a row not in dispute.
    """
    rows = list(key["rows"])
    order = [(r["rowId"], r["dimension"]) for r in rows]
    states = [
        (f"scorer 1 ({first.name})", completeness(order, first.marks)),
        (f"scorer 2 ({second.name})", completeness(order, second.marks)),
    ]
    incomplete = any(not c.complete for _, c in states)
    if incomplete and not accept_unmarked:
        raise _incomplete_refusal(states)
    settlements = settlements or {}
    merged_rows: list[AdjudicatedRow] = []
    pairs: dict[str, list[tuple[str, str, str, str]]] = {}
    settled_by_measure: dict[str, dict[str, str]] = {}
    settlers: set[str] = set()
    for row in rows:
        row_id, dimension = row["rowId"], row["dimension"]
        a, b = first.mark(row_id), second.mark(row_id)
        disputed = disputed_fields(dimension, a, b)
        settlement = settlements.get(row_id)
        if settlement is not None:
            check_settlement(row, disputed, settlement)
            settlers.add(settlement["settledBy"].strip())
        agreed: dict[str, str | None] = {}
        for name, measure in (("outcome", f"{dimension} outcome"), ("accuracy", "D1 accuracy")):
            if a[name] and b[name]:
                pairs.setdefault(measure, []).append((row_id, row["cellKey"], a[name], b[name]))
            if a[name] and a[name] == b[name]:
                agreed[name] = a[name]
            elif settlement is not None and name in disputed:
                agreed[name] = settlement[name]
                settled_by_measure.setdefault(measure, {})[row_id] = settlement[name]
            else:
                agreed[name] = None
        merged_rows.append(
            {
                "rowId": row_id,
                "cellKey": row["cellKey"],
                "dimension": dimension,
                "itemId": row["itemId"],
                "scorer1": _row_marks(a),
                "scorer2": _row_marks(b),
                "agreedOutcome": agreed["outcome"],
                "agreedAccuracy": agreed["accuracy"],
                "settlement": None
                if settlement is None
                else {
                    "outcome": settlement["outcome"],
                    "accuracy": settlement["accuracy"],
                    "settledBy": settlement["settledBy"].strip(),
                    "reason": settlement["reason"].strip(),
                },
            }
        )
    return {
        "schemaVersion": MERGED_SCHEMA,
        "sealHash": key["sealHash"],
        "completed": completed,
        "scorers": [
            {
                "scorer": str(n),
                "name": s.name,
                "marksSha256": marks_sha256(s.marks),
                **c.to_json(),
            }
            for n, (s, (_, c)) in enumerate(zip((first, second), states, strict=True), start=1)
        ],
        "acceptedIncomplete": incomplete,
        "settledBy": sorted(settlers),
        "agreement": [
            _agreement(m, p, settled_by_measure.get(m, {})) for m, p in sorted(pairs.items())
        ],
        "rows": merged_rows,
    }


def merge_sheets(
    key: dict[str, Any],
    first: bytes,
    second: bytes,
    names: tuple[str, str],
    *,
    settled: bytes | None = None,
    completed: str | None = None,
    accept_unmarked: bool = False,
) -> dict[str, Any]:
    """The merged adjudication document of two filled-in sheets (and a settlement sheet), as a
    plain dict (for the operation that answers with it)."""
    rows = {r["rowId"]: r for r in key["rows"]}
    merged = merge_marks(
        key,
        ScorerMarks(names[0], read_sheet(first, rows, "sheet 1")),
        ScorerMarks(names[1], read_sheet(second, rows, "sheet 2")),
        read_settlements(settled, rows, "the settlement sheet") if settled is not None else None,
        completed=completed,
        accept_unmarked=accept_unmarked,
    )
    return dict(merged)
