"""The backend seam and the choice of backend for a location."""

from __future__ import annotations

from typing import Protocol

from sqlalchemy.engine import Connection, Engine

from apconform.ledger.location import LedgerLocation

__all__ = ["Backend", "backend_for"]


class Backend(Protocol):
    """What differs between SQLite and PostgreSQL."""

    name: str

    def engine(self, location: LedgerLocation) -> Engine:
        """An engine whose write transactions can be told apart (see ``begin_write``)."""
        ...

    def begin_write(self, connection: Connection) -> None:
        """Mark ``connection`` so its next transaction takes the write lock at BEGIN."""
        ...

    def lock_appends(self, connection: Connection) -> None:
        """Inside a write transaction: wait until no other append runs, then hold it off."""
        ...

    def lock_schema(self, connection: Connection) -> None:
        """Inside a write transaction: serialise creating or upgrading the tables."""
        ...


def backend_for(location: LedgerLocation) -> Backend:
    if location.dialect == "sqlite":
        from apconform.ledger.backends.sqlite import SqliteBackend

        return SqliteBackend()
    from apconform.ledger.backends.postgresql import PostgresBackend

    return PostgresBackend()
