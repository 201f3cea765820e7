"""What a ledger is, without walking or upgrading it: ``apconform ledger info``.

The revision is read as stored, before anything could migrate it, so an
older ledger reports its own revision beside the one this release writes.
Alembic's own commands run the same migrations (:data:`ALEMBIC_CONFIG`).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from apconform.core.errors import ApconformError
from apconform.ledger.backends import backend_for
from apconform.ledger.errors import LEDGER_MISSING
from apconform.ledger.location import LedgerLocation, resolve_location
from apconform.ledger.schema import HEAD_REVISION, schema_revision
from apconform.ledger.store import Ledger, count_entries, head_of
from apconform.ledger.tables import documents

__all__ = ["ALEMBIC_CONFIG", "describe_ledger"]

ALEMBIC_CONFIG = Path(__file__).with_name("migrations") / "alembic.ini"
"""Alembic's configuration for the ledger's migrations:
``alembic -c ALEMBIC_CONFIG -x ledger=PATH-OR-URL current``."""


def describe_ledger(location: str | Path | LedgerLocation | None) -> dict[str, Any]:
    """The ``LedgerInfo`` of the ledger at ``location`` (default: ``APCONFORM_LEDGER``)."""
    where = location if isinstance(location, LedgerLocation) else resolve_location(location)
    if where.path is not None and not where.path.is_file():
        raise ApconformError(LEDGER_MISSING, f"there is no ledger file {where.path}")
    backend = backend_for(where)
    ledger = Ledger(where, backend.engine(where), backend, clock=_never)
    try:
        with ledger.reading() as connection:
            revision = schema_revision(connection)
            if revision is None:
                raise ApconformError(LEDGER_MISSING, f"{where.display()} holds no ledger")
            head = head_of(connection)
            count = count_entries(connection)
            stored = connection.execute(select(func.count()).select_from(documents)).scalar_one()
    finally:
        ledger.close()
    return {
        "location": where.display(),
        "backend": backend.name,
        "schemaRevision": revision,
        "releaseRevision": HEAD_REVISION,
        "headSeq": head.seq,
        "headSha256": head.digest,
        "entries": int(count),
        "documents": int(stored),
    }


def _never() -> datetime:
    raise AssertionError("describing a ledger appends nothing")
