"""Relevance search over memories: the design's three clauses in ONE statement on each backend.

1. Filter to the scopes before ranking: only rows at the scopes are ranked, so another tenant's
   nearest neighbour can never take a place.
2. Rank keys, take the best `limit`: a key scores as its best record (ties: narrower scope, then
   newer, then the key itself).
3. Return every record sharing a returned key, plus every record of a key pinned at those scopes — a
   pin belongs to the question, so a personal override of a pinned wider fact rides along.

Rows come back best key first (a key ranks where its first record is), then the pinned-only keys;
within a key, narrowest scope first.

The person's turn text never reaches a query language. It is cut into words (runs of letters, digits
and underscores, as `store.in_memory.search_words` does). On SQLite each word becomes a quoted FTS5
string in a MATCH of its own; on PostgreSQL the words go to `to_tsvector` as plain text, which has no
operators at all. Quotes, operators (NEAR, AND, -, *, :, &, |, !), punctuation and emoji are
separators, so no input can raise a syntax error or change what the query means.

Neither backend ranks with statistics of the whole store, so a search costs what applies to the turn,
not what is stored. SQLite matches with FTS5 (`memory_fts`, kept in step with `agent_memory` by
triggers), one MATCH per word with the scope filter inside it (a column holding each row's scope as a
single opaque token), and scores a row by how many of the words it holds — the reference provider's
own measure. PostgreSQL reads the scopes' rows first, then scores each by the same measure over its
generated `search_vector` column (the `simple` configuration). Its GIN index is deliberately not used
here: AND-ed with the scope index, it walks every row in the store that holds any of the words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Select,
    and_,
    bindparam,
    column,
    func,
    literal_column,
    or_,
    select,
    table,
    union_all,
)
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import ColumnClause

from store.domain.types import MemoryRecord
from store.persistence.memories import MEMORY_COLUMNS, records_from_rows, scope_rank
from store.persistence.tables import MemoryRow, table_of

__all__ = (
    "MAX_QUERY_WORDS",
    "fts_match_expression",
    "query_words",
    "records_by_relevance",
    "relevance_statement",
    "scope_token",
)

MAX_QUERY_WORDS = 256
"""A turn's distinct words beyond this many are not searched with: a bound on one query's cost."""

_WORD = re.compile(r"\w+")
memory = table_of(MemoryRow)
_fts = table("memory_fts", column("rowid"))
_search_vector: ColumnClause[Any] = column("search_vector")


def query_words(text: str) -> tuple[str, ...]:
    """The distinct words of `text`, in order of first appearance (lower-cased), at most `MAX_QUERY_WORDS`."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        seen.setdefault(word, None)
        if len(seen) == MAX_QUERY_WORDS:
            break
    return tuple(seen)


def scope_token(scope: str) -> str:
    """A scope as one FTS5 token (`s` and the hex of its UTF-8): opaque, exact, never split."""
    return "s" + scope.encode("utf-8").hex()


