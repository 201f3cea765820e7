"""Markdown escaping: a string from a document printed as text, never as markup.

Only what could change the page is escaped, so ordinary names and figures print
unchanged: raw HTML (``<``, ``>``, ``&`` become character references, so a
``<script>`` or ``<!--`` stays text), code spans (a backtick is escaped), links
(``](`` loses its meaning), and line breaks (``\\n``, ``\\r``, U+2028, U+2029
become spaces, so a name cannot end a heading or a table row). In a table cell
``|`` is escaped too, and the backslash, so an escape cannot be undone. Code
spans and fenced blocks are delimited by a run of backticks longer than any in
the text, so their text cannot close them.
"""

from __future__ import annotations

import re

__all__ = ["markdown_cell", "markdown_code", "markdown_fence", "markdown_text"]

_TEXT = str.maketrans(
    {
        "<": "&lt;",
        ">": "&gt;",
        "&": "&amp;",
        "`": "\\`",
        "\n": " ",
        "\r": " ",
        "\u2028": " ",
        "\u2029": " ",
    }
)


_LINES = str.maketrans({"\n": " ", "\r": " ", "\u2028": " ", "\u2029": " "})


def markdown_text(value: object) -> str:
    """``value`` as inline Markdown text (a heading, a paragraph, a list item)."""
    return str(value).translate(_TEXT).replace("](", "]\\(")


def markdown_cell(value: object) -> str:
    """``value`` as the text of one Markdown table cell."""
    text = str(value).replace("\\", "\\\\").replace("|", "\\|")
    return markdown_text(text)


def _longest_run(text: str) -> int:
    return max((len(run) for run in re.findall(r"`+", text)), default=0)


def markdown_code(value: object) -> str:
    """``value`` as a code span: shown literally, on one line, whatever it holds."""
    text = str(value).translate(_LINES)
    fence = "`" * (_longest_run(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def markdown_fence(text: str, info: str = "") -> list[str]:
    """The lines of a fenced code block holding ``text`` literally."""
    fence = "`" * max(3, _longest_run(text) + 1)
    return [fence + info, text, fence]
