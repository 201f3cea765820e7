"""JSON embedded in an HTML page (``<script type="application/json">``).

The HTML parser reads a script element's text before JSON does: ``</script>``
would end it and ``<!--`` would open a comment that swallows the rest of the
page. ``<``, ``>`` and ``&`` are written as ``\\u003c``, ``\\u003e`` and
``\\u0026``, and U+2028 and U+2029 as ``\\u2028`` and ``\\u2029`` (line ends to
older JavaScript), so no text of the document can end or change the element and
``JSON.parse`` of the element's text gives back the same value.
"""

from __future__ import annotations

import json

__all__ = ["json_island"]

_ISLAND = str.maketrans(
    {
        "<": "\\u003c",
        ">": "\\u003e",
        "&": "\\u0026",
        "\u2028": "\\u2028",
        "\u2029": "\\u2029",
    }
)


def json_island(value: object) -> str:
    """``value`` as compact JSON that is safe as the text of an HTML script element."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).translate(_ISLAND)
