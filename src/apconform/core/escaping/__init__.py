"""The one place every report escapes what it prints: one module per target language.

``html`` for HTML text and attributes, ``markdown`` for Markdown text and table
cells, ``island`` for JSON embedded in an HTML page, ``text`` for plain text
on a terminal. A report never writes
its own escaping: a string from a document (an implementation's or a model's
name, a response, a reason) reaches a page only through these functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.core.escaping.html import escape_html as escape_html
    from apconform.core.escaping.island import json_island as json_island
    from apconform.core.escaping.markdown import markdown_cell as markdown_cell
    from apconform.core.escaping.markdown import markdown_code as markdown_code
    from apconform.core.escaping.markdown import markdown_fence as markdown_fence
    from apconform.core.escaping.markdown import markdown_text as markdown_text
    from apconform.core.escaping.text import one_line as one_line

__getattr__ = lazy_exports(__name__)
