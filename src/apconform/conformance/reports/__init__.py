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
    from apconform.conformance.reports.formats import (
        FORMATS,
        VerifiedReport,
        render,
        sign_report,
        signature_path,
        verify_report,
        write_badges,
    )

__all__ = [
    "FORMATS",
    "VerifiedReport",
    "render",
    "sign_report",
    "signature_path",
    "verify_report",
    "write_badges",
]

_EXPORTS = {
    "FORMATS": "apconform.conformance.reports.formats",
    "VerifiedReport": "apconform.conformance.reports.formats",
    "render": "apconform.conformance.reports.formats",
    "sign_report": "apconform.conformance.reports.formats",
    "signature_path": "apconform.conformance.reports.formats",
    "verify_report": "apconform.conformance.reports.formats",
    "write_badges": "apconform.conformance.reports.formats",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
