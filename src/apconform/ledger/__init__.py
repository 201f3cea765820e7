"""The results ledger: an append-only, hash-chained store of conformance reports, AP-1 profiles
and APx results, in SQLite (a file) or PostgreSQL (a shared server).

Each entry holds a claim about one result (optionally signed, and dated), the
facts derived from its document, and the digest of the entry before; the
documents are stored apart, bound by their digests. Nothing is ever updated
or deleted: a correction is a new entry that supersedes an old one. This
package may import core, models, conformance and results; the CLI and the API
import it, never the reverse.

The public names load on first use, so commands that merely offer ``--ledger``
do not pay for SQLAlchemy and the models when no ledger is named.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from apconform.ledger.admission import Admission
    from apconform.ledger.chain import Verification, verify_ledger
    from apconform.ledger.claim import Submission, accept_submission, make_claim, prepare
    from apconform.ledger.derivation import document_facts, index_of
    from apconform.ledger.entry import StoredEntry
    from apconform.ledger.exchange import ImportSummary, export_records, import_records
    from apconform.ledger.info import describe_ledger
    from apconform.ledger.location import ENV_VAR, LedgerLocation, resolve_location
    from apconform.ledger.matrix import build_matrix, conformance_history, latest_profiles
    from apconform.ledger.store import EntryFilter, Head, Ledger

_HOMES = {
    "Admission": "admission",
    "ENV_VAR": "location",
    "EntryFilter": "store",
    "Head": "store",
    "ImportSummary": "exchange",
    "Ledger": "store",
    "LedgerLocation": "location",
    "StoredEntry": "entry",
    "Submission": "claim",
    "Verification": "chain",
    "accept_submission": "claim",
    "build_matrix": "matrix",
    "conformance_history": "matrix",
    "describe_ledger": "info",
    "document_facts": "derivation",
    "export_records": "exchange",
    "import_records": "exchange",
    "index_of": "derivation",
    "latest_profiles": "matrix",
    "make_claim": "claim",
    "prepare": "claim",
    "resolve_location": "location",
    "verify_ledger": "chain",
}

__all__ = [
    "ENV_VAR",
    "Admission",
    "EntryFilter",
    "Head",
    "ImportSummary",
    "Ledger",
    "LedgerLocation",
    "StoredEntry",
    "Submission",
    "Verification",
    "accept_submission",
    "build_matrix",
    "conformance_history",
    "describe_ledger",
    "document_facts",
    "export_records",
    "import_records",
    "index_of",
    "latest_profiles",
    "make_claim",
    "prepare",
    "resolve_location",
    "verify_ledger",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'apconform.ledger' has no attribute {name!r}")
    return getattr(importlib.import_module(f"apconform.ledger.{home}"), name)
