"""The offline results site: the implementations x clauses matrix per protocol, each
implementation's history with regressions marked, AP-1 profiles side by side with their
intervals, and a page per entry linking into the full reports. No script, no external resource.
"""

from apconform.site.writer import MARKER, SiteWritten, write_site

__all__ = ["MARKER", "SiteWritten", "write_site"]
