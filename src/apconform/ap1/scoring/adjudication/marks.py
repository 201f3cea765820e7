"""One scorer's marks of one row: the allowed values, how complete a row is, and their hash.

A mark is the four texts a sheet row carries (``outcome``, ``accuracy``,
``selectedValue``, ``notes``); the web store and the sheets hold the same
marks, so both are checked here, by the same rules, and hashed the same way.
A row is *marked* when it has its outcome and, for a D1 row, its accuracy;
*unmarked* when it has neither; anything between is *partly marked*.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TypedDict

from apconform.ap1.scoring.adjudication.sheets import ACCURACY_MARKS, RUBRICS
from apconform.core.canonical import sha256_hex
from apconform.core.errors import ApconformError, define_code

__all__ = [
    "EMPTY_MARK",
    "ITEM_UNKNOWN",
    "MARK_FIELDS",
    "MARK_REFUSED",
    "SETTLEMENT_FIELDS",
    "Completeness",
    "CompletenessJson",
    "checked_mark",
    "checked_settlement",
    "completeness",
    "mark_state",
    "marks_sha256",
]

MARK_FIELDS = ("outcome", "accuracy", "selectedValue", "notes")
EMPTY_MARK: Mapping[str, str] = {field: "" for field in MARK_FIELDS}
MARK_REFUSED = define_code(
    "AP1-ADJ-MARK",
    "A mark is not one the row allows",
    "Give the outcome from the row's rubric, the accuracy (CORRECT, INCORRECT, NO-FIGURE) on D1 "
    "rows only, the selected value on D6 rows only, and short plain text.",
    exit_status=1,
    http_status=422,
)
ITEM_UNKNOWN = define_code(
    "AP1-ADJ-ITEM",
    "No adjudication item of this run has this id",
    "Use a row id of this run's sheets (report/adjudication/); if the run was scored again "
    "since, export the marks and start from the new sheets.",
    exit_status=1,
    http_status=404,
)
SETTLEMENT_FIELDS = ("outcome", "accuracy", "settledBy", "reason")
_LIMITS = {
    "outcome": 40,
    "accuracy": 20,
    "selectedValue": 200,
    "notes": 4000,
    "settledBy": 200,
    "reason": 4000,
}
_MULTILINE = ("notes", "reason")


def _text(row_id: str, field: str, value: object) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ApconformError(
            MARK_REFUSED,
            f"row {row_id}: {field} must be text, not {type(value).__name__}",
            path=f"$.{field}",
        )
    text = value.strip()
    if len(text) > _LIMITS[field]:
        raise ApconformError(
            MARK_REFUSED,
            f"row {row_id}: {field} is {len(text)} characters long; at most {_LIMITS[field]}",
            path=f"$.{field}",
        )
    allowed = "\n\t" if field in _MULTILINE else ""
    bad = next((c for c in text if (c < " " or c == "\x7f") and c not in allowed), None)
    if bad is not None:
        raise ApconformError(
            MARK_REFUSED,
            f"row {row_id}: {field} holds the control character U+{ord(bad):04X}",
            path=f"$.{field}",
        )
    return text


def _no_extra(row_id: str, raw: Mapping[str, object], fields: tuple[str, ...]) -> None:
    extra = sorted(str(k) for k in raw if k not in fields)
    if extra:
        raise ApconformError(
            MARK_REFUSED,
            f"row {row_id}: unknown member(s) {', '.join(extra)}; expected " + ", ".join(fields),
            path=f"$.{extra[0]}",
        )


def checked_mark(row_id: str, dimension: str, raw: Mapping[str, object]) -> dict[str, str]:
    """The mark ``raw`` normalised (trimmed, marks upper-cased), or AP1-ADJ-MARK naming the field.

    Members other than the four mark fields are refused too, so a misspelt
    field is never dropped in silence.
    """
    _no_extra(row_id, raw, MARK_FIELDS)
    mark = {field: _text(row_id, field, raw.get(field)) for field in MARK_FIELDS}
    mark["outcome"] = mark["outcome"].upper()
    mark["accuracy"] = mark["accuracy"].upper()
    rubric = RUBRICS[dimension]
    if mark["outcome"] and mark["outcome"] not in rubric:
        raise ApconformError(
            MARK_REFUSED,
            f"row {row_id}: {mark['outcome']!r} is not a {dimension} mark; use one of "
            + ", ".join(rubric),
            path="$.outcome",
        )
    if mark["accuracy"] and (dimension != "D1" or mark["accuracy"] not in ACCURACY_MARKS):
        raise ApconformError(
            MARK_REFUSED,
            f"row {row_id}: accuracy {mark['accuracy']!r} is not allowed here (D1 rows only: "
            + ", ".join(ACCURACY_MARKS)
            + ")",
            path="$.accuracy",
        )
    if mark["selectedValue"] and dimension != "D6":
        raise ApconformError(
            MARK_REFUSED,
            f"row {row_id}: a selected value is marked on D6 rows only, not on {dimension} rows",
            path="$.selectedValue",
        )
    return mark


def checked_settlement(row_id: str, dimension: str, raw: Mapping[str, object]) -> dict[str, str]:
    """A settled mark (outcome and accuracy from the row's rubric, who settled it, why).

    It must give a mark and name who settled it; whether it settles a real
    disagreement is the merge's question (it needs both scorers' marks).
    """
    _no_extra(row_id, raw, SETTLEMENT_FIELDS)
    mark = checked_mark(
        row_id, dimension, {"outcome": raw.get("outcome"), "accuracy": raw.get("accuracy")}
    )
    settled = {
        "outcome": mark["outcome"],
        "accuracy": mark["accuracy"],
        "settledBy": _text(row_id, "settledBy", raw.get("settledBy")),
        "reason": _text(row_id, "reason", raw.get("reason")),
    }
    if not (settled["outcome"] or settled["accuracy"]):
        raise ApconformError(
            MARK_REFUSED, f"row {row_id}: a settlement gives a mark", path="$.outcome"
        )
    if not settled["settledBy"]:
        raise ApconformError(
            MARK_REFUSED, f"row {row_id}: a settlement names who settled it", path="$.settledBy"
        )
    return settled


def mark_state(dimension: str, mark: Mapping[str, str]) -> str:
    """``marked``, ``partly`` or ``unmarked`` (see the module's docstring)."""
    has_outcome, has_accuracy = bool(mark["outcome"]), bool(mark["accuracy"])
    if has_outcome and (has_accuracy or dimension != "D1"):
        return "marked"
    if has_outcome or has_accuracy or mark["selectedValue"]:
        return "partly"
    return "unmarked"


class CompletenessJson(TypedDict):
    """How many of a scorer's rows are marked, partly marked and unmarked (decimal strings)."""

    rows: str
    marked: str
    partlyMarked: str
    unmarked: str


@dataclass(frozen=True)
class Completeness:
    """How many of a scorer's rows are marked, partly marked and unmarked."""

    rows: int
    marked: int
    partly: int
    unmarked: int
    first_incomplete: tuple[str, ...]
    """The first few row ids that are not fully marked (in the order given)."""

    @property
    def complete(self) -> bool:
        return self.marked == self.rows

    def sentence(self, who: str) -> str:
        """One line for a person: how many of the rows are not fully marked, and which."""
        if self.complete:
            return f"{who}: all {self.rows} row(s) marked"
        shown = ", ".join(self.first_incomplete)
        more = self.rows - self.marked - len(self.first_incomplete)
        return (
            f"{who}: {self.rows - self.marked} of {self.rows} row(s) not fully marked "
            f"({self.unmarked} unmarked, {self.partly} partly marked): {shown}"
            + (f" and {more} more" if more > 0 else "")
        )

    def to_json(self) -> CompletenessJson:
        return {
            "rows": str(self.rows),
            "marked": str(self.marked),
            "partlyMarked": str(self.partly),
            "unmarked": str(self.unmarked),
        }


def completeness(
    rows: Iterable[tuple[str, str]], marks: Mapping[str, Mapping[str, str]], *, show: int = 5
) -> Completeness:
    """The completeness of ``marks`` over ``rows`` ((row id, dimension) pairs, in order)."""
    counts = {"marked": 0, "partly": 0, "unmarked": 0}
    incomplete: list[str] = []
    total = 0
    for row_id, dimension in rows:
        total += 1
        state = mark_state(dimension, marks.get(row_id, EMPTY_MARK))
        counts[state] += 1
        if state != "marked" and len(incomplete) < show:
            incomplete.append(row_id)
    return Completeness(
        total, counts["marked"], counts["partly"], counts["unmarked"], tuple(incomplete)
    )


def marks_sha256(marks: Mapping[str, Mapping[str, str]]) -> str:
    """The hash of a scorer's marks: RFC 8785 bytes of {row id: mark}, empty marks left out.

    Sheets and the web store give the same hash for the same marks, whatever
    the order of the rows or the bytes of the file.
    """
    return sha256_hex(
        {
            row_id: {field: mark[field] for field in MARK_FIELDS}
            for row_id, mark in marks.items()
            if any(mark[field] for field in MARK_FIELDS)
        }
    )
