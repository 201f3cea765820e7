"""Text widths for the charts, measured from the font the charts name.

An SVG picture cannot ask the browser how wide a label is, so the charts name a
font family whose advance widths are known (Arial, and Liberation Sans with the
same metrics) and compute each label's width from the table below. Each label
is also drawn with ``textLength`` set to that width, so a reader whose browser
substitutes another font still sees it fill exactly the measured box: labels
placed side by side never run into each other.
"""

from __future__ import annotations

__all__ = ["FONT_FAMILY", "text_width"]

FONT_FAMILY = "Arial,'Liberation Sans',Helvetica,sans-serif"

# Advance widths in thousandths of an em of the printable ASCII characters (space to tilde),
# regular and bold, as Chromium measures Liberation Sans (metric-compatible with Arial).
_REGULAR = (
    "278 278 355 556 556 889 667 191 333 333 389 584 278 333 278 278 556 556 556 556 556 556 "
    "556 556 556 556 278 278 584 584 584 556 1015 667 667 722 722 667 611 778 722 278 500 667 "
    "556 833 722 778 667 778 722 667 611 722 667 944 667 667 611 278 278 278 469 556 333 556 "
    "556 500 556 556 278 556 556 222 222 500 222 833 556 556 556 556 333 500 278 556 500 722 "
    "500 500 500 334 260 334 584"
)
_BOLD = (
    "278 333 474 556 556 889 722 238 333 333 389 584 278 333 278 278 556 556 556 556 556 556 "
    "556 556 556 556 333 333 584 584 584 611 975 722 722 722 722 667 611 778 722 278 556 722 "
    "611 833 722 778 667 778 722 667 611 722 667 944 667 667 611 333 278 333 584 556 333 556 "
    "611 556 611 556 333 611 611 278 278 556 278 889 611 611 611 611 389 556 333 611 556 778 "
    "556 556 500 389 280 389 584"
)
_WIDTHS = {
    False: tuple(int(w) for w in _REGULAR.split()),
    True: tuple(int(w) for w in _BOLD.split()),
}
_WIDE = 1000
"""Any character outside the table counts as one em: wide enough for every Latin letter."""


def text_width(text: str, size: float, *, bold: bool = False) -> float:
    """The width in pixels of ``text`` set at ``size`` pixels in the charts' font."""
    table = _WIDTHS[bold]
    units = sum(table[ord(ch) - 32] if 32 <= ord(ch) < 127 else _WIDE for ch in text)
    return round(units * size / 1000, 1)
