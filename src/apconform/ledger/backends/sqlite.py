"""SQLite: one file, write-ahead log, and BEGIN IMMEDIATE for every write transaction.

Python's sqlite3 module opens transactions lazily and in DEFERRED mode, so
two processes could both read the head and then race to append. Here the
driver's own transaction handling is switched off and every write
transaction starts with BEGIN IMMEDIATE, which takes the database's write
lock before the head is read; other writers wait (up to the busy timeout).
Readers are never blocked: the write-ahead log lets them read the last
committed state.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Connection, Engine

from apconform.ledger.location import LedgerLocation

__all__ = ["BUSY_TIMEOUT_SECONDS", "SqliteBackend"]

BUSY_TIMEOUT_SECONDS = 120.0
_WRITE = "apconform_write"


class SqliteBackend:
    name = "sqlite"

    def engine(self, location: LedgerLocation) -> Engine:
        engine = create_engine(location.url, connect_args={"timeout": BUSY_TIMEOUT_SECONDS})

        @event.listens_for(engine, "connect")
        def _connect(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None  # we say BEGIN ourselves
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=FULL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _begin(connection: Connection) -> None:
            write = connection.get_execution_options().get(_WRITE, False)
            connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

        return engine

    def begin_write(self, connection: Connection) -> None:
        connection.execution_options(**{_WRITE: True})

    def lock_appends(self, connection: Connection) -> None:
        """BEGIN IMMEDIATE already holds the write lock."""

    def lock_schema(self, connection: Connection) -> None:
        """BEGIN IMMEDIATE already holds the write lock."""
