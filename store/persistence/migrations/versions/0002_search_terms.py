"""The full-text index holds a digest per (scope, word), never the words: `agent_memory.search_terms`.

Both backends index the new column (`store.persistence.terms`): SQLite's `memory_fts` is rebuilt
over it, PostgreSQL's `search_vector` is generated from it. Existing rows get their terms here.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from store.persistence.migrations.search_machinery import (
    DROP_FTS,
    DROP_SEARCH_VECTOR,
    TERMS_FTS,
    TERMS_FTS_FILL,
    TERMS_FTS_TRIGGERS,
    WORDS_FTS,
    WORDS_FTS_FILL,
    WORDS_FTS_TRIGGERS,
    WORDS_SEARCH_VECTOR,
    for_each_backend,
)
from store.persistence.migrations.search_terms import recompute_search_terms
from store.persistence.terms import index_terms

revision = "0002"
down_revision = "0001"

# PostgreSQL's search_vector, generated from the terms.
SEARCH_VECTOR = [
    """ALTER TABLE agent_memory ADD COLUMN search_vector tsvector
        GENERATED ALWAYS AS (to_tsvector('simple', search_terms)) STORED""",
    "CREATE INDEX ix_agent_memory_search_vector ON agent_memory USING gin (search_vector)",
]


def upgrade() -> None:
    for_each_backend(sqlite=DROP_FTS, postgresql=DROP_SEARCH_VECTOR)
    op.add_column("agent_memory", sa.Column("search_terms", sa.Text(), server_default="", nullable=False))
    recompute_search_terms(op.get_bind(), index_terms)  # every row's column is new: every row is written
    for_each_backend(sqlite=[TERMS_FTS, TERMS_FTS_FILL, *TERMS_FTS_TRIGGERS], postgresql=SEARCH_VECTOR)


def downgrade() -> None:
    """Back to revision 0001's machinery: the words themselves, and on SQLite the scope as a token."""
    for_each_backend(sqlite=DROP_FTS, postgresql=DROP_SEARCH_VECTOR)
    op.execute("ALTER TABLE agent_memory DROP COLUMN search_terms")
    for_each_backend(sqlite=[WORDS_FTS, WORDS_FTS_FILL, *WORDS_FTS_TRIGGERS], postgresql=WORDS_SEARCH_VECTOR)
