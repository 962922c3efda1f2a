"""SQLite's search index: postings of terms in an ordinary B-tree, ranked by BM25 in SQL.

What it holds (migration 0004), kept exactly in step with `agent_memory.search_terms` by triggers in
the writer's own statement:

- `memory_terms`: one row per (term, record) — the term (`store.persistence.terms`), the record's
  `seq`, and tf, how many times the record holds the term — keyed by (term, seq), `WITHOUT ROWID`.
  A term's postings are one range of one B-tree; a term belongs to one scope, so they are all at
  that scope.
- `memory_corpus`: one row, the store's record count and total word count (BM25's N and average
  length). A record's own length is its number of terms: `(length(search_terms) + 1) / 13`.

A search (`bm25_matches`) seeks each of the turn's terms once in the primary key, walks its
postings to count them (n, the records at that scope holding the word), walks them again to score
each holder, and reads each holder's row by rowid: its cost is the postings of the turn's terms,
which hold only records at the turn's scopes, plus a B-tree seek per term, which deepens by one
level each time the store grows about a hundredfold. Nothing else grows with the store. Its score is
the reference's BM25 operation for operation (`store.domain.relevance`), each word's share counted
in whole units so that the sum is exact in whatever order SQL adds the rows.

Why not FTS5: FTS5 looks every query term up in every segment of its index (twice, once more for
`bm25()`), their number grows with the logarithm of the store, and the only commands that bound it
(`optimize`, a negative `merge`) corrupt the index over time on SQLite 3.40.1
(docs/decisions/2026-12-05-sqlite-search-postings.md). An ordinary B-tree has no segments to merge and
nothing to optimise.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from sqlalchemy import Float, Integer, Text, bindparam, column, text
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import TextClause
from sqlalchemy.sql.selectable import TextualSelect

from store.domain.relevance import BM25_B, BM25_K1, IDF_FLOOR, SCORE_UNITS
from store.persistence.types import UtcDateTime

__all__ = ("SQLITE_INDEX_TABLES", "IndexTotals", "bm25_matches", "index_totals", "postings_of", "terms_parameter")

SQLITE_INDEX_TABLES = frozenset({"memory_terms", "memory_corpus"})
"""The index's own tables: SQLite only, outside the portable models."""

_SCORED = """
WITH held AS MATERIALIZED (
    SELECT asked.value AS term,
           (SELECT count(*) FROM memory_terms AS holder WHERE holder.term = asked.value) AS n
    FROM json_each(:terms) AS asked
),
weighed AS MATERIALIZED (
    SELECT term, CASE WHEN ln(odds) <= 0 THEN :idf_floor ELSE ln(odds) END AS idf
    FROM (
        SELECT held.term, (corpus.records - held.n + 0.5) / (held.n + 0.5) AS odds
        FROM held CROSS JOIN memory_corpus AS corpus
        WHERE held.n > 0
    )
),
corpus AS MATERIALIZED (
    SELECT CAST(words AS REAL) / records AS average FROM memory_corpus
)
SELECT memory.key AS key,
       CASE memory.scope {ranks} ELSE {count} END AS scope_rank,
       -sum(CAST(
           weighed.idf * ((posting.tf * (:bm25_k1 + 1.0))
               / (posting.tf + :bm25_k1 * (1 - :bm25_b + :bm25_b * ((length(memory.search_terms) + 1) / 13)
                                                          / corpus.average)))
           * :score_units AS INTEGER)) AS score,
       memory.updated_at AS updated_at
FROM weighed
    CROSS JOIN memory_terms AS posting
    CROSS JOIN agent_memory AS memory
    CROSS JOIN corpus
WHERE posting.term = weighed.term AND memory.seq = posting.seq AND memory.scope IN ({scopes})
    AND (memory.expires_at IS NULL OR memory.expires_at > CURRENT_TIMESTAMP)
GROUP BY memory.seq
ORDER BY score, scope_rank, memory.updated_at DESC, memory.key
LIMIT :limit * {count}
"""


@lru_cache(maxsize=64)
def bm25_matches(count: int) -> TextualSelect:
    """The search's first clause on SQLite for `count` scopes: each record at the scopes holding one
    of the terms (`terms`, a JSON array) — key, scope rank (0 the narrowest), score (lower is better:
    minus the reference's BM25 in units) and update time — the best `limit × count` of them, best
    first (score, scope, newest, key). Parameters `terms`, `scope_0`… and `limit`.

    The order of the joins is fixed (CROSS JOIN, which SQLite never reorders): from the terms to their
    postings to their records, so no plan can start from the rows at the scopes (every record a
    person holds) or from the whole postings table. The scope filter is on the records themselves:
    the boundary, whatever a term matched. The arithmetic is `bm25_score`'s, in its order, with its
    constants bound as the same doubles (a literal would be parsed by SQLite, maybe one bit away)."""
    ranks = " ".join(f"WHEN :scope_{n} THEN {n}" for n in range(count))
    scopes = ", ".join(f":scope_{n}" for n in range(count))
    clause: TextClause = text(_SCORED.format(ranks=ranks, scopes=scopes, count=count)).bindparams(
        bindparam("terms", type_=Text()),
        bindparam("limit", type_=Integer()),
        bindparam("bm25_k1", BM25_K1, type_=Float()),
        bindparam("bm25_b", BM25_B, type_=Float()),
        bindparam("idf_floor", IDF_FLOOR, type_=Float()),
        bindparam("score_units", SCORE_UNITS, type_=Float()),
    )
    return clause.columns(
        column("key", Text()),
        column("scope_rank", Integer()),
        column("score", Integer()),
        column("updated_at", UtcDateTime()),
    )


@dataclass(frozen=True, slots=True)
class IndexTotals:
    """What the index holds: the store's records and words (`memory_corpus`), and its postings."""

    records: int
    words: int
    postings: int


async def index_totals(connection: AsyncConnection) -> IndexTotals:
    """The index's totals (SQLite only; counting the postings reads all of them)."""
    corpus = (await connection.execute(text("SELECT records, words FROM memory_corpus"))).one()
    postings = (await connection.execute(text("SELECT count(*) FROM memory_terms"))).scalar_one()
    return IndexTotals(records=corpus[0], words=corpus[1], postings=postings)


async def postings_of(connection: AsyncConnection, terms: Sequence[str]) -> int:
    """How many postings `terms` have: what a search with them walks (SQLite only)."""
    found = await connection.execute(
        text("SELECT count(*) FROM json_each(:terms) AS asked JOIN memory_terms ON term = asked.value"),
        {"terms": terms_parameter(terms)},
    )
    return int(found.scalar_one())


def terms_parameter(terms: Sequence[str]) -> str:
    """`terms` as `bm25_matches` takes them: one JSON array, each term once, bound as one value."""
    return json.dumps(list(dict.fromkeys(terms)))
