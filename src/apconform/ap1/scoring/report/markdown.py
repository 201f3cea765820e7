"""The Markdown rendering of a score report (pictures are left to the HTML rendering)."""

from __future__ import annotations

from apconform.ap1.scoring.report.layout import layout
from apconform.ap1.scoring.report.outline import Cell, more_rows_text
from apconform.ap1.scoring.report.score_report import Ap1ScoreReport
from apconform.core.escaping import markdown_cell, markdown_fence, markdown_text

__all__ = ["render_markdown"]


def _cell(value: Cell) -> str:
    return markdown_cell(value)


def render_markdown(doc: Ap1ScoreReport) -> str:
    """The report as Markdown."""
    lines: list[str] = []
    for number, section in enumerate(layout(doc)):
        lines.append(("# " if number == 0 else "## ") + markdown_text(section.title))
        lines.append("")
        for block in section.blocks:
            if block.kind in ("p", "formula"):
                lines += [markdown_text(block.text), ""]
            elif block.kind == "table":
                shown = block.rows if block.limit is None else block.rows[: block.limit]
                if not shown:
                    lines += ["(none)", ""]
                else:
                    lines.append("| " + " | ".join(_cell(h) for h in block.headers) + " |")
                    lines.append("|" + "---|" * len(block.headers))
                    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in shown]
                    lines.append("")
                if len(block.rows) > len(shown):
                    lines += [more_rows_text(len(block.rows) - len(shown)), ""]
            elif block.kind == "code":
                lines += [*markdown_fence(block.text, "json"), ""]
    return "\n".join(lines).rstrip("\n") + "\n"
