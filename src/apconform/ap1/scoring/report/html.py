"""The HTML rendering of a score report: one self-contained file, readable offline.

Styles are inline, charts are inline SVG pictures, and nothing is fetched: no
script, no font, no image, no link outside the page. The profile comes first,
right under the statement that AP-1 gives a profile and not a verdict; numbers
and identifiers are never split across lines, and wide tables scroll inside
their own box, so the page fits a phone. Beside the Markdown it
shows yes/no for booleans, formulas as formulas, long numbers that wrap inside
their cells, and the rows of a long table that share one value as a single line
("312 cells: UNMEASURED — reason") that opens to the cells it stands for.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter

from apconform.ap1.scoring.report.charts import chart_svg, chart_title
from apconform.ap1.scoring.report.layout import layout
from apconform.ap1.scoring.report.outline import Block, Cell, Formula, more_rows_text
from apconform.ap1.scoring.report.score_report import Ap1ScoreReport
from apconform.core.escaping import escape_html

__all__ = ["COLLAPSE_AT", "render_html"]

COLLAPSE_AT = 5
"""Rows sharing one value in a table's group columns are collapsed from this many on."""

_STYLE = (
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:"
    "1200px;padding:0 1em;color:#111}h1{font-size:24px}h2{font-size:18px;margin-top:1.8em;"
    "border-bottom:1px solid #ccc}table{border-collapse:collapse;margin:.6em 0;font-size:12.5px}"
    ".tw{overflow-x:auto;max-width:100%}th,td{border:1px solid #ddd;padding:3px 6px;"
    "text-align:left;vertical-align:top;overflow-wrap:normal;word-break:normal}"
    "th{background:#f3f3f3;white-space:nowrap}.nb{white-space:nowrap}"
    "p .nb.long{display:inline-block;max-width:100%;overflow-x:auto;vertical-align:bottom}"
    "pre{background:#f7f7f7;padding:.6em;font-size:12px;white-space:pre;overflow-x:auto}"
    "figure{margin:.8em 0}figcaption{font-weight:600;margin:.3em 0}"
    "figure svg{max-width:100%;height:auto}nav a{margin-right:.8em;display:inline-block}"
    ".statement{background:#fff8e1;padding:.6em;border-left:4px solid #E69F00}"
    "tr.group td{background:#f7f9fc}.count{font-weight:600}details{margin-top:.2em}"
    "summary{cursor:pointer;color:#0072B2}.formula{font-family:'Cambria Math','STIX Two Math',"
    "'Latin Modern Math',serif;font-size:15px}.formula b{font-family:ui-monospace,monospace;"
    "font-size:13px}@media (max-width:600px){body{margin:1em auto;padding:0 .6em}}"
)
"""Cells wrap at spaces only (never inside a word); a number, an id or a hash is one unbreakable
token (``.nb``), and a table wider than the page scrolls in its own box (``.tw``), so the page
never scrolls sideways, on a phone either."""
_TOKEN = re.compile(r"\S+")
_BREAKABLE = re.compile(r"[0-9\-\u2013\u2212/_.:%()\[\]]")
_LONG = 40


def _unbroken(text: str) -> str:
    """Escaped text with every number- or id-like token kept on one line.

    Browsers may break a line after a hyphen, a slash or a dash inside a token
    ("AP1-/DRV-10", "14.7%\u2013/32.8%"); such tokens are wrapped in ``span.nb``.
    """

    def keep(match: re.Match[str]) -> str:
        token = match.group(0)
        if len(token) < 2 or not _BREAKABLE.search(token):
            return escape_html(token)
        klass = "nb long" if len(token) > _LONG else "nb"
        return f'<span class="{klass}">{escape_html(token)}</span>'

    return _TOKEN.sub(keep, text)


_SYMBOL = re.compile(r"\b([A-Za-z])_([A-Za-z0-9]+)\b")


def _anchor(number: int) -> str:
    return f"s{number}"


def _cell(value: Cell) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return _unbroken(value)


def _math(text: str) -> str:
    """Plain formula text as HTML: X_sub as an italic variable with a subscript, a true minus."""
    escaped = escape_html(text).replace(" - ", " \u2212 ")
    return _SYMBOL.sub(r"<var>\1</var><sub>\2</sub>", escaped)


