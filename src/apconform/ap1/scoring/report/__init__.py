"""The score report: the profile document (its sections and summary) and its Markdown and offline
HTML renderings, which share one layout.

May import the scorer's ``aggregate``, ``context``, ``rates``, ``measures`` and ``adjudication``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.scoring.report.document import build_report, scorer_identity
    from apconform.ap1.scoring.report.html import render_html
    from apconform.ap1.scoring.report.markdown import render_markdown

__all__ = [
    "build_report",
    "render_html",
    "render_markdown",
    "scorer_identity",
]

_EXPORTS = {
    "build_report": "apconform.ap1.scoring.report.document",
    "scorer_identity": "apconform.ap1.scoring.report.document",
    "render_html": "apconform.ap1.scoring.report.html",
    "render_markdown": "apconform.ap1.scoring.report.markdown",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
