"""The HTML rendering of a score report: one self-contained file, readable offline.

Styles are inline, charts are inline SVG pictures, and nothing is fetched: no
script, no font, no image, no link outside the page.
"""

from __future__ import annotations

import html
from typing import Any

from apconform.ap1.scoring.report.charts import chart_svg
from apconform.ap1.scoring.report.layout import layout

__all__ = ["render_html"]

_STYLE = (
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:"
    "1200px;padding:0 1em;color:#111}h1{font-size:24px}h2{font-size:18px;margin-top:1.8em;"
    "border-bottom:1px solid #ccc}table{border-collapse:collapse;margin:.6em 0;font-size:12.5px}"
    "th,td{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}"
    "th{background:#f3f3f3}pre{background:#f7f7f7;padding:.6em;overflow:auto;font-size:12px}"
    "figure{margin:.8em 0}nav a{margin-right:.8em}.statement{background:#fff8e1;padding:.6em;"
    "border-left:4px solid #f9a825}"
)


def _anchor(number: int) -> str:
    return f"s{number}"


def render_html(doc: dict[str, Any]) -> str:
    """The report as one HTML page."""
    e = html.escape
    sections = layout(doc)
    nav = "".join(
        f'<a href="#{_anchor(n)}">{e(s.title)}</a>' for n, s in enumerate(sections) if n > 0
    )
    parts = [
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(sections[0].title)} - {e(doc['run']['model'])}</title>",
        f"<style>{_STYLE}</style></head><body>",
    ]
    for number, section in enumerate(sections):
        tag = "h1" if number == 0 else "h2"
        parts.append(f'<section id="{_anchor(number)}"><{tag}>{e(section.title)}</{tag}>')
        if number == 0:
            parts.append(f"<nav>{nav}</nav>")
        for index, block in enumerate(section.blocks):
            if block.kind == "p":
                klass = ' class="statement"' if number == 0 and index == 0 else ""
                parts.append(f"<p{klass}>{e(block.text)}</p>")
            elif block.kind == "table":
                if not block.rows:
                    parts.append("<p>(none)</p>")
                    continue
                head = "".join(f"<th>{e(h)}</th>" for h in block.headers)
                body = "".join(
                    "<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>"
                    for row in block.rows
                )
                parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
            elif block.kind == "chart":
                parts.append(f"<figure>{chart_svg(block.chart)}</figure>")
            elif block.kind == "code":
                parts.append(f"<pre>{e(block.text)}</pre>")
        parts.append("</section>")
    parts.append("</body></html>\n")
    return "".join(parts)
