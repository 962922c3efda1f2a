"""Relevance search over memories: the design's three clauses in ONE statement on each backend.

1. Filter to the scopes before ranking: only rows at the scopes are ranked, so another tenant's
   nearest neighbour can never take a place.
2. Rank keys, take the best `limit`: a key scores as its best record (ties: narrower scope, then
   newer, then the key itself).
3. Return every record sharing a returned key, plus every record of a key pinned at those scopes — a
   pin belongs to the question, so a personal override of a pinned wider fact rides along.

Rows come back best key first (a key ranks where its first record is), then the pinned-only keys;
within a key, narrowest scope first.

The person's turn text never reaches a query language. It is cut into words
(`store.domain.relevance.query_words`), and each word at each of the turn's scopes becomes an index
term (`store.persistence.terms`): twelve letters, bound as one plain parameter. So quotes, operators,
punctuation and emoji cannot raise a syntax error or change what the query means, and the index is
asked only about the turn's own scopes — a search costs what applies, not what is stored.

- SQLite: the turn's terms looked up in the postings index (`store.persistence.search_index`, kept
  in step with `agent_memory.search_terms` by triggers), ranked by BM25 computed in SQL. Its document
  counts are per term, so per scope: exactly the reference provider's BM25 (`store.domain.relevance`),
  to the last unit.
- PostgreSQL: the generated `search_vector` column matched through its GIN index (`@@`), ranked by
  `ts_rank` — how many of the words a record holds and how often; PostgreSQL's ranking has no
  document counts, so there a rarer word weighs no more than a common one.

The statement depends only on the backend and the number of scopes, so each shape is built once and
then only executed with new parameters: a turn with many words costs no more to build than one word.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    CTE,
    ColumnElement,
    Select,
    Subquery,
    bindparam,
    case,
    column,
    func,
    literal_column,
    select,
    text,
    union_all,
)
from sqlalchemy.sql.elements import ColumnClause
from sqlalchemy.types import Integer

from store.domain.relevance import MAX_QUERY_WORDS, query_words
from store.domain.types import MemoryRecord
from store.persistence.driver import ReadConnection, has_fast_driver, run_statement, searched_rows
from store.persistence.memories import LIVE, MEMORY_COLUMNS, records_from_rows, records_from_sqlite_rows
from store.persistence.search_index import bm25_matches, terms_parameter
from store.persistence.tables import MemoryRow, table_of
from store.persistence.terms import query_terms

__all__ = (
    "MAX_QUERY_WORDS",
    "keys_by_relevance",
    "keys_statement",
    "query_words",
    "records_by_relevance",
    "relevance_statement",
    "tsquery_expression",
)

memory = table_of(MemoryRow)
_search_vector: ColumnClause[Any] = column("search_vector")
_CUSTOM_PLANS = text("SET plan_cache_mode = force_custom_plan")
_DEFAULT_PLANS = text("RESET plan_cache_mode")


def tsquery_expression(terms: Sequence[str]) -> str:
    """A `tsquery` for rows holding any of `terms` (letters only, so none is an operator)."""
    return " | ".join(terms)


def relevance_statement(
    dialect_name: str, scopes: Sequence[str], words: Sequence[str], limit: int
) -> tuple[Select[tuple[object, ...]], dict[str, object]]:
    """The one statement a search runs, and its parameters (for a benchmark's floor, or an EXPLAIN)."""
    distinct = tuple(dict.fromkeys(scopes))
    terms = query_terms(distinct, words)
    params: dict[str, object] = {f"scope_{n}": scope for n, scope in enumerate(distinct)}
    if dialect_name == "postgresql":
        params.update(match=tsquery_expression(terms))
    else:
        params.update(terms=terms_parameter(terms))
    params.update(limit=max(limit, 0))
    return _statement(dialect_name, len(distinct)), params


async def records_by_relevance(
    connection: ReadConnection, *, scopes: Sequence[str], words: Sequence[str], limit: int
) -> list[MemoryRecord]:
    """The search's records for a non-empty `words` (see the module's three clauses)."""
    if not scopes:
        return []
    statement, params = relevance_statement(connection.dialect.name, scopes, words, limit)
    rows = await _run_search(connection, statement, params)
    if connection.dialect.name != "postgresql" and has_fast_driver(connection.dialect):
        return records_from_sqlite_rows(rows)
    return records_from_rows(rows)


def keys_statement(
    dialect_name: str, scopes: Sequence[str], words: Sequence[str], limit: int
) -> tuple[Select[tuple[object, ...]], dict[str, object]]:
    """The statement `keys_by_relevance` runs, and its parameters (for a benchmark's floor)."""
    _, params = relevance_statement(dialect_name, scopes, words, limit)
    return _keys_statement(dialect_name, len(dict.fromkeys(scopes))), params


async def keys_by_relevance(
    connection: ReadConnection, *, scopes: Sequence[str], words: Sequence[str], limit: int, few: bool = False
) -> list[str]:
    """The best `limit` keys at `scopes` for a non-empty `words`, best first (the first two clauses);
    `few`: the person is known to hold few memories at `scopes` (`searched_rows`)."""
    if not scopes or not words:
        return []
    statement, params = keys_statement(connection.dialect.name, scopes, words, limit)
    return [str(row[0]) for row in await _run_search(connection, statement, params, few=few)]


async def _run_search(
    connection: ReadConnection, statement: Select[tuple[object, ...]], params: dict[str, object], *, few: bool = False
) -> Sequence[Sequence[object]]:
    if connection.dialect.name != "postgresql":
        return await searched_rows(connection, statement, params, inline=few)
    # asyncpg prepares statements, and after five runs PostgreSQL may settle on one generic plan,
    # made without knowing the scopes or the terms; for this query it is several times slower than
    # the plan made for them. So the search alone is planned afresh each time (reads run outside a
    # transaction, where SET LOCAL would not hold, hence SET and RESET).
    await run_statement(connection, _CUSTOM_PLANS, {})
    try:
        return await run_statement(connection, statement, params)
    finally:
        await run_statement(connection, _DEFAULT_PLANS, {})


def _scope_rank(count: int, scope: ColumnElement[str]) -> ColumnElement[int]:
    """`scope`'s place among the bound scopes, 0 the narrowest."""
    return case(*((scope == bindparam(f"scope_{n}"), n) for n in range(count)), else_=count)


def _at_scopes(count: int, scope: ColumnElement[str]) -> ColumnElement[bool]:
    """A record at one of the bound scopes that has not expired (`LIVE`)."""
    return scope.in_([bindparam(f"scope_{n}") for n in range(count)]) & LIVE


def _ts_rank_matches(count: int) -> Subquery:
    """PostgreSQL's first clause: each record at the scopes holding a term — key, scope rank, score
    (lower is better), update time — the best `limit × count` of them."""
    rank = _scope_rank(count, memory.c.scope).label("scope_rank")
    query = func.to_tsquery(literal_column("'simple'"), bindparam("match"))
    candidates = select(
        memory.c.key,
        rank,
        (-func.ts_rank(_search_vector, query)).label("score"),
        memory.c.updated_at,
    ).where(_at_scopes(count, memory.c.scope), _search_vector.op("@@")(query))
    best_rows = candidates.order_by(
        literal_column("score"), literal_column("scope_rank"), memory.c.updated_at.desc(), memory.c.key.collate("C")
    ).limit(bindparam("limit", type_=Integer()) * count)
    return best_rows.subquery("matched")


@lru_cache(maxsize=64)
def _statement(dialect_name: str, count: int) -> Select[tuple[object, ...]]:
    """The search for `count` scopes on one backend, with parameters `scope_0`…, `match` (PostgreSQL)
    or `terms` (SQLite), and `limit`.

    Only the best `limit × count` matching rows are ranked into keys: a key has at most one record
    per scope, so the rows ahead of the `limit`-th best key's best row belong to at most `limit − 1`
    keys — at most `(limit − 1) × count` rows. The full order (score, scope, newest, key) decides who
    is in, so the cut never splits a tie differently from ranking everything."""
    limit = bindparam("limit", type_=Integer())
    top_keys = _top_keys(dialect_name, count)
    # The keys to return, each with its place: the ranked keys, then the keys pinned at the scopes
    # that did not rank. Their records are then sought by (scope, key), instead of every record at the
    # scopes being read and tested against both: on SQLite at 2,000 applicable memories, a search for
    # rare words takes a quarter of the time it did, one that also holds a word every record holds a
    # little over half. Finding the pinned keys still reads the records at the scopes: no index holds
    # the pin.
    pinned_only = (
        select(memory.c.key, (limit + 1).label("position"))
        .where(
            _at_scopes(count, memory.c.scope),
            memory.c.pinned,
            memory.c.key.not_in(select(top_keys.c.key)),
        )
        .distinct()
    )
    wanted = union_all(select(top_keys.c.key, top_keys.c.position), pinned_only).subquery("wanted")
    return (
        select(*MEMORY_COLUMNS)
        .select_from(wanted.join(memory, memory.c.key == wanted.c.key))
        .where(_at_scopes(count, memory.c.scope))
        .order_by(wanted.c.position, _scope_rank(count, memory.c.scope), _in_code_points(dialect_name, memory.c.key))
    )


@lru_cache(maxsize=64)
def _top_keys(dialect_name: str, count: int) -> CTE:
    """The best `limit` keys for `count` scopes, each with its place (`position`, from 1): a key scores
    as its best record (ties: narrower scope, then newer, then the key itself)."""
    limit = bindparam("limit", type_=Integer())
    matched = _ts_rank_matches(count) if dialect_name == "postgresql" else bm25_matches(count).subquery("matched")
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
    key_order = (
        per_key.c.score,
        per_key.c.scope_rank,
        per_key.c.updated_at.desc(),
        _in_code_points(dialect_name, per_key.c.key),
    )
    return (
        select(per_key.c.key, func.row_number().over(order_by=key_order).label("position"))
        .where(per_key.c.nth == 1)
        .order_by(*key_order)
        .limit(limit)
        .cte("top_keys")
    )


@lru_cache(maxsize=64)
def _keys_statement(dialect_name: str, count: int) -> Select[tuple[object, ...]]:
    """Only the ranked keys, best first: the lexical ranking a hybrid recall fuses."""
    top_keys = _top_keys(dialect_name, count)
    return select(top_keys.c.key).order_by(top_keys.c.position)


def _in_code_points(dialect_name: str, key: ColumnElement[str]) -> ColumnElement[str]:
    """A key as the reference orders keys, by code point: PostgreSQL's byte order (`COLLATE "C"`, which
    for UTF-8 is code-point order) whatever the database's own collation; SQLite's is already that."""
    return key.collate("C") if dialect_name == "postgresql" else key
