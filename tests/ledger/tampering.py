"""Editing a ledger behind its back, as someone with database access could: the triggers that
refuse UPDATE and DELETE are switched off first (dropped on SQLite, disabled on PostgreSQL).
And forging a copy: an export whose entry was rewritten and whose chain was re-hashed, handed
over as a file or as a ledger database."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import text

from apconform.core.canonical import canonical_bytes, sha256_bytes
from apconform.ledger import Ledger
from apconform.ledger.entry import StoredEntry
from apconform.ledger.store import insert_entry
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


def forge_export(
    lines: list[bytes], seq: int, edit: Callable[[dict[str, Any]], None]
) -> list[bytes]:
    """Edit entry ``seq`` of an export and re-hash the chain from it on, as anyone holding a
    copy can: the chain itself is signed by nobody, only each entry's claim is."""
    out, previous = [], None
    for raw in lines:
        record = json.loads(raw)
        entry = record["entry"]
        if entry["seq"] == seq:
            edit(entry)
        if previous is not None:
            entry["previous"] = previous
        previous = record["entrySha256"] = sha256_bytes(canonical_bytes(entry))
        out.append(json.dumps(record).encode("utf-8"))
    return out


def forged_ledger(location: str | Path, lines: list[bytes]) -> None:
    """Hand over an export as a ledger database, as the holder of a copy can: every row goes in
    as the export says, consistently (entry, columns, index rows), with no check at all."""
    with Ledger.open(location, create=True) as ledger, ledger.appending() as connection:
        for raw in lines:
            record = json.loads(raw)
            data = canonical_bytes(record["entry"])
            stored = StoredEntry(record["entry"], data, sha256_bytes(data))
            superseded = record["entry"]["claim"].get("supersedes", [])
            insert_entry(connection, stored, canonical_bytes(record["document"]), superseded)


def pass_as(name: str) -> Callable[[dict[str, Any]], None]:
    """An edit that makes an entry's index say ``name`` passed every clause."""

    def edit(entry: dict[str, Any]) -> None:
        index = entry["index"]
        index["subject"] = index["implementation"]["name"] = name
        index["verdict"] = "pass"
        index["verdicts"] = [{**v, "verdict": "pass"} for v in index["verdicts"]]
        index["clauses"] = [{**c, "outcome": "pass"} for c in index["clauses"]]

    return edit
