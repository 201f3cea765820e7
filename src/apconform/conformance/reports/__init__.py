"""Conformance reports: one module per format, all rendered from the same records.

``apconform.results.records`` writes and reads the JSON-lines report (header, cases, footer),
below the harness so that the ledger reads it without importing the harness; ``text`` the terminal
and Markdown summaries; ``html`` the offline page; ``junit`` JUnit XML and badges; ``formats``
picks a format and signs or verifies a report file. May import ``apconform.conformance.protocol``,
``summary``, ``compare``, ``clauses`` (the registry, to list every clause), ``apconform.results``
and ``apconform.core``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.conformance.reports.formats import FORMATS as FORMATS
    from apconform.conformance.reports.formats import VerifiedReport as VerifiedReport
    from apconform.conformance.reports.formats import render as render
    from apconform.conformance.reports.formats import sign_report as sign_report
    from apconform.conformance.reports.formats import signature_path as signature_path
    from apconform.conformance.reports.formats import verify_report as verify_report
    from apconform.conformance.reports.formats import write_badges as write_badges

__getattr__ = lazy_exports(__name__)
