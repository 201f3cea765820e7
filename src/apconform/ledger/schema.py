"""Creating and upgrading a ledger's tables with Alembic, safely from several processes at once.

Opening a ledger reads its revision first (a plain read); only a ledger that
is new or behind takes the schema lock and runs the migrations, inside one
transaction, so a half-created ledger never exists. A database written by a
newer release is refused rather than guessed at.
"""

from __future__ import annotations

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine

from apconform.core.errors import ApconformError
from apconform.ledger.backends import Backend
from apconform.ledger.errors import LEDGER_MISSING, LEDGER_SCHEMA
from apconform.ledger.tables import VERSION_TABLE

__all__ = ["HEAD_REVISION", "prepare_schema", "schema_revision"]

HEAD_REVISION = "r0002"
_KNOWN = ("r0001", "r0002")


def _revision(connection: Connection) -> str | None:
    """The ledger's Alembic revision; None for a database without ledger tables."""
    names = set(inspect(connection).get_table_names())
    if VERSION_TABLE not in names:
        if "ledger_entries" in names:
            raise ApconformError(
                LEDGER_SCHEMA, "the database has ledger tables but no schema version table"
            )
        return None
    rows = connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).all()
    if len(rows) != 1:
        raise ApconformError(LEDGER_SCHEMA, f"{VERSION_TABLE} holds {len(rows)} rows, not 1")
    return str(rows[0][0])


def schema_revision(connection: Connection) -> str | None:
    """The ledger's schema revision as stored (None for a database without ledger tables)."""
    return _revision(connection)


def _check_known(revision: str | None) -> None:
    if revision is not None and revision not in _KNOWN:
        raise ApconformError(
            LEDGER_SCHEMA,
            f"the ledger's schema is at revision {revision!r}, which this release "
            f"(head {HEAD_REVISION!r}) does not know",
        )


def _upgrade(connection: Connection) -> None:
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", "apconform.ledger:migrations")
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


def prepare_schema(engine: Engine, backend: Backend, *, create: bool, where: str) -> None:
    """Make sure the tables exist at the head revision (creating them only when ``create``)."""
    with engine.connect() as connection, connection.begin():
        revision = _revision(connection)
    _check_known(revision)
    if revision == HEAD_REVISION:
        return
    if revision is None and not create:
        raise ApconformError(LEDGER_MISSING, f"{where} holds no ledger")
    with engine.connect() as connection:
        backend.begin_write(connection)
        with connection.begin():
            backend.lock_schema(connection)
            revision = _revision(connection)  # another process may have done it meanwhile
            _check_known(revision)
            if revision != HEAD_REVISION:
                _upgrade(connection)
