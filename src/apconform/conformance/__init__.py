"""The conformance harness: clauses, vectors, adapters, the runner and its reports.

Public names only; the modules behind them may change.
"""

from apconform.conformance.adapters import Adapter, open_adapter
from apconform.conformance.clauses import ClauseIndex, load_clause_registry
from apconform.conformance.contracts import OperationContract, operation_contract
from apconform.conformance.manifest import VECTOR_TEST_PUBLIC_KEY, verify_manifest
from apconform.conformance.operations import get_operation, operation, operation_names
from apconform.conformance.protocol import PROTOCOL_VERSION, Reply
from apconform.conformance.reports import render, sign_report, verify_report, write_badges
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
    "OperationContract",
    "Reply",
    "get_operation",
    "load_clause_registry",
    "load_vectors",
    "open_adapter",
    "operation",
    "operation_contract",
    "operation_names",
    "render",
    "run_check",
    "sign_report",
    "verify_manifest",
    "verify_report",
    "write_badges",
]