def _quoted(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def fts_match_expression(scopes: Sequence[str], words: Sequence[str]) -> str:
    """An FTS5 MATCH: the row is at one of `scopes` AND its key or text holds one of `words`."""
    at_scopes = " OR ".join(_quoted(scope_token(s)) for s in dict.fromkeys(scopes))
    holds = " OR ".join(_quoted(w) for w in words)
    return f"{{scope_token}} : ({at_scopes}) AND {{key text}} : ({holds})"


async def records_by_relevance(
    connection: AsyncConnection, *, scopes: Sequence[str], words: Sequence[str], limit: int
) -> list[MemoryRecord]:
    """The search's records for a non-empty `words` (see the module's three clauses)."""
    if not scopes:
        return []
    statement = relevance_statement(connection.dialect.name, scopes, words, max(limit, 0))
    result = await connection.execute(statement)
    return records_from_rows(result.all())


def _matches(dialect_name: str, scopes: Sequence[str], words: Sequence[str]) -> Select[tuple[str, int, float, object]]:
    """Each matching record at the scopes: key, scope rank, score (lower is better) and update time."""
    rank = scope_rank(scopes).label("scope_rank")
    at_scopes = memory.c.scope.in_(scopes)
    if dialect_name == "postgresql":
        # The scopes' rows first, materialised, then the match on each: the cost follows what applies.
        # Left to itself the planner ANDs the scope index with the GIN index, and the GIN side walks
        # every row in the store holding any of the words — time that grows with the store.
        applicable = (
            select(memory.c.key, memory.c.scope, memory.c.updated_at, _search_vector.label("search_vector"))
            .where(at_scopes)
            .cte("applicable")
            .prefix_with("MATERIALIZED")
        )
        # A row's score is how many of the words it holds (the reference provider's measure, as on
        # SQLite): its lexemes minus those left once the query's lexemes are deleted. The query's
        # lexemes come from the same parser as the column's, through one subquery run once.
        lexemes = select(
            func.tsvector_to_array(func.to_tsvector(literal_column("'simple'"), bindparam("words", " ".join(words))))
        ).scalar_subquery()
        vector = applicable.c.search_vector
        held = func.length(vector) - func.length(func.ts_delete(vector, lexemes))
        return select(
            applicable.c.key,
            scope_rank(scopes, applicable.c.scope).label("scope_rank"),
            (-held).label("score"),
            applicable.c.updated_at,
        ).where(held > 0)
    # One scope-restricted MATCH per word; a row's score is how many of the words it holds (the
    # reference provider's measure). Not bm25: bm25 needs each word's document count over the whole
    # index, which FTS5 gets by walking the word's entire doclist on every query — for a word like
    # "the" that is every row in the store, so a turn's search would slow as the store grows.
    per_word = [
        select(_fts.c.rowid.label("seq")).where(
            literal_column("memory_fts").op("MATCH")(bindparam(f"match_{n}", fts_match_expression(scopes, [word])))
        )
        for n, word in enumerate(words)
    ]
    hits = union_all(*per_word).subquery("hits") if len(per_word) > 1 else per_word[0].subquery("hits")
    return (
        select(memory.c.key, rank, (-func.count()).label("score"), memory.c.updated_at)
        .join_from(hits, memory, memory.c.seq == hits.c.seq)
        .where(at_scopes)
        .group_by(memory.c.seq, memory.c.key, memory.c.scope, memory.c.updated_at)
    )


def relevance_statement(
    dialect_name: str, scopes: Sequence[str], words: Sequence[str], limit: int
) -> Select[tuple[object, ...]]:
    """The one statement a search runs (for an EXPLAIN, or a benchmark's floor)."""
    matched = _matches(dialect_name, scopes, words).subquery("matched")
    best_first: tuple[ColumnElement[object], ...] = (
        matched.c.score,
        matched.c.scope_rank,
        matched.c.updated_at.desc(),
    )
    per_key = select(
        matched.c.key,
        matched.c.score,
        matched.c.scope_rank,
        matched.c.updated_at,
        func.row_number().over(partition_by=matched.c.key, order_by=best_first).label("nth"),
    ).subquery("per_key")
    key_order = (per_key.c.score, per_key.c.scope_rank, per_key.c.updated_at.desc(), per_key.c.key)
    top_keys = (
        select(per_key.c.key, func.row_number().over(order_by=key_order).label("position"))
        .where(per_key.c.nth == 1)
        .order_by(*key_order)
        .limit(limit)
        .subquery("top_keys")
    )
    pinned_keys = select(memory.c.key).where(memory.c.scope.in_(scopes), memory.c.pinned)
    position = func.coalesce(top_keys.c.position, limit + 1)
    return (
        select(*MEMORY_COLUMNS)
        .select_from(memory.outerjoin(top_keys, top_keys.c.key == memory.c.key))
        .where(and_(memory.c.scope.in_(scopes), or_(top_keys.c.key.is_not(None), memory.c.key.in_(pinned_keys))))
        .order_by(position, scope_rank(scopes), memory.c.key)
    )
