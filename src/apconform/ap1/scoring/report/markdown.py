"""The Markdown rendering of a score report (pictures are left to the HTML rendering)."""

from __future__ import annotations

from typing import Any

from apconform.ap1.scoring.report.layout import layout

__all__ = ["render_markdown"]


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def render_markdown(doc: dict[str, Any]) -> str:
    """The report as Markdown."""
    lines: list[str] = []
    for number, section in enumerate(layout(doc)):
        lines.append(("# " if number == 0 else "## ") + section.title)
        lines.append("")
        for block in section.blocks:
            if block.kind == "p":
                lines += [block.text, ""]
            elif block.kind == "table":
                if not block.rows:
                    lines += ["(none)", ""]
                    continue
                lines.append("| " + " | ".join(_cell(h) for h in block.headers) + " |")
                lines.append("|" + "---|" * len(block.headers))
                lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in block.rows]
                lines.append("")
            elif block.kind == "code":
                lines += ["```json", block.text, "```", ""]
    return "\n".join(lines).rstrip("\n") + "\n"
