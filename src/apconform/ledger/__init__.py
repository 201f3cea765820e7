"""The results ledger: an append-only, hash-chained store of conformance reports, AP-1 profiles
and APx results, in SQLite (a file) or PostgreSQL (a shared server).

Each entry holds a claim about one result (optionally signed), the facts read
from it, and the digest of the entry before; the documents are stored apart,
bound by their digests. Nothing is ever updated or deleted: a correction is a
new entry that supersedes an old one. This package may import core, models,
conformance and results; the CLI and the API import it, never the reverse.
"""

from apconform.ledger.chain import Verification, verify_ledger
from apconform.ledger.claim import Submission, accept_submission, make_claim, prepare
from apconform.ledger.entry import StoredEntry
from apconform.ledger.exchange import ImportSummary, export_records, import_records
from apconform.ledger.location import ENV_VAR, LedgerLocation, resolve_location
from apconform.ledger.store import EntryFilter, Head, Ledger

__all__ = [
    "ENV_VAR",
    "EntryFilter",
    "Head",
    "ImportSummary",
    "Ledger",
    "LedgerLocation",
    "StoredEntry",
    "Submission",
    "Verification",
    "accept_submission",
    "export_records",
    "import_records",
    "make_claim",
    "prepare",
    "resolve_location",
    "verify_ledger",
]
