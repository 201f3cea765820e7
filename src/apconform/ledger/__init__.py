"""The results ledger: an append-only, hash-chained store of conformance reports, AP-1 profiles
and APx results, in SQLite (a file) or PostgreSQL (a shared server).

Each entry holds a claim about one result (optionally signed, and dated), the
facts derived from its document, and the digest of the entry before; the
documents are stored apart, bound by their digests. Nothing is ever updated
or deleted: a correction is a new entry that supersedes an old one. This
package may import core, models and results; the CLI, the API and the results
site import it, never the reverse.

The public names load on first use, so commands that merely offer ``--ledger``
do not pay for SQLAlchemy and the models when no ledger is named.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ledger.admission import Admission as Admission
    from apconform.ledger.chain import Verification as Verification
    from apconform.ledger.chain import verify_ledger as verify_ledger
    from apconform.ledger.claim import Submission as Submission
    from apconform.ledger.claim import accept_submission as accept_submission
    from apconform.ledger.claim import make_claim as make_claim
    from apconform.ledger.claim import prepare as prepare
    from apconform.ledger.derivation import document_facts as document_facts
    from apconform.ledger.derivation import index_of as index_of
    from apconform.ledger.entry import StoredEntry as StoredEntry
    from apconform.ledger.exchange import ImportSummary as ImportSummary
    from apconform.ledger.exchange import export_records as export_records
    from apconform.ledger.exchange import import_records as import_records
    from apconform.ledger.info import describe_ledger as describe_ledger
    from apconform.ledger.location import ENV_VAR as ENV_VAR
    from apconform.ledger.location import LedgerLocation as LedgerLocation
    from apconform.ledger.location import resolve_location as resolve_location
    from apconform.ledger.matrix import build_matrix as build_matrix
    from apconform.ledger.matrix import conformance_history as conformance_history
    from apconform.ledger.matrix import latest_profiles as latest_profiles
    from apconform.ledger.store import EntryFilter as EntryFilter
    from apconform.ledger.store import Head as Head
    from apconform.ledger.store import Ledger as Ledger

__getattr__ = lazy_exports(__name__)
