"""The building blocks of the report layout: sections of paragraphs, tables, charts and code."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict, overload

from apconform.ap1.scoring.rates import ProportionFigure
from apconform.ap1.scoring.report.score_report import OutcomeCount
from apconform.core.spooled import RowStream

__all__ = [
    "LIST_LIMIT",
    "Block",
    "Cell",
    "CutRows",
    "Section",
    "StreamedRows",
    "counts_text",
    "more_rows_text",
    "optional",
    "rate_text",
]

LIST_LIMIT = 100

Cell = str | bool
"""A table cell: text, or a yes/no the rendering spells in its own way."""


class _TableRows(Sequence[list[Cell]]):
    """Rows of a table that are not a list: one row by position, or a slice as a list."""

    @overload
    def __getitem__(self, index: int) -> list[Cell]: ...

    @overload
    def __getitem__(self, index: slice) -> list[list[Cell]]: ...

    def __getitem__(self, index: int | slice) -> list[Cell] | list[list[Cell]]:
        return self._slice(index) if isinstance(index, slice) else self._row(index)

    def _slice(self, index: slice) -> list[list[Cell]]:
        raise NotImplementedError

    def _row(self, index: int) -> list[Cell]:
        raise NotImplementedError


class CutRows(_TableRows):
    """A table's first rows and how many it has in all (the rest stay in score-report.json)."""

    def __init__(self, head: list[list[Cell]], total: int) -> None:
        self._head, self._total = head, total

    def __len__(self) -> int:
        return self._total

    def _slice(self, index: slice) -> list[list[Cell]]:
        start, stop, _ = index.indices(self._total)
        if stop > len(self._head) and start < stop:
            raise IndexError("only the first rows of this table are at hand")
        return self._head[index]

    def _row(self, index: int) -> list[Cell]:
        if index >= len(self._head) or index < 0:
            raise IndexError("only the first rows of this table are at hand")
        return self._head[index]


class StreamedRows(_TableRows):
    """A table's rows read from a listing spooled to disk when they are needed: all of them in
    order, or some by position. A table of every non-outcome cell of a million-execution run
    (67,500 rows) held as lists took some 15 MB while the report was rendered."""

    def __init__(self, source: RowStream, convert: Callable[[Any], list[Cell]]) -> None:
        self._source, self._convert = source, convert

    def __len__(self) -> int:
        return len(self._source)

    def __iter__(self) -> Iterator[list[Cell]]:
        return map(self._convert, self._source)

    def _slice(self, index: slice) -> list[list[Cell]]:
        return list(map(self._convert, self._source.at(range(*index.indices(len(self))))))

    def _row(self, index: int) -> list[Cell]:
        position = index + len(self) if index < 0 else index
        if not 0 <= position < len(self):
            raise IndexError("table row out of range")
        return self._convert(next(iter(self._source.at([position]))))


@dataclass(frozen=True)
class Chart:
    """A stacked bar chart: which of the report's charts, and each bar's label and its counts
    by segment, in order."""

    kind: Literal["operands", "answers", "invocation"]
    bars: list[tuple[str, dict[str, int]]]


class Formula(TypedDict):
    """A formula written out: its name, its expression, its value (None when undefined), each
    symbol with what it stands for, and a note."""

    name: str
    expression: str
    value: str | None
    where: list[tuple[str, str]]
    note: str


@dataclass
class Block:
    """A paragraph (text), a table (headers, rows), a chart (kind, data), a code block, or a
    formula (``formula``: name, expression, value, where, note; ``text`` its plain wording).

    A table keeps every row; ``limit`` is how many a rendering lists before it says how many it
    leaves out. Rows equal in the ``group`` columns may be collapsed by a rendering into one
    line naming how many ``noun`` share the value, each row then named by its ``key`` columns.
    """

    kind: str
    text: str = ""
    headers: tuple[str, ...] = ()
    rows: Sequence[list[Cell]] = field(default_factory=list)
    chart: Chart | None = None
    limit: int | None = None
    group: tuple[int, ...] = ()
    key: tuple[int, ...] = (0,)
    noun: str = "rows"
    formula: Formula | None = None


@dataclass
class Section:
    """A titled part of the report."""

    title: str
    blocks: list[Block] = field(default_factory=list)

    def p(self, text: str) -> None:
        self.blocks.append(Block("p", text=text))

    def table(
        self,
        headers: tuple[str, ...],
        rows: Sequence[list[Cell]],
        *,
        limit: int | None = None,
        group: tuple[int, ...] = (),
        key: tuple[int, ...] = (0,),
        noun: str = "rows",
    ) -> None:
        self.blocks.append(
            Block("table", headers=headers, rows=rows, limit=limit, group=group, key=key, noun=noun)
        )

    def formula(self, text: str, formula: Formula) -> None:
        self.blocks.append(Block("formula", text=text, formula=formula))

    def chart(self, chart: Chart) -> None:
        self.blocks.append(Block("chart", chart=chart))

    def code(self, text: str) -> None:
        self.blocks.append(Block("code", text=text))


def more_rows_text(count: int) -> str:
    """What a rendering says of the rows a table's limit leaves out."""
    return f"({count} more row(s) in score-report.json.)"


def counts_text(counts: list[OutcomeCount]) -> str:
    return ", ".join(f"{c['outcome']} {c['count']}" for c in counts) or "none"


def rate_text(rate: ProportionFigure | None) -> str:
    return "n = 0 (no rate)" if rate is None else rate["text"]


def optional(value: object) -> str:
    return "" if value is None else str(value)
