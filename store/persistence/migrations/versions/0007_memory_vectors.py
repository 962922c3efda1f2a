"""Each memory keeps its meaning as a vector beside it: `agent_memory.embedding` and `embedder`.

Both are empty for the rows already stored: `onfile db reembed` fills them (a turn ranks the rows
without a vector by their words, and fills what room is left in listed order, until then). The vector
lives in the memory's own row, so every delete of a memory, on every path, deletes its vector too.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"


def upgrade() -> None:
    op.add_column("agent_memory", sa.Column("embedding", sa.LargeBinary(), nullable=True))
    op.add_column("agent_memory", sa.Column("embedder", sa.Text(), nullable=True))


def downgrade() -> None:
    op.execute("ALTER TABLE agent_memory DROP COLUMN embedder")
    op.execute("ALTER TABLE agent_memory DROP COLUMN embedding")
