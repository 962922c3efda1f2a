"""When each memory went into a person's prompts, kept past the journal's retention: `memory_use_count`,
one row per (person, memory, day) with how many of their turns were offered it that day, when last,
and in which conversation.

Pruning the run journal folds the offered memories of the runs it drops into these counts before their
checkpoints go; the counts hold ids and numbers, never a memory's text.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from store.persistence.types import UtcDateTime

revision = "0012"
down_revision = "0011"


def upgrade() -> None:
    op.create_table(
        "memory_use_count",
        sa.Column("person_id", sa.Text(), nullable=False),
        sa.Column("memory_id", sa.Text(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.Column("last_used_at", UtcDateTime(), nullable=False),
        sa.Column("last_thread_id", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("person_id", "memory_id", "day", name=op.f("pk_memory_use_count")),
    )


def downgrade() -> None:
    op.drop_table("memory_use_count")
