"""Alembic migrations of the ledger's tables; run by :mod:`apconform.ledger.schema`."""
