"""Alembic's environment, run by Alembic only: migrate on the connection the ledger hands over."""

from __future__ import annotations

from alembic import context

from apconform.ledger.tables import VERSION_TABLE

connection = context.config.attributes["connection"]
context.configure(connection=connection, version_table=VERSION_TABLE, transactional_ddl=True)
with context.begin_transaction():
    context.run_migrations()
