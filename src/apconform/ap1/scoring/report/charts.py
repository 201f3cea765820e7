"""Charts as inline SVG pictures: no script, no font or file fetched, the same bytes every time.

Every chart is a set of horizontal bars with a legend, a value axis with ticks and
labels, and the value written beside each bar and inside each segment wide enough
to hold it. Colours are the Okabe-Ito palette, which readers with any common
colour-vision deficiency can tell apart, and each outcome also has its own fill
pattern, so the chart reads in greyscale too. Label widths come from
:mod:`text_metrics`, so legend entries and labels never overlap.
"""

from __future__ import annotations

from collections.abc import Sequence

from apconform.ap1.scoring.report.outline import Chart
from apconform.ap1.scoring.report.score_report import ItemAnswers, ItemInvocation, OperandStepCount
from apconform.ap1.scoring.report.text_metrics import FONT_FAMILY, text_width
from apconform.core.escaping import escape_html

__all__ = [
    "PALETTE",
    "answers_chart",
    "chart_svg",
    "chart_title",
    "invocation_chart",
    "operands_chart",
    "stacked_chart",
]

# The Okabe-Ito colours (Okabe and Ito, "Color Universal Design", 2008).
_GREEN, _VERMILLION, _ORANGE, _GREY = "#009E73", "#D55E00", "#E69F00", "#999999"
_BLUE, _PURPLE, _SKY, _YELLOW, _WHITE = "#0072B2", "#CC79A7", "#56B4E9", "#F0E442", "#FFFFFF"

PALETTE: dict[str, tuple[str, str]] = {
    "COMPUTED": (_GREEN, "solid"),
    "INVOKED": (_GREEN, "solid"),
    "grounded": (_GREEN, "solid"),
    "ORIGINATED": (_VERMILLION, "diagonal"),
    "NOT-INVOKED": (_VERMILLION, "diagonal"),
    "originated": (_VERMILLION, "diagonal"),
    "ADJUDICATION": (_ORANGE, "dots"),
    "UNMEASURED": (_GREY, "cross"),
    "EV-0": (_GREY, "cross"),
    "VOID": (_WHITE, "horizontal"),
}
"""Outcome -> (fill colour, pattern)."""
_FALLBACK = (
    (_BLUE, "solid"),
    (_PURPLE, "diagonal"),
    (_SKY, "dots"),
    (_YELLOW, "horizontal"),
)
_PATTERNS = {
    "diagonal": '<path d="M-1,1 l2,-2 M0,6 l6,-6 M5,7 l2,-2" stroke="#000" stroke-opacity=".6" '
    'stroke-width="1.2"/>',
    "dots": '<circle cx="3" cy="3" r="1.3" fill="#000" fill-opacity=".6"/>',
    "cross": '<path d="M-1,1 l2,-2 M0,6 l6,-6 M5,7 l2,-2 M-1,5 l2,2 M0,0 l6,6 M5,-1 l2,2" '
    'stroke="#000" stroke-opacity=".45" stroke-width="1"/>',
    "horizontal": '<path d="M0,1.5 h6 M0,4.5 h6" stroke="#000" stroke-opacity=".55" '
    'stroke-width="1"/>',
}
_SIZE = 11
_PAD = 8
_BAR, _GAP = 14, 5
_PLOT = 480
_TICK_SPACING = 44


def _style(label: str, order: Sequence[str]) -> tuple[str, str]:
    if label in PALETTE:
        return PALETTE[label]
    position = order.index(label) if label in order else 0
    return _FALLBACK[position % len(_FALLBACK)]


