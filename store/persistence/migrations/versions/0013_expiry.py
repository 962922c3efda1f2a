"""When what the assistant concluded about someone stops being kept.

- `organisation_expiry`: an organisation's lifetime for what the assistant concludes about its people,
  in days since the person last confirmed it or the assistant last wrote it (None: kept until forgotten).
- `agent_memory.confirmed_at`: when the person last asked to keep the memory (None: never asked).
- `agent_memory.expires_at`: when the memory leaves every prompt (None: never), indexed for pruning.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from store.persistence.types import UtcDateTime

revision = "0013"
down_revision = "0012"


def upgrade() -> None:
    op.create_table(
        "organisation_expiry",
        sa.Column("tenant_ref", sa.Text(), nullable=False),
        sa.Column("concluded_lifetime_days", sa.Integer(), nullable=True),
        sa.Column("changed_at", UtcDateTime(), nullable=False),
        sa.Column("changed_by", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("tenant_ref", name=op.f("pk_organisation_expiry")),
    )
    op.add_column("agent_memory", sa.Column("confirmed_at", UtcDateTime(), nullable=True))
    op.add_column("agent_memory", sa.Column("expires_at", UtcDateTime(), nullable=True))
    op.create_index(op.f("ix_agent_memory_expires_at"), "agent_memory", ["expires_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_agent_memory_expires_at"), table_name="agent_memory")
    op.execute("ALTER TABLE agent_memory DROP COLUMN expires_at")
    op.execute("ALTER TABLE agent_memory DROP COLUMN confirmed_at")
    op.drop_table("organisation_expiry")
