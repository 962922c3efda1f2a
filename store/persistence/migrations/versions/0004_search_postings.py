"""SQLite's search index becomes postings in an ordinary B-tree, kept in step by triggers.

FTS5 looked every query term up in every segment of its index, and the segments grow with the
logarithm of the store; the only commands that bound them (`optimize`, a negative `merge`) corrupt
the index over time on SQLite 3.40.1. Instead:

- `memory_terms`: one row per (term, record) — the term, the record's `seq`, and how many times the
  record holds it (tf) — keyed by (term, seq) in a `WITHOUT ROWID` B-tree, so a term's postings are
  one range of one B-tree: a search seeks once per term, whatever the store holds.
- `memory_corpus`: one row, the store's record count and word count (BM25's N and average length).
  A record's own word count is its number of terms, `(length(search_terms) + 1) / 13`: terms are 12
  letters, separated by single spaces.
- Triggers on `agent_memory` keep both exactly in step, in SQL, in the writer's own statement: a
  record's (term, tf) pairs are its `search_terms` read as a JSON array by `json_each`. A delete finds
  the old row's postings by primary key, from its own terms: no index on `seq` is needed (one made a
  200,000-memory database 40% larger and an insert's own SQL 45% slower).

Existing rows are indexed here; `memory_fts`, its triggers and revision 0003's merge settings go.
The downgrade rebuilds revision 0003's `memory_fts` from `search_terms`. PostgreSQL keeps its
generated `search_vector` and GIN index: nothing changes there.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from store.persistence.migrations.search_machinery import (
    FTS_MERGING,
    FTS_TRIGGERS,
    TERMS_FTS,
    TERMS_FTS_FILL,
    TERMS_FTS_TRIGGERS,
    configure_fts_merging,
    merge_what_fts_stores,
)

revision = "0004"
down_revision = "0003"


# A record's terms are letters only with single spaces between, so `json_each` reads its
# `search_terms` as a JSON array of strings: '["t1","t2",…]'. An empty column reads as one empty
# string, which is skipped. A record's word count is its number of terms: 12 letters and a space each.
SQLITE_POSTINGS = [
    """CREATE TABLE memory_terms (
        term TEXT NOT NULL,
        seq INTEGER NOT NULL,
        tf INTEGER NOT NULL,
        PRIMARY KEY (term, seq)
    ) WITHOUT ROWID""",
    """CREATE TABLE memory_corpus (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        records INTEGER NOT NULL,
        words INTEGER NOT NULL
    )""",
    # In (term, seq) order, so the B-tree is written front to back.
    """INSERT INTO memory_terms (term, seq, tf)
        SELECT terms.value, memory.seq, count(*)
        FROM agent_memory AS memory, json_each('["' || replace(memory.search_terms, ' ', '","') || '"]') AS terms
        WHERE terms.value != ''
        GROUP BY terms.value, memory.seq
        ORDER BY terms.value, memory.seq""",
    """INSERT INTO memory_corpus (id, records, words)
        SELECT 1, count(*), coalesce(sum((length(search_terms) + 1) / 13), 0) FROM agent_memory""",
    """CREATE TRIGGER agent_memory_terms_insert AFTER INSERT ON agent_memory BEGIN
        INSERT INTO memory_terms (term, seq, tf)
            SELECT value, new.seq, count(*) FROM json_each('["' || replace(new.search_terms, ' ', '","') || '"]')
            WHERE value != '' GROUP BY value;
        UPDATE memory_corpus SET records = records + 1, words = words + (length(new.search_terms) + 1) / 13;
    END""",
    """CREATE TRIGGER agent_memory_terms_delete AFTER DELETE ON agent_memory BEGIN
        DELETE FROM memory_terms WHERE seq = old.seq
            AND term IN (SELECT value FROM json_each('["' || replace(old.search_terms, ' ', '","') || '"]'));
        UPDATE memory_corpus SET records = records - 1, words = words - (length(old.search_terms) + 1) / 13;
    END""",
    """CREATE TRIGGER agent_memory_terms_update AFTER UPDATE OF seq, search_terms ON agent_memory
        WHEN old.search_terms IS NOT new.search_terms OR old.seq != new.seq BEGIN
        DELETE FROM memory_terms WHERE seq = old.seq
            AND term IN (SELECT value FROM json_each('["' || replace(old.search_terms, ' ', '","') || '"]'));
        INSERT INTO memory_terms (term, seq, tf)
            SELECT value, new.seq, count(*) FROM json_each('["' || replace(new.search_terms, ' ', '","') || '"]')
            WHERE value != '' GROUP BY value;
        UPDATE memory_corpus
            SET words = words - (length(old.search_terms) + 1) / 13 + (length(new.search_terms) + 1) / 13;
    END""",
]

_POSTINGS_TRIGGERS = ("agent_memory_terms_insert", "agent_memory_terms_delete", "agent_memory_terms_update")


def _require_json_each() -> None:
    """The triggers read terms with `json_each`, built into SQLite since 3.38 (and into most builds
    before it as JSON1): without it, say so rather than fail on the first write."""
    bind = op.get_bind()
    try:
        bind.execute(sa.text("""SELECT count(*) FROM json_each('["a"]')"""))
    except sa.exc.OperationalError as error:
        version = bind.execute(sa.text("SELECT sqlite_version()")).scalar_one()
        msg = (
            f"OnFile's search index needs SQLite's JSON functions (json_each), which this SQLite ({version}) "
            "lacks: use SQLite 3.38 or later, or a build with JSON1."
        )
        raise RuntimeError(msg) from error


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    _require_json_each()
    for trigger in FTS_TRIGGERS:
        op.execute(f"DROP TRIGGER {trigger}")
    op.execute("DROP TABLE memory_fts")
    for statement in SQLITE_POSTINGS:
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for trigger in _POSTINGS_TRIGGERS:
        op.execute(f"DROP TRIGGER {trigger}")
    op.execute("DROP TABLE memory_corpus")
    op.execute("DROP TABLE memory_terms")
    # Revision 0003's index: FTS5 over `search_terms`, merging each pair of segments, caught up.
    op.execute(TERMS_FTS)
    configure_fts_merging(FTS_MERGING)
    op.execute(TERMS_FTS_FILL)
    for statement in TERMS_FTS_TRIGGERS:
        op.execute(statement)
    merge_what_fts_stores()
