"""The building blocks of the report layout: sections of paragraphs, tables, charts and code."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["LIST_LIMIT", "Block", "Section", "counts_text", "optional", "rate_text"]

LIST_LIMIT = 100


@dataclass
class Block:
    """A paragraph (text), a table (headers, rows), a chart (kind, data) or a code block."""

    kind: str
    text: str = ""
    headers: tuple[str, ...] = ()
    rows: list[list[str]] = field(default_factory=list)
    chart: dict[str, Any] = field(default_factory=dict)


@dataclass
class Section:
    """A titled part of the report."""

    title: str
    blocks: list[Block] = field(default_factory=list)

    def p(self, text: str) -> None:
        self.blocks.append(Block("p", text=text))

    def table(
        self, headers: tuple[str, ...], rows: list[list[str]], *, limit: int | None = None
    ) -> None:
        shown = rows if limit is None else rows[:limit]
        self.blocks.append(Block("table", headers=headers, rows=shown))
        if limit is not None and len(rows) > limit:
            self.p(f"({len(rows) - limit} more row(s) in score-report.json.)")

    def chart(self, kind: str, data: dict[str, Any]) -> None:
        self.blocks.append(Block("chart", chart={"kind": kind, **data}))

    def code(self, text: str) -> None:
        self.blocks.append(Block("code", text=text))


def counts_text(counts: list[dict[str, str]]) -> str:
    return ", ".join(f"{c['outcome']} {c['count']}" for c in counts) or "none"


def rate_text(rate: dict[str, Any] | None) -> str:
    return "n = 0 (no rate)" if rate is None else str(rate["text"])


def optional(value: Any) -> str:
    return "" if value is None else str(value)