def _formula(f: Formula) -> str:
    value = f["value"]
    result = f"<b>{escape_html(value)}</b>" if value is not None else "UNDEFINED"
    where = " and ".join(f"{_math(symbol)} = {escape_html(v)}" for symbol, v in f["where"])
    return (
        f'<p class="formula">{escape_html(f["name"])} = {_math(f["expression"])} = {result}, '
        f"where {where} ({escape_html(f['note'])})</p>"
    )


_JOIN_AT = 1024
"""Names of a collapsed group joined into one text every this many (the same text in the end)."""


def _name(row: list[Cell], key: tuple[int, ...]) -> str:
    return "/".join(str(row[i]) for i in key if row[i] != "")


def _groups(
    block: Block, limit: int | None
) -> tuple[list[tuple[tuple[Cell, ...], int, str]], list[list[Cell]], int]:
    """The collapsed groups (value, how many rows, the rows' names) in order of first
    appearance, the first ``limit`` other rows (all for None), and how many other rows.

    Two passes over the rows: one counts each value, the other names the rows of the
    collapsed groups and keeps the first other rows, so rows read from disk are never all held.
    """
    if not block.group:
        rows = block.rows if limit is None else itertools.islice(block.rows, limit)
        return [], list(rows), len(block.rows)
    counts: Counter[tuple[Cell, ...]] = Counter(
        tuple(row[i] for i in block.group) for row in block.rows
    )
    names: dict[tuple[Cell, ...], list[str]] = {
        value: [] for value, count in counts.items() if count >= COLLAPSE_AT
    }
    head: list[list[Cell]] = []
    others = 0
    for row in block.rows:
        value = tuple(row[i] for i in block.group)
        group = names.get(value)
        if group is not None:
            group.append(_name(row, block.key))
            if len(group) > _JOIN_AT:
                group[:] = [", ".join(group)]
            continue
        others += 1
        if limit is None or len(head) < limit:
            head.append(row)
    groups = [(value, counts[value], ", ".join(group)) for value, group in names.items()]
    return groups, head, others


def _table(block: Block) -> str:
    if not block.rows:
        return "<p>(none)</p>"
    head = "".join(f"<th>{escape_html(h)}</th>" for h in block.headers)
    groups, singles, others = _groups(block, block.limit)
    body = []
    for value, count, names in groups:
        shown = " \u2014 ".join(_cell(v) for v in value if v != "")
        body.append(
            f'<tr class="group"><td colspan="{len(block.headers)}"><span class="count">'
            f"{count} {escape_html(block.noun)}</span>: {shown}<details><summary>which "
            f"{escape_html(block.noun)}</summary>{_unbroken(names)}</details></td></tr>"
        )
    for row in singles:
        body.append("<tr>" + "".join(f"<td>{_cell(c)}</td>" for c in row) + "</tr>")
    thead = f"<thead><tr>{head}</tr></thead>" if any(block.headers) else ""
    out = f'<div class="tw"><table>{thead}<tbody>{"".join(body)}</tbody></table></div>'
    if others > len(singles):
        out += f"<p>{escape_html(more_rows_text(others - len(singles)))}</p>"
    return out


def render_html(doc: Ap1ScoreReport) -> str:
    """The report as one HTML page."""
    e = escape_html
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
        for index, block in enumerate(section.blocks):
            if block.kind == "p":
                klass = ' class="statement"' if number == 0 and index == 0 else ""
                parts.append(f"<p{klass}>{_unbroken(block.text)}</p>")
            elif block.kind == "formula":
                assert block.formula is not None
                parts.append(_formula(block.formula))
            elif block.kind == "table":
                parts.append(_table(block))
            elif block.kind == "chart":
                assert block.chart is not None
                parts.append(
                    f"<figure><figcaption>{e(chart_title(block.chart))}</figcaption>"
                    f"{chart_svg(block.chart)}</figure>"
                )
            elif block.kind == "code":
                parts.append(f"<pre>{e(block.text)}</pre>")
        parts.append("</section>")
        if number == 1:  # the contents follow the profile, which comes first
            parts.append(f"<nav><b>Contents:</b> {nav}</nav>")
    parts.append("</body></html>\n")
    return "".join(parts)
