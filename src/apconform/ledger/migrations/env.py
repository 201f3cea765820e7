"""Alembic's environment: always run on the connection the ledger hands over, never from a URL."""

from __future__ import annotations

from alembic import context

from apconform.ledger.tables import VERSION_TABLE

connection = context.config.attributes["connection"]
context.configure(connection=connection, version_table=VERSION_TABLE, transactional_ddl=True)
with context.begin_transaction():
    context.run_migrations()