def _text(
    x: float,
    y: float,
    text: str,
    *,
    anchor: str = "start",
    bold: bool = False,
    halo: bool = False,
    klass: str = "",
) -> str:
    """A label drawn at exactly its measured width (see text_metrics)."""
    width = text_width(text, _SIZE, bold=bold)
    attributes = [f'x="{x:.1f}"', f'y="{y:.1f}"', f'textLength="{width}"']
    attributes.append('lengthAdjust="spacingAndGlyphs"')
    if anchor != "start":
        attributes.append(f'text-anchor="{anchor}"')
    if bold:
        attributes.append('font-weight="bold"')
    if halo:
        attributes.append('stroke="#fff" stroke-width="3" paint-order="stroke"')
    if klass:
        attributes.append(f'class="{klass}"')
    return f"<text {' '.join(attributes)}>{escape_html(text)}</text>"


def _swatch(x: float, y: float, w: float, h: float, style: tuple[str, str], ids: str) -> str:
    colour, pattern = style
    out = f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h}" fill="{colour}"/>'
    if pattern != "solid":
        out += (
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h}" '
            f'fill="url(#{ids}-{pattern})"/>'
        )
    return out


def _step(most: int) -> int:
    """A tick step of 1, 2 or 5 times a power of ten that keeps ticks at least 44 px apart."""
    step = 1
    while True:
        for factor in (1, 2, 5):
            candidate = step * factor
            if _PLOT * candidate / most >= _TICK_SPACING:
                return candidate
        step *= 10


def stacked_chart(
    ids: str,
    title: str,
    rows: list[tuple[str, dict[str, int]]],
    labels: Sequence[str],
    *,
    axis: str,
    legend: dict[str, str] | None = None,
) -> str:
    """One horizontal stacked bar per row, segments in ``labels`` order.

    ``ids`` prefixes the pattern ids (unique per chart in a page); ``legend`` gives a
    legend text for a label where it should say more than the label itself.
    """
    names = legend or {}
    left = _PAD + max((text_width(name, _SIZE) for name, _ in rows), default=0) + 8
    most = max((sum(counts.values()) for _, counts in rows), default=0) or 1
    right = text_width(str(most), _SIZE, bold=True) + 2 * _PAD
    total_width = round(left + _PLOT + right)
    parts: list[str] = []
    # Legend: entries left to right, wrapping onto a new line before the chart's right edge.
    x, y = float(_PAD), 6.0
    for label in labels:
        text = names.get(label, label)
        entry = 12 + 5 + text_width(text, _SIZE)
        if x > _PAD and x + entry > total_width - _PAD:
            x, y = float(_PAD), y + 18
        parts.append(
            f'<g class="legend-entry">{_swatch(x, y, 12, 12, _style(label, labels), ids)}'
            f'<rect x="{x:.1f}" y="{y:.1f}" width="12" height="12" fill="none" stroke="#333" '
            f'stroke-width=".6"/>{_text(x + 17, y + 10, text, klass="legend-label")}</g>'
        )
        x += entry + 16
    top = y + 26
    bottom = top + len(rows) * (_BAR + _GAP)
    step = _step(most)
    grid = []
    for tick in range(0, most + 1, step):
        tx = left + _PLOT * tick / most
        grid.append(
            f'<line x1="{tx:.1f}" y1="{top - 3:.1f}" x2="{tx:.1f}" y2="{bottom + 3:.1f}" '
            f'stroke="#ddd"/>'
        )
        grid.append(_text(tx, bottom + 16, str(tick), anchor="middle", klass="tick-label"))
    bars = []
    for index, (name, counts) in enumerate(rows):
        y0 = top + index * (_BAR + _GAP)
        bars.append(_text(left - 6, y0 + 11, name, anchor="end", klass="bar-label"))
        x0 = left
        for label in labels:
            value = counts.get(label, 0)
            if not value:
                continue
            w = _PLOT * value / most
            bars.append(
                f'<g class="segment">{_swatch(x0, y0, w, _BAR, _style(label, labels), ids)}'
                f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{w:.1f}" height="{_BAR}" fill="none" '
                f'stroke="#333" stroke-width=".6"/><title>{escape_html(name)}: '
                f"{escape_html(names.get(label, label))} {value}</title></g>"
            )
            shown = str(value)
            if value != sum(counts.values()) and text_width(shown, _SIZE) + 6 <= w:
                bars.append(_text(x0 + w / 2, y0 + 11, shown, anchor="middle", halo=True))
            x0 += w
        total = sum(counts.values())
        bars.append(_text(x0 + 5, y0 + 11, str(total), bold=True, klass="bar-value"))
    axis_line = (
        f'<line x1="{left:.1f}" y1="{bottom + 3:.1f}" x2="{left + _PLOT:.1f}" '
        f'y2="{bottom + 3:.1f}" stroke="#333"/>'
    )
    height = round(bottom + 40)
    patterns = "".join(
        f'<pattern id="{ids}-{name}" width="6" height="6" patternUnits="userSpaceOnUse">'
        f"{body}</pattern>"
        for name, body in _PATTERNS.items()
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{total_width}" '
        f'height="{height}" viewBox="0 0 {total_width} {height}" font-family="{FONT_FAMILY}" '
        f'font-size="{_SIZE}"><title>{escape_html(title)}</title><defs>{patterns}</defs>'
        + "".join(parts)
        + "".join(grid)
        + "".join(bars)
        + axis_line
        + _text(left + _PLOT / 2, bottom + 32, axis, anchor="middle", klass="axis-title")
        + "</svg>"
    )


