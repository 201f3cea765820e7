"""Plain text for a terminal or a log: a string from a document printed on one line.

Line breaks (``\\n``, ``\\r``, U+2028, U+2029) become spaces, so a name cannot add a
line to a report, and every other control character (an escape sequence that
could rewrite the terminal) is shown as ``\\uXXXX``. Ordinary text is unchanged.
"""

from __future__ import annotations

__all__ = ["one_line"]

_BREAKS = {0x0A: " ", 0x0D: " ", 0x2028: " ", 0x2029: " "}
_CONTROLS = {
    code: _BREAKS.get(code, f"\\u{code:04x}")
    for code in (*range(0x00, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)
    if code != 0x09
}


def one_line(value: object) -> str:
    """``value`` as text on one line, with control characters made visible."""
    return str(value).translate(_CONTROLS)
