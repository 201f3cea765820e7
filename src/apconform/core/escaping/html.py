"""HTML escaping of text and attribute values (quotes included) for every page the kit writes."""

from __future__ import annotations

import html

__all__ = ["escape_html"]


def escape_html(value: object) -> str:
    """``value`` as HTML text or a quoted attribute value: ``& < > " '`` become references."""
    return html.escape(str(value), quote=True)
