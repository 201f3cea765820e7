"""Alembic's environment: migrate on the connection the ledger hands over, or on the ledger
that Alembic's own commands name.

Opening a ledger runs the migrations itself and passes its connection (which
already holds the schema lock). Run by hand, as in

    alembic -c "$(apconform ledger info --alembic-config)" -x ledger=results.db current

the ledger comes from ``-x ledger=PATH-OR-URL``, else the configuration's
``sqlalchemy.url``, else ``APCONFORM_LEDGER``; writing commands (upgrade,
stamp) take the same schema lock as a ledger being opened, so they never race
an apconform process. ``--sql`` (offline) writes the statements instead.
"""

from __future__ import annotations

from alembic import context
from alembic.util import CommandError
from sqlalchemy.engine import Connection

from apconform.ledger.tables import VERSION_TABLE


def _location() -> str | None:
    return context.get_x_argument(as_dictionary=True).get(
        "ledger"
    ) or context.config.get_main_option("sqlalchemy.url")


def _run_on_connection(connection: Connection) -> None:
    context.configure(connection=connection, version_table=VERSION_TABLE, transactional_ddl=True)
    with context.begin_transaction():
        context.run_migrations()


def _run_by_hand() -> None:
    import os

    from apconform.ledger.backends import backend_for
    from apconform.ledger.location import ENV_VAR, resolve_location
    from apconform.ledger.store import database_errors

    named = _location()
    if not named and not os.environ.get(ENV_VAR, "").strip():
        raise CommandError(
            f"no ledger given: pass -x ledger=PATH-OR-URL (or set sqlalchemy.url in the "
            f"configuration, or {ENV_VAR})"
        )
    where = resolve_location(named)
    if context.is_offline_mode():
        context.configure(
            url=where.url.render_as_string(hide_password=False),
            version_table=VERSION_TABLE,
            transactional_ddl=True,
            literal_binds=True,
        )
        with context.begin_transaction():
            context.run_migrations()
        return
    backend = backend_for(where)
    engine = backend.engine(where)
    try:
        with database_errors(where), engine.connect() as connection:
            backend.begin_write(connection)
            with connection.begin():
                backend.lock_schema(connection)
                _run_on_connection(connection)
    finally:
        engine.dispose()


handed = context.config.attributes.get("connection")
if handed is not None:
    _run_on_connection(handed)
else:
    from apconform.core.errors import ApconformError

    try:
        _run_by_hand()
    except ApconformError as error:  # Alembic prints a CommandError as one line, no traceback
        raise CommandError(str(error)) from None
