"""The search machinery the revisions build and take down, each generation as the revision that built
it did, so that a later revision's downgrade restores exactly that. Frozen: a revision that changes
the machinery adds a generation here; it never edits one.

Revision 0001 indexed the words themselves (SQLite: FTS5 with the scope as a token; PostgreSQL: a
`search_vector` generated from key and text); revision 0002 indexed `search_terms` instead (FTS5 and
a `search_vector` over the terms); revision 0003 made FTS5 merge pairs of segments; revision 0004
replaced FTS5 with postings, on SQLite only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import sqlalchemy as sa
from alembic import op

__all__ = (
    "DROP_FTS",
    "DROP_SEARCH_VECTOR",
    "FTS_MERGING",
    "FTS_TRIGGERS",
    "TERMS_FTS",
    "TERMS_FTS_FILL",
    "TERMS_FTS_TRIGGERS",
    "WORDS_FTS",
    "WORDS_FTS_FILL",
    "WORDS_FTS_TRIGGERS",
    "WORDS_SEARCH_VECTOR",
    "configure_fts_merging",
    "for_each_backend",
    "merge_what_fts_stores",
)


def for_each_backend(*, sqlite: Sequence[str] = (), postgresql: Sequence[str] = ()) -> None:
    """Run the statements written for the connected backend, in order; any other backend runs none."""
    dialect = op.get_bind().dialect.name
    for statement in sqlite if dialect == "sqlite" else postgresql if dialect == "postgresql" else ():
        op.execute(statement)


FTS_TRIGGERS = ("agent_memory_fts_insert", "agent_memory_fts_delete", "agent_memory_fts_update")
"""The triggers that kept FTS5's `memory_fts` in step, in both of its generations."""

DROP_FTS = [*(f"DROP TRIGGER IF EXISTS {trigger}" for trigger in FTS_TRIGGERS), "DROP TABLE IF EXISTS memory_fts"]
DROP_SEARCH_VECTOR = [
    "DROP INDEX IF EXISTS ix_agent_memory_search_vector",
    "ALTER TABLE agent_memory DROP COLUMN IF EXISTS search_vector",
]

# Revision 0001's, over the words. FTS5 tokens are what `store.persistence.search.query_words` called
# words then: letters, digits and the underscore, with diacritics kept, so "über" and "uber" stay
# different words as they did there.
WORDS_FTS = """CREATE VIRTUAL TABLE memory_fts USING fts5(
        key, text, scope_token,
        content = '',
        tokenize = "unicode61 remove_diacritics 0 categories 'L* N*' tokenchars '_'"
    )"""
WORDS_FTS_FILL = """INSERT INTO memory_fts (rowid, key, text, scope_token)
        SELECT seq, key, text, 's' || lower(hex(scope)) FROM agent_memory"""
WORDS_FTS_TRIGGERS = [
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
WORDS_SEARCH_VECTOR = [
    """ALTER TABLE agent_memory ADD COLUMN search_vector tsvector
        GENERATED ALWAYS AS (to_tsvector('simple', key || ' ' || text)) STORED""",
    "CREATE INDEX ix_agent_memory_search_vector ON agent_memory USING gin (search_vector)",
]

# Revision 0002's, over `search_terms`. Terms are letters only, so the plain ASCII tokenizer keeps each
# one whole; the table is contentless (it stores no copy of the terms), so a delete names the terms it
# removes: the old row's.
TERMS_FTS = "CREATE VIRTUAL TABLE memory_fts USING fts5(terms, content = '', tokenize = 'ascii')"
TERMS_FTS_FILL = "INSERT INTO memory_fts (rowid, terms) SELECT seq, search_terms FROM agent_memory"
TERMS_FTS_TRIGGERS = [
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

FTS_MERGING = {"automerge": 2, "crisismerge": 4, "usermerge": 2}
"""Revision 0003's merge settings for `memory_fts` (that revision says why)."""


def configure_fts_merging(settings: Mapping[str, int]) -> None:
    for name, value in settings.items():
        op.get_bind().execute(
            sa.text("INSERT INTO memory_fts (memory_fts, rank) VALUES (:name, :value)"), {"name": name, "value": value}
        )


def merge_what_fts_stores() -> None:
    """Merge `memory_fts` until a merge finds nothing to do (it then changes fewer than two rows, as
    FTS5's documentation says); bounded, because the writes that follow would finish it anyway."""
    bind = op.get_bind()
    changes = sa.text("SELECT total_changes()")
    for _ in range(1_000):
        before = bind.execute(changes).scalar_one()
        bind.execute(sa.text("INSERT INTO memory_fts (memory_fts, rank) VALUES ('merge', 2000)"))
        if bind.execute(changes).scalar_one() - before < 2:
            return
