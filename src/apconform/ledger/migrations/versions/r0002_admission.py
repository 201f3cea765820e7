"""What the admission rules read: when each claim was made, and indexes by document and slot.

Each append now looks up whether the ledger already holds the document, and
the latest result and the last signer of the result's slot (its kind and
subject); ``created_at`` is the claim's ``createdAt`` (null for claims made
before claims were dated, as every row this migration finds), so the order
check reads no entry's bytes. Without the indexes each lookup would read
every entry. PostgreSQL indexes the subject by hash (a B-tree entry cannot
hold a long subject); SQLite has no such bound.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "r0002"
down_revision = "r0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("ledger_entries", sa.Column("created_at", sa.String(40)))
    op.create_index("ix_ledger_entries_document", "ledger_entries", ["document_sha256"])
    if op.get_context().dialect.name == "postgresql":
        op.create_index(
            "ix_ledger_entries_subject", "ledger_entries", ["subject"], postgresql_using="hash"
        )
    else:
        op.create_index("ix_ledger_entries_slot", "ledger_entries", ["kind", "subject", "seq"])
