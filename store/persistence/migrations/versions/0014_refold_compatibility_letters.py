"""A search folds letters that have no case of their own (𝐁, ℍ, Ⓐ) to lower case too: each row's
`agent_memory.folded_words` and `sort_key` are recomputed where they change.

A word was case-folded before its compatibility decomposition (`store.domain.finding.fold`), so 𝐁𝐨𝐥𝐝
was stored as "Bold" while a search for it asked for "bold": SQLite's `LIKE` found it anyway, ignoring
ASCII case, and PostgreSQL's did not. Only the rows whose columns come out differently (a row of plain text
never does) are written (`recompute_columns`).

The downgrade leaves the columns as they are: the earlier rule finds a lower-cased row exactly as it
found one stored in capitals on SQLite, and on PostgreSQL it finds the rows it would find anyway.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-07
"""

from __future__ import annotations

from alembic import op

from store.domain.finding import folded_memory, sort_key
from store.persistence.migrations.recompute import recompute_columns

revision = "0014"
down_revision = "0013"


def upgrade() -> None:
    recompute_columns(
        op.get_bind(),
        ("key", "text"),
        ("folded_words", "sort_key"),
        lambda key, text: (folded_memory(key, text), sort_key(key)),
    )


def downgrade() -> None:
    pass
