"""Each person seen keeps the name their identity provider gave at their last login: `known_person.name`.

Empty for the people already seen, and for anyone seen only in agent calls, until they log in: a page
names them by their id until then. An agent call knows no name and leaves the column as it is. The
name lives in the person's own row, so their erasure, which deletes the row, deletes the name too.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"


def upgrade() -> None:
    op.add_column("known_person", sa.Column("name", sa.Text(), nullable=True))


def downgrade() -> None:
    op.execute("ALTER TABLE known_person DROP COLUMN name")
