"""The HTML rendering of a score report: one self-contained file, readable offline.

Styles are inline, charts are inline SVG pictures, and nothing is fetched: no
script, no font, no image, no link outside the page. Beside the Markdown it
shows yes/no for booleans, formulas as formulas, long numbers that wrap inside
their cells, and the rows of a long table that share one value as a single line
("312 cells: UNMEASURED — reason") that opens to the cells it stands for.
"""

from __future__ import annotations

import html
import re
from typing import Any

from apconform.ap1.scoring.report.charts import chart_svg, chart_title
from apconform.ap1.scoring.report.layout import layout
from apconform.ap1.scoring.report.outline import Block, Cell, more_rows_text

__all__ = ["COLLAPSE_AT", "render_html"]

COLLAPSE_AT = 5
"""Rows sharing one value in a table's group columns are collapsed from this many on."""

_STYLE = (
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:"
    "1200px;padding:0 1em;color:#111}h1{font-size:24px}h2{font-size:18px;margin-top:1.8em;"
    "border-bottom:1px solid #ccc}table{border-collapse:collapse;margin:.6em 0;font-size:12.5px;"
    "max-width:100%}th,td{border:1px solid #ddd;padding:3px 6px;text-align:left;"
    "vertical-align:top;overflow-wrap:anywhere}th{background:#f3f3f3}"
    "pre{background:#f7f7f7;padding:.6em;font-size:12px;white-space:pre-wrap;"
    "overflow-wrap:anywhere}figure{margin:.8em 0}figcaption{font-weight:600;margin:.3em 0}"
    "figure svg{max-width:100%;height:auto}nav a{margin-right:.8em;display:inline-block}"
    ".statement{background:#fff8e1;padding:.6em;border-left:4px solid #E69F00}"
    "tr.group td{background:#f7f9fc}.count{font-weight:600}details{margin-top:.2em}"
    "summary{cursor:pointer;color:#0072B2}.formula{font-family:'Cambria Math','STIX Two Math',"
    "'Latin Modern Math',serif;font-size:15px}.formula b{font-family:ui-monospace,monospace;"
    "font-size:13px}"
)
_SYMBOL = re.compile(r"\b([A-Za-z])_([A-Za-z0-9]+)\b")


def _anchor(number: int) -> str:
    return f"s{number}"


def _cell(value: Cell) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return html.escape(value)


def _math(text: str) -> str:
    """Plain formula text as HTML: X_sub as an italic variable with a subscript, a true minus."""
    escaped = html.escape(text).replace(" - ", " \u2212 ")
    return _SYMBOL.sub(r"<var>\1</var><sub>\2</sub>", escaped)


def _formula(f: dict[str, Any]) -> str:
    value = f["value"]
    result = f"<b>{html.escape(value)}</b>" if value is not None else "UNDEFINED"
    where = " and ".join(f"{_math(symbol)} = {html.escape(v)}" for symbol, v in f["where"])
    return (
        f'<p class="formula">{html.escape(f["name"])} = {_math(f["expression"])} = {result}, '
        f"where {where} ({html.escape(f['note'])})</p>"
    )


def _groups(block: Block) -> tuple[list[tuple[tuple[Cell, ...], list[list[Cell]]]], list[int]]:
    """The collapsed groups (value, rows) in order of first appearance, and the other rows."""
    if not block.group:
        return [], list(range(len(block.rows)))
    members: dict[tuple[Cell, ...], list[int]] = {}
    for index, row in enumerate(block.rows):
        members.setdefault(tuple(row[i] for i in block.group), []).append(index)
    collapsed = {value: rows for value, rows in members.items() if len(rows) >= COLLAPSE_AT}
    groups = [(value, [block.rows[i] for i in rows]) for value, rows in collapsed.items()]
    hidden = {i for rows in collapsed.values() for i in rows}
    return groups, [i for i in range(len(block.rows)) if i not in hidden]


def _table(block: Block) -> str:
    if not block.rows:
        return "<p>(none)</p>"
    head = "".join(f"<th>{html.escape(h)}</th>" for h in block.headers)
    groups, singles = _groups(block)
    body = []
    for value, rows in groups:
        shown = " \u2014 ".join(_cell(v) for v in value if v != "")
        names = ", ".join("/".join(str(row[i]) for i in block.key if row[i] != "") for row in rows)
        body.append(
            f'<tr class="group"><td colspan="{len(block.headers)}"><span class="count">'
            f"{len(rows)} {html.escape(block.noun)}</span>: {shown}<details><summary>which "
            f"{html.escape(block.noun)}</summary>{html.escape(names)}</details></td></tr>"
        )
    limit = len(singles) if block.limit is None else block.limit
    for index in singles[:limit]:
        body.append("<tr>" + "".join(f"<td>{_cell(c)}</td>" for c in block.rows[index]) + "</tr>")
    thead = f"<thead><tr>{head}</tr></thead>" if any(block.headers) else ""
    out = f"<table>{thead}<tbody>{''.join(body)}</tbody></table>"
    if len(singles) > limit:
        out += f"<p>{html.escape(more_rows_text(len(singles) - limit))}</p>"
    return out


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
            elif block.kind == "formula":
                parts.append(_formula(block.formula))
            elif block.kind == "table":
                parts.append(_table(block))
            elif block.kind == "chart":
                parts.append(
                    f"<figure><figcaption>{e(chart_title(block.chart))}</figcaption>"
                    f"{chart_svg(block.chart)}</figure>"
                )
            elif block.kind == "code":
                parts.append(f"<pre>{e(block.text)}</pre>")
        parts.append("</section>")
    parts.append("</body></html>\n")
    return "".join(parts)
