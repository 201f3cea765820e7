"""The conformance harness: clauses, vectors, adapters, the runner and its reports.

``adapters/`` reach an implementation (in process, subprocess, HTTP); ``reports/`` write
each format (JSON lines, JUnit, Markdown, HTML, badges) and sign them. Public names only,
imported on first use; the modules behind them may change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.conformance.adapters.base import Adapter
    from apconform.conformance.adapters.targets import open_adapter
    from apconform.conformance.clauses import ClauseIndex, load_clause_registry
    from apconform.conformance.manifest import VECTOR_TEST_PUBLIC_KEY, verify_manifest
    from apconform.conformance.operations import get_operation, operation, operation_names
    from apconform.conformance.protocol import PROTOCOL_VERSION, Reply
    from apconform.conformance.reports.formats import (
        render,
        sign_report,
        verify_report,
        write_badges,
    )
    from apconform.conformance.runner import CheckOptions, CheckRun, run_check
    from apconform.conformance.vectors import LoadedVector, load_vectors

__all__ = [
    "PROTOCOL_VERSION",
    "VECTOR_TEST_PUBLIC_KEY",
    "Adapter",
    "CheckOptions",
    "CheckRun",
    "ClauseIndex",
    "LoadedVector",
    "Reply",
    "get_operation",
    "load_clause_registry",
    "load_vectors",
    "open_adapter",
    "operation",
    "operation_names",
    "render",
    "run_check",
    "sign_report",
    "verify_manifest",
    "verify_report",
    "write_badges",
]

_EXPORTS = {
    "Adapter": "apconform.conformance.adapters.base",
    "open_adapter": "apconform.conformance.adapters.targets",
    "ClauseIndex": "apconform.conformance.clauses",
    "load_clause_registry": "apconform.conformance.clauses",
    "VECTOR_TEST_PUBLIC_KEY": "apconform.conformance.manifest",
    "verify_manifest": "apconform.conformance.manifest",
    "get_operation": "apconform.conformance.operations",
    "operation": "apconform.conformance.operations",
    "operation_names": "apconform.conformance.operations",
    "PROTOCOL_VERSION": "apconform.conformance.protocol",
    "Reply": "apconform.conformance.protocol",
    "render": "apconform.conformance.reports.formats",
    "sign_report": "apconform.conformance.reports.formats",
    "verify_report": "apconform.conformance.reports.formats",
    "write_badges": "apconform.conformance.reports.formats",
    "CheckOptions": "apconform.conformance.runner",
    "CheckRun": "apconform.conformance.runner",
    "run_check": "apconform.conformance.runner",
    "LoadedVector": "apconform.conformance.vectors",
    "load_vectors": "apconform.conformance.vectors",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
