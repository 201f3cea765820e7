"""Charts as inline SVG pictures: no script, no font or file fetched, the same bytes every time."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

__all__ = ["bar_chart", "chart_svg", "stacked_chart"]

PALETTE = {
    "COMPUTED": "#2e7d32",
    "ORIGINATED": "#c62828",
    "ADJUDICATION": "#f9a825",
    "UNMEASURED": "#757575",
    "VOID": "#bdbdbd",
    "INVOKED": "#2e7d32",
    "NOT-INVOKED": "#c62828",
    "EV-0": "#757575",
    "grounded": "#2e7d32",
    "originated": "#c62828",
}
_FALLBACK = ("#1565c0", "#6a1b9a", "#00838f", "#ef6c00", "#4e342e", "#37474f")


def _colour(label: str, order: Sequence[str]) -> str:
    if label in PALETTE:
        return PALETTE[label]
    return _FALLBACK[order.index(label) % len(_FALLBACK)] if label in order else "#999999"


def stacked_chart(title: str, rows: list[tuple[str, dict[str, int]]], labels: Sequence[str]) -> str:
    """One horizontal stacked bar per row (an item), segments in ``labels`` order, with a legend."""
    bar_h, gap, left, width = 14, 4, 70, 520
    height = 40 + len(rows) * (bar_h + gap) + 24
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{left + width + 20}" '
        f'height="{height}" viewBox="0 0 {left + width + 20} {height}" font-family="sans-serif" '
        f'font-size="11"><title>{html.escape(title)}</title>'
    ]
    most = max((sum(counts.values()) for _, counts in rows), default=0) or 1
    x = left
    for label in labels:
        out.append(f'<rect x="{x}" y="6" width="10" height="10" fill="{_colour(label, labels)}"/>')
        out.append(f'<text x="{x + 13}" y="15">{html.escape(label)}</text>')
        x += 16 + 7 * len(label)
    for index, (name, counts) in enumerate(rows):
        y = 30 + index * (bar_h + gap)
        out.append(
            f'<text x="{left - 6}" y="{y + 11}" text-anchor="end">{html.escape(name)}</text>'
        )
        x0 = float(left)
        for label in labels:
            value = counts.get(label, 0)
            if not value:
                continue
            w = width * value / most
            out.append(
                f'<rect x="{x0:.1f}" y="{y}" width="{w:.1f}" height="{bar_h}" '
                f'fill="{_colour(label, labels)}"><title>{html.escape(name)}: '
                f"{html.escape(label)} {value}</title></rect>"
            )
            x0 += w
    out.append(
        f'<text x="{left}" y="{height - 6}">scale: a full bar is {most} execution(s)</text></svg>'
    )
    return "".join(out)


def bar_chart(title: str, bars: list[tuple[str, int, str]]) -> str:
    """Horizontal bars (label, value, colour key) with their values written beside them."""
    bar_h, gap, left, width = 16, 5, 250, 360
    height = 12 + len(bars) * (bar_h + gap) + 10
    most = max((v for _, v, _ in bars), default=0) or 1
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{left + width + 60}" '
        f'height="{height}" viewBox="0 0 {left + width + 60} {height}" font-family="sans-serif" '
        f'font-size="11"><title>{html.escape(title)}</title>'
    ]
    for index, (label, value, key) in enumerate(bars):
        y = 8 + index * (bar_h + gap)
        w = width * value / most
        out.append(
            f'<text x="{left - 6}" y="{y + 12}" text-anchor="end">{html.escape(label)}</text>'
        )
        out.append(
            f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar_h}" '
            f'fill="{PALETTE.get(key, "#1565c0")}"/>'
        )
        out.append(f'<text x="{left + w + 4:.1f}" y="{y + 12}">{value}</text>')
    out.append("</svg>")
    return "".join(out)


def chart_svg(chart: dict[str, Any]) -> str:
    """The picture of one layout chart block."""
    kind = chart["kind"]
    if kind == "operands":
        bars = [
            (
                f"({s['step']}) {s['resolution']}",
                int(s["count"]),
                "grounded" if s["grounded"] else "originated",
            )
            for s in chart["steps"]
        ]
        return bar_chart("Operands by ladder step and resolution", bars)
    if kind == "answers":
        rows = [
            (r["itemId"], {c["outcome"]: int(c["count"]) for c in r["outcomes"]})
            for r in chart["rows"]
        ]
        labels = sorted({label for _, counts in rows for label in counts}, key=_answer_order)
        return stacked_chart("Answer-level outcomes per item", rows, labels)
    rows = []
    for r in chart["rows"]:
        counts = {
            "INVOKED": int(r["invoked"]),
            "NOT-INVOKED": int(r["notInvoked"]),
            "EV-0": int(r["ev0"]),
        }
        rows.append((f"{r['itemId']} {'b' if r['condition'] == 'base' else 'r'}", counts))
    return stacked_chart(
        "Invocation per item (b: base, r: instruction removed)",
        rows,
        ["INVOKED", "NOT-INVOKED", "EV-0"],
    )


def _answer_order(label: str) -> tuple[int, str]:
    order = ("COMPUTED", "ORIGINATED", "ADJUDICATION", "UNMEASURED", "VOID")
    return (order.index(label), label) if label in order else (len(order), label)
