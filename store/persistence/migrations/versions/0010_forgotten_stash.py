"""What a person just forgot, kept for its undo: `forgotten_stash`, one row per act of forgetting.

The row holds the forgotten records encrypted with a key that is never stored here: only the person's
browser holds it, in the notice that offers the undo. Without that key the row reads as nothing, and
housekeeping deletes it once the undo window has passed; a person's erasure deletes theirs at once.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from store.persistence.types import UtcDateTime

revision = "0010"
down_revision = "0009"


def upgrade() -> None:
    op.create_table(
        "forgotten_stash",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("owner", sa.Text(), nullable=False),
        sa.Column("created_at", UtcDateTime(), nullable=False),
        sa.Column("sealed", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_forgotten_stash")),
    )
    op.create_index(op.f("ix_forgotten_stash_owner"), "forgotten_stash", ["owner"])
    op.create_index(op.f("ix_forgotten_stash_created_at"), "forgotten_stash", ["created_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_forgotten_stash_created_at"), table_name="forgotten_stash")
    op.drop_index(op.f("ix_forgotten_stash_owner"), table_name="forgotten_stash")
    op.drop_table("forgotten_stash")