_TITLES = {
    "operands": "Operands by ladder step and resolution",
    "answers": "Answer-level outcomes per item",
    "invocation": "Invocation per item (b: base, r: instruction removed)",
}


def chart_title(chart: Chart) -> str:
    """The caption of one layout chart block."""
    return _TITLES[chart.kind]


def operands_chart(steps: list[OperandStepCount]) -> Chart:
    """The operands chart of the report's operand steps (step, resolution, grounded, count)."""
    bars = [
        (
            f"({s['step']}) {s['resolution']}",
            {("grounded" if s["grounded"] else "originated"): int(s["count"])},
        )
        for s in steps
    ]
    return Chart("operands", bars)


def answers_chart(rows: list[ItemAnswers]) -> Chart:
    """The answers chart of the report's per-item outcome counts."""
    bars = [(r["itemId"], {c["outcome"]: int(c["count"]) for c in r["outcomes"]}) for r in rows]
    return Chart("answers", bars)


def invocation_chart(rows: list[ItemInvocation]) -> Chart:
    """The invocation chart of the report's per-item, per-condition invocation counts."""
    bars = []
    for r in rows:
        counts = {
            "INVOKED": int(r["invoked"]),
            "NOT-INVOKED": int(r["notInvoked"]),
            "EV-0": int(r["ev0"]),
        }
        bars.append((f"{r['itemId']} {'b' if r['condition'] == 'base' else 'r'}", counts))
    return Chart("invocation", bars)


def chart_svg(chart: Chart) -> str:
    """The picture of one layout chart block."""
    if chart.kind == "operands":
        return stacked_chart(
            "operands",
            chart_title(chart),
            chart.bars,
            ["grounded", "originated"],
            axis="operands",
            legend={"grounded": "grounded (steps i to iv)", "originated": "originated (step v)"},
        )
    if chart.kind == "answers":
        labels = sorted({label for _, counts in chart.bars for label in counts}, key=_answer_order)
        return stacked_chart(
            "answers", chart_title(chart), chart.bars, labels, axis="executions of the item"
        )
    return stacked_chart(
        "invocation",
        chart_title(chart),
        chart.bars,
        ["INVOKED", "NOT-INVOKED", "EV-0"],
        axis="executions of the item in the condition",
    )


def _answer_order(label: str) -> tuple[int, str]:
    order = ("COMPUTED", "ORIGINATED", "ADJUDICATION", "UNMEASURED", "VOID")
    return (order.index(label), label) if label in order else (len(order), label)
