"""An offline SVG chart of a power analysis: the varied number against power or width.

Plain SVG with no script, font or link to anything outside the file, so it
opens anywhere (a browser, an image viewer, the docs site). Every text it
prints is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apconform.core.escaping import escape_html as escape

__all__ = ["power_svg"]

_WIDTH, _HEIGHT = 640, 400
_LEFT, _RIGHT, _TOP, _BOTTOM = 70, 20, 40, 60


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    if high <= low:
        return [low]
    step = (high - low) / count
    return [low + i * step for i in range(count + 1)]


def power_svg(document: Mapping[str, Any]) -> str:
    """The chart of an apx-ext-power/1 document (power when no target asks for width)."""
    target = document.get("target")
    kind = "width" if target is not None and target["kind"] == "width" else "power"
    vary = target["vary"] if target is not None else "pairs"
    points: list[tuple[float, float]] = []
    for row in document["table"]:
        y = row["power"] if kind == "power" else row["meanWidth"]
        if y is not None:
            points.append((float(row["plan"][vary]), float(y)))
    xs = [x for x, _ in points] or [0.0]
    x_low, x_high = min(xs), max(xs)
    if x_high == x_low:
        x_low, x_high = x_low - 1, x_high + 1
    if kind == "power":
        y_low, y_high = 0.0, 1.0
    else:
        values = [y for _, y in points] + ([target["value"]] if target else [])
        y_low, y_high = 0.0, max(values) * 1.1 if values else 1.0
    plot_w, plot_h = _WIDTH - _LEFT - _RIGHT, _HEIGHT - _TOP - _BOTTOM

    def sx(x: float) -> float:
        return _LEFT + (x - x_low) / (x_high - x_low) * plot_w

    def sy(y: float) -> float:
        return _TOP + (1 - (y - y_low) / (y_high - y_low)) * plot_h

    simulations, seed = document["simulations"], document["seed"]
    subtitle = f" by {vary} ({simulations} simulations, seed {seed})"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{_HEIGHT}" '
        f'viewBox="0 0 {_WIDTH} {_HEIGHT}" font-family="sans-serif" font-size="12">',
        f'<rect width="{_WIDTH}" height="{_HEIGHT}" fill="white"/>',
        f'<text x="{_LEFT}" y="22" font-size="14">'
        f"{escape('Simulated ' + ('power' if kind == 'power' else 'mean interval width'))}"
        f"{escape(subtitle)}"
        "</text>",
        f'<line x1="{_LEFT}" y1="{_TOP + plot_h}" x2="{_LEFT + plot_w}" y2="{_TOP + plot_h}" '
        'stroke="black"/>',
        f'<line x1="{_LEFT}" y1="{_TOP}" x2="{_LEFT}" y2="{_TOP + plot_h}" stroke="black"/>',
    ]
    for tick in _ticks(y_low, y_high):
        y = sy(tick)
        parts.append(
            f'<line x1="{_LEFT - 4}" y1="{y:.1f}" x2="{_LEFT}" y2="{y:.1f}" stroke="black"/>'
        )
        parts.append(f'<text x="{_LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">{tick:.2f}</text>')
    for x_value, _ in points:
        x = sx(x_value)
        parts.append(
            f'<text x="{x:.1f}" y="{_TOP + plot_h + 18}" text-anchor="middle">{int(x_value)}</text>'
        )
    parts.append(
        f'<text x="{_LEFT + plot_w / 2:.1f}" y="{_HEIGHT - 15}" text-anchor="middle">'
        f"{escape(vary)}</text>"
    )
    if target is not None:
        y = sy(float(target["value"]))
        parts.append(
            f'<line x1="{_LEFT}" y1="{y:.1f}" x2="{_LEFT + plot_w}" y2="{y:.1f}" '
            'stroke="#b00" stroke-dasharray="6 4"/>'
        )
        parts.append(
            f'<text x="{_LEFT + plot_w - 4}" y="{y - 6:.1f}" text-anchor="end" fill="#b00">'
            f"{escape('target ' + str(target['value']))}</text>"
        )
    if points:
        path = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in points)
        parts.append(f'<polyline points="{path}" fill="none" stroke="#1f5fa8" stroke-width="2"/>')
        for x, y in points:
            parts.append(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3.5" fill="#1f5fa8"/>')
    answer = document.get("answer")
    if answer is not None and answer["value"] is not None:
        x = sx(float(answer["value"]))
        parts.append(
            f'<line x1="{x:.1f}" y1="{_TOP}" x2="{x:.1f}" y2="{_TOP + plot_h}" stroke="#2a7" '
            'stroke-dasharray="3 3"/>'
        )
        parts.append(
            f'<text x="{x + 4:.1f}" y="{_TOP + 12}" fill="#2a7">'
            f"answer: {int(answer['value'])}</text>"
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
