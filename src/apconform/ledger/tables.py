"""The ledger's tables, as SQLAlchemy Core metadata for queries (the migrations create them).

``ledger_entries`` holds one row per entry: the entry's canonical bytes and
digest, the link to the one before, and the facts in indexed columns. The
documents are stored once per digest in ``ledger_documents``, zlib-compressed
(their digest is of the canonical bytes, before compression). The other
tables index what one entry says about protocols, clauses and corrections.
Triggers refuse every UPDATE and DELETE on all of them.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)

__all__ = [
    "LEDGER_TABLES",
    "VERSION_TABLE",
    "clause_outcomes",
    "documents",
    "entries",
    "metadata",
    "protocols",
    "supersessions",
]

VERSION_TABLE = "ledger_schema_version"
"""Alembic's revision table, named for the ledger so it can share a database with others."""

metadata = MetaData()

entries = Table(
    "ledger_entries",
    metadata,
    Column("seq", BigInteger, primary_key=True, autoincrement=False),
    Column("entry_sha256", String(64), nullable=False, unique=True),
    Column("previous_sha256", String(64), unique=True),
    Column("recorded_at", String(40), nullable=False),
    Column("kind", String(32), nullable=False),
    Column("document_sha256", String(64), nullable=False),
    Column("signer_key_id", String(40)),
    Column("implementation_name", String(256), nullable=False),
    Column("implementation_version", String(256), nullable=False),
    Column("subject", Text, nullable=False),
    Column("model", Text),
    Column("verdict", String(64)),
    Column("run_date", String(40)),
    Column("origin_sha256", String(64)),
    Column("created_at", String(40)),
    Column("envelope", LargeBinary, nullable=False),
)

documents = Table(
    "ledger_documents",
    metadata,
    Column("document_sha256", String(64), primary_key=True),
    Column("body_zlib", LargeBinary, nullable=False),
)

protocols = Table(
    "ledger_protocols",
    metadata,
    Column("seq", BigInteger, primary_key=True, autoincrement=False),
    Column("protocol", String(16), primary_key=True),
    Column("verdict", String(16)),
)

clause_outcomes = Table(
    "ledger_clause_outcomes",
    metadata,
    Column("seq", BigInteger, primary_key=True, autoincrement=False),
    Column("clause", String(64), primary_key=True),
    Column("protocol", String(16), nullable=False),
    Column("level", String(8), nullable=False),
    Column("outcome", String(16), nullable=False),
    Column("cases", Integer, nullable=False),
)

supersessions = Table(
    "ledger_supersessions",
    metadata,
    Column("seq", BigInteger, primary_key=True, autoincrement=False),
    Column("superseded_sha256", String(64), primary_key=True),
)

LEDGER_TABLES = (
    "ledger_entries",
    "ledger_documents",
    "ledger_protocols",
    "ledger_clause_outcomes",
    "ledger_supersessions",
)
