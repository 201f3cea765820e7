"""PostgreSQL (psycopg 3): a table lock per append, an advisory lock for the schema.

An append locks the entries table in EXCLUSIVE mode inside its transaction:
other appends wait for the lock, plain reads go on. The head is read after
the lock is held, and READ COMMITTED gives each statement a fresh view, so
the next append always sees the one before it. Unique constraints on the
sequence number and on the previous digest make a fork impossible even if
the locking were bypassed.
"""

from __future__ import annotations

from sqlalchemy import create_engine, text
from sqlalchemy.engine import Connection, Engine

from apconform.ledger.location import LedgerLocation

__all__ = ["PostgresBackend"]

_SCHEMA_LOCK = 0x6170636F6E66  # "apconf": the advisory lock that serialises set-up


class PostgresBackend:
    name = "postgresql"

    def engine(self, location: LedgerLocation) -> Engine:
        return create_engine(location.url, pool_pre_ping=True, connect_args={"connect_timeout": 10})

    def begin_write(self, connection: Connection) -> None:
        """Nothing to mark: the locks are taken inside the transaction."""

    def lock_appends(self, connection: Connection) -> None:
        connection.execute(text("LOCK TABLE ledger_entries IN EXCLUSIVE MODE"))

    def lock_schema(self, connection: Connection) -> None:
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _SCHEMA_LOCK})
