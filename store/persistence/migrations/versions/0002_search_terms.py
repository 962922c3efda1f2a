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

from store.persistence.migrations.search_terms import recompute_search_terms
from store.persistence.terms import index_terms

revision = "0002"
down_revision = "0001"

_TRIGGERS = ("agent_memory_fts_insert", "agent_memory_fts_delete", "agent_memory_fts_update")

# Terms are letters only, so the plain ASCII tokenizer keeps each one whole; the table is contentless
# (it stores no copy of the terms), so a delete names the terms it removes: the old row's.
SQLITE_SEARCH = [
    "CREATE VIRTUAL TABLE memory_fts USING fts5(terms, content = '', tokenize = 'ascii')",
    "INSERT INTO memory_fts (rowid, terms) SELECT seq, search_terms FROM agent_memory",
    """CREATE TRIGGER agent_memory_fts_insert AFTER INSERT ON agent_memory BEGIN
        INSERT INTO memory_fts (rowid, terms) VALUES (new.seq, new.search_terms);
    END""",
    """CREATE TRIGGER agent_memory_fts_delete AFTER DELETE ON agent_memory BEGIN
        INSERT INTO memory_fts (memory_fts, rowid, terms) VALUES ('delete', old.seq, old.search_terms);
    END""",
    """CREATE TRIGGER agent_memory_fts_update AFTER UPDATE OF search_terms ON agent_memory BEGIN
        INSERT INTO memory_fts (memory_fts, rowid, terms) VALUES ('delete', old.seq, old.search_terms);
        INSERT INTO memory_fts (rowid, terms) VALUES (new.seq, new.search_terms);
    END""",
]

POSTGRESQL_SEARCH = [
    """ALTER TABLE agent_memory ADD COLUMN search_vector tsvector
        GENERATED ALWAYS AS (to_tsvector('simple', search_terms)) STORED""",
    "CREATE INDEX ix_agent_memory_search_vector ON agent_memory USING gin (search_vector)",
]

# Revision 0001's machinery, for the downgrade: the words themselves, and on SQLite the scope as a token.
SQLITE_WORDS = [
    """CREATE VIRTUAL TABLE memory_fts USING fts5(
        key, text, scope_token,
        content = '',
        tokenize = "unicode61 remove_diacritics 0 categories 'L* N*' tokenchars '_'"
    )""",
    """INSERT INTO memory_fts (rowid, key, text, scope_token)
        SELECT seq, key, text, 's' || lower(hex(scope)) FROM agent_memory""",
    """CREATE TRIGGER agent_memory_fts_insert AFTER INSERT ON agent_memory BEGIN
        INSERT INTO memory_fts (rowid, key, text, scope_token)
        VALUES (new.seq, new.key, new.text, 's' || lower(hex(new.scope)));
    END""",
    """CREATE TRIGGER agent_memory_fts_delete AFTER DELETE ON agent_memory BEGIN
        INSERT INTO memory_fts (memory_fts, rowid, key, text, scope_token)
        VALUES ('delete', old.seq, old.key, old.text, 's' || lower(hex(old.scope)));
    END""",
    """CREATE TRIGGER agent_memory_fts_update AFTER UPDATE OF key, text, scope ON agent_memory BEGIN
        INSERT INTO memory_fts (memory_fts, rowid, key, text, scope_token)
        VALUES ('delete', old.seq, old.key, old.text, 's' || lower(hex(old.scope)));
        INSERT INTO memory_fts (rowid, key, text, scope_token)
        VALUES (new.seq, new.key, new.text, 's' || lower(hex(new.scope)));
    END""",
]

POSTGRESQL_WORDS = [
    """ALTER TABLE agent_memory ADD COLUMN search_vector tsvector
        GENERATED ALWAYS AS (to_tsvector('simple', key || ' ' || text)) STORED""",
    "CREATE INDEX ix_agent_memory_search_vector ON agent_memory USING gin (search_vector)",
]


def _drop_search(dialect: str) -> None:
    if dialect == "sqlite":
        for trigger in _TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {trigger}")
        op.execute("DROP TABLE IF EXISTS memory_fts")
    elif dialect == "postgresql":
        op.execute("DROP INDEX IF EXISTS ix_agent_memory_search_vector")
        op.execute("ALTER TABLE agent_memory DROP COLUMN IF EXISTS search_vector")


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    _drop_search(dialect)
    op.add_column("agent_memory", sa.Column("search_terms", sa.Text(), server_default="", nullable=False))
    recompute_search_terms(op.get_bind(), index_terms)  # every row's column is new: every row is written
    for statement in SQLITE_SEARCH if dialect == "sqlite" else POSTGRESQL_SEARCH if dialect == "postgresql" else []:
        op.execute(statement)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    _drop_search(dialect)
    op.execute("ALTER TABLE agent_memory DROP COLUMN search_terms")
    for statement in SQLITE_WORDS if dialect == "sqlite" else POSTGRESQL_WORDS if dialect == "postgresql" else []:
        op.execute(statement)
