"""Every ledger test runs twice: on an SQLite file and on a real PostgreSQL server.

The server is started once for the session (initdb and pg_ctl in a temporary
folder, see tests/postgres_support.py); each test gets its own database.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from postgres_support import PostgresServer, running_postgres

from apconform.ledger import Ledger


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    with running_postgres() as server:
        yield server


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty ledger location on each backend."""
    if request.param == "sqlite":
        return str(tmp_path / "ledger.db")
    server: PostgresServer = request.getfixturevalue("postgres")
    return server.create_database()


class Ticks:
    """A clock that moves one second per reading, from a fixed start: deterministic entries."""

    def __init__(self, start: datetime = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC)) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


@pytest.fixture
def ledger(location: str) -> Iterator[Ledger]:
    with Ledger.open(location, create=True, clock=Ticks()) as opened:
        yield opened
