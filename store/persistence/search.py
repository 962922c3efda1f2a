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
and underscores, as `store.in_memory.search_words` does), each word is quoted as a literal, and the
words are OR-ed. Quotes, operators (NEAR, AND, -, *, :), punctuation and emoji are separators, so no
input can raise a syntax error or change what the query means.

SQLite matches with FTS5 (`memory_fts`, kept in step with `agent_memory` by triggers) and ranks by
bm25; the scope filter is part of the MATCH itself, through a column holding each row's scope as a
single opaque token, so the index only walks rows at the scopes. PostgreSQL matches the generated
`search_vector` column (a GIN index, the `simple` configuration) and ranks by ts_rank.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, Float, Select, and_, bindparam, column, func, literal_column, or_, select, table
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import BindParameter, ColumnClause

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
    "tsquery_expression",
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


def tsquery_expression(words: Sequence[str]) -> str:
    """A `to_tsquery` text: each word a quoted lexeme, OR-ed."""
    return " | ".join("'" + w.replace("'", "''").replace("\\", "\\\\") + "'" for w in words)


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
        query = func.to_tsquery(literal_column("'simple'"), bindparam("tsquery", tsquery_expression(words)))
        score = (-func.ts_rank(_search_vector, query, type_=Float)).label("score")
        return select(memory.c.key, rank, score, memory.c.updated_at).where(at_scopes, _search_vector.op("@@")(query))
    match: BindParameter[str] = bindparam("match", fts_match_expression(scopes, words))
    hits = (
        select(
            _fts.c.rowid.label("seq"),
            func.bm25(literal_column("memory_fts"), 1.0, 1.0, 0.0, type_=Float).label("score"),
        )
        .where(literal_column("memory_fts").op("MATCH")(match))
        .subquery("hits")
    )
    return (
        select(memory.c.key, rank, hits.c.score, memory.c.updated_at)
        .join_from(hits, memory, memory.c.seq == hits.c.seq)
        .where(at_scopes)
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
