"""Editing a ledger behind its back, as someone with database access could: the triggers that
refuse UPDATE and DELETE are switched off first (dropped on SQLite, disabled on PostgreSQL)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text

from apconform.ledger import Ledger
from apconform.ledger.tables import LEDGER_TABLES


def tamper(ledger: Ledger, *statements: tuple[str, dict[str, Any]]) -> None:
    with ledger.engine.begin() as connection:
        if ledger.location.dialect == "sqlite":
            names = connection.execute(
                text("SELECT name FROM sqlite_master WHERE type = 'trigger'")
            ).scalars()
            for name in list(names):
                connection.execute(text(f"DROP TRIGGER {name}"))
        else:
            for table in LEDGER_TABLES:
                connection.execute(text(f"ALTER TABLE {table} DISABLE TRIGGER USER"))
        for statement, parameters in statements:
            connection.execute(text(statement), parameters)


def envelope(ledger: Ledger, seq: int) -> bytes:
    with ledger.engine.begin() as connection:
        value = connection.execute(
            text("SELECT envelope FROM ledger_entries WHERE seq = :seq"), {"seq": seq}
        ).scalar_one()
    return bytes(value)
