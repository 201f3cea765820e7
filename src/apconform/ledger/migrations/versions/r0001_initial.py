"""The first ledger schema: entries, documents, protocol and clause indexes, corrections.

Every table refuses UPDATE and DELETE through a trigger, on SQLite and on
PostgreSQL alike: the ledger only ever inserts.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "r0001"
down_revision = None
branch_labels = None
depends_on = None

_TABLES = (
    "ledger_entries",
    "ledger_documents",
    "ledger_protocols",
    "ledger_clause_outcomes",
    "ledger_supersessions",
)


def _create_tables() -> None:
    op.create_table(
        "ledger_entries",
        sa.Column("seq", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("entry_sha256", sa.String(64), nullable=False, unique=True),
        sa.Column("previous_sha256", sa.String(64), unique=True),
        sa.Column("recorded_at", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("document_sha256", sa.String(64), nullable=False),
        sa.Column("signer_key_id", sa.String(40)),
        sa.Column("implementation_name", sa.String(256), nullable=False),
        sa.Column("implementation_version", sa.String(256), nullable=False),
        sa.Column("subject", sa.Text, nullable=False),
        sa.Column("model", sa.Text),
        sa.Column("verdict", sa.String(64)),
        sa.Column("run_date", sa.String(40)),
        sa.Column("origin_sha256", sa.String(64)),
        sa.Column("envelope", sa.LargeBinary, nullable=False),
        sa.CheckConstraint(
            "(seq = 1 AND previous_sha256 IS NULL) OR (seq > 1 AND previous_sha256 IS NOT NULL)",
            name="ledger_entries_link",
        ),
    )
    for column in ("implementation_name", "kind", "model", "verdict", "run_date"):
        op.create_index(f"ix_ledger_entries_{column}", "ledger_entries", [column])
    op.create_index("ix_ledger_entries_origin", "ledger_entries", ["origin_sha256"])
    op.create_table(
        "ledger_documents",
        sa.Column("document_sha256", sa.String(64), primary_key=True),
        sa.Column("body_zlib", sa.LargeBinary, nullable=False),
    )
    op.create_table(
        "ledger_protocols",
        sa.Column("seq", sa.BigInteger, sa.ForeignKey("ledger_entries.seq"), primary_key=True),
        sa.Column("protocol", sa.String(16), primary_key=True),
        sa.Column("verdict", sa.String(16)),
    )
    op.create_index("ix_ledger_protocols_protocol", "ledger_protocols", ["protocol", "seq"])
    op.create_table(
        "ledger_clause_outcomes",
        sa.Column("seq", sa.BigInteger, sa.ForeignKey("ledger_entries.seq"), primary_key=True),
        sa.Column("clause", sa.String(64), primary_key=True),
        sa.Column("protocol", sa.String(16), nullable=False),
        sa.Column("level", sa.String(8), nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("cases", sa.Integer, nullable=False),
    )
    op.create_table(
        "ledger_supersessions",
        sa.Column("seq", sa.BigInteger, sa.ForeignKey("ledger_entries.seq"), primary_key=True),
        sa.Column("superseded_sha256", sa.String(64), primary_key=True),
    )
    op.create_index(
        "ix_ledger_supersessions_superseded", "ledger_supersessions", ["superseded_sha256"]
    )


def _sqlite_triggers() -> None:
    for table in _TABLES:
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: {action} refused'); END"
            )


def _postgres_triggers() -> None:
    op.execute(
        "CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ "
        "BEGIN RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP; END $$"
    )
    for table in _TABLES:
        op.execute(
            f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE OR TRUNCATE "
            f"ON {table} FOR EACH STATEMENT EXECUTE FUNCTION ledger_append_only()"
        )


def upgrade() -> None:
    _create_tables()
    if op.get_context().dialect.name == "postgresql":
        _postgres_triggers()
    else:
        _sqlite_triggers()
