"""The score report: the profile document (its sections and summary) and its Markdown and offline
HTML renderings, which share one layout.

May import the scorer's ``aggregate``, ``context``, ``rates``, ``measures`` and ``adjudication``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.scoring.report.document import build_report as build_report
    from apconform.ap1.scoring.report.document import scorer_identity as scorer_identity
    from apconform.ap1.scoring.report.html import render_html as render_html
    from apconform.ap1.scoring.report.markdown import render_markdown as render_markdown

__getattr__ = lazy_exports(__name__)
