"""The offline results site: the implementations x clauses matrix per protocol, each
implementation's history with regressions marked, AP-1 profiles side by side with their
intervals, and a page per entry linking into the full reports. No script, no external resource.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.site.writer import MARKER as MARKER
    from apconform.site.writer import SiteWritten as SiteWritten
    from apconform.site.writer import write_site as write_site

__getattr__ = lazy_exports(__name__)
