"""The conformance harness: clauses, vectors, adapters, the runner and its reports.

``adapters/`` reach an implementation (in process, subprocess, HTTP); ``reports/`` write
each format (JSON lines, JUnit, Markdown, HTML, badges) and sign them. Public names only,
imported on first use; the modules behind them may change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.conformance.adapters.base import Adapter as Adapter
    from apconform.conformance.adapters.targets import open_adapter as open_adapter
    from apconform.conformance.clauses import ClauseIndex as ClauseIndex
    from apconform.conformance.clauses import load_clause_registry as load_clause_registry
    from apconform.conformance.contracts import OperationContract as OperationContract
    from apconform.conformance.contracts import operation_contract as operation_contract
    from apconform.conformance.manifest import VECTOR_TEST_PUBLIC_KEY as VECTOR_TEST_PUBLIC_KEY
    from apconform.conformance.manifest import verify_manifest as verify_manifest
    from apconform.conformance.operations import get_operation as get_operation
    from apconform.conformance.operations import operation as operation
    from apconform.conformance.operations import operation_names as operation_names
    from apconform.conformance.protocol import PROTOCOL_VERSION as PROTOCOL_VERSION
    from apconform.conformance.protocol import Reply as Reply
    from apconform.conformance.reports.formats import render as render
    from apconform.conformance.reports.formats import sign_report as sign_report
    from apconform.conformance.reports.formats import verify_report as verify_report
    from apconform.conformance.reports.formats import write_badges as write_badges
    from apconform.conformance.runner import CheckOptions as CheckOptions
    from apconform.conformance.runner import CheckRun as CheckRun
    from apconform.conformance.runner import run_check as run_check
    from apconform.conformance.vectors import LoadedVector as LoadedVector
    from apconform.conformance.vectors import load_vectors as load_vectors

__getattr__ = lazy_exports(__name__)
