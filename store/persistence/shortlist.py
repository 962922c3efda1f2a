"""A listed turn's ceiling applied in the query: the records of the keys the block can hold, and the
totals the digest counts its omissions from (`store.domain.types.Shortlist`).

A turn with no search reads everything that applies and keeps `max_memories` keys of it. At a few
thousand applicable memories, building a record per row and deciding in Python cost more than the
read itself. So a turn reads at most `WHOLE_LIST_AT_MOST` records plainly; past that, the database
picks the keys with the same order the rules use when nothing ranked them, and returns only their
records:

1. each key's winner: its record at the narrowest of the turn's scopes;
2. the best `limit` keys: pinned keys first (a key is pinned when any of its records at the scopes
   is), then by the winner's scope (narrowest first), then newest, then the key itself in code-point
   order (`COLLATE "C"` on PostgreSQL, SQLite's own binary order);
3. every record at the scopes of those keys — the overrides ride along — each row carrying how many
   keys, and how many pinned keys, applied in all.

`store.domain.precedence.resolve_shortlist` then decides exactly as it would over every record (the
contract suite checks the two digests are equal on every backend). The statement depends only on the
backend and the number of scopes, so each shape is built once.

Choosing costs the database more than reading does (on SQLite, some 250 µs more at twenty memories),
which is why a turn with few memories reads them all: the plain read is one statement, and the
shortlist two — the plain read that found too many, then the shortlist.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from sqlalchemy import ColumnElement, Select, bindparam, case, distinct, func, literal_column, select
from sqlalchemy.dialects.postgresql import distinct_on
from sqlalchemy.types import Integer

from store.domain.recent import Recent
from store.domain.types import Shortlist
from store.persistence.driver import ReadConnection, has_fast_driver, run_statement
from store.persistence.memories import (
    LIVE,
    MEMORY_COLUMNS,
    records_from_rows,
    records_from_sqlite_rows,
    records_of_rows,
    rows_at_scopes_up_to,
)
from store.persistence.tables import MemoryRow, table_of

__all__ = ("RECENT_READS", "WHOLE_LIST_AT_MOST", "RecentReads", "records_shortlisted", "shortlist_statement")

memory = table_of(MemoryRow)

WHOLE_LIST_AT_MOST = 200
"""Up to this many applicable records a turn reads them all, and the rules choose: about where
building and deciding over every record starts to cost more than the shortlist's query."""


def shortlist_statement(
    dialect_name: str, scopes: Sequence[str], limit: int
) -> tuple[Select[tuple[Any, ...]], dict[str, object]]:
    """The statement that chooses the keys (past `WHOLE_LIST_AT_MOST` records), and its parameters
    (for a benchmark's floor, or an EXPLAIN)."""
    _refuse_no_keys(limit)
    distinct_scopes = tuple(dict.fromkeys(scopes))
    params: dict[str, object] = {f"scope_{n}": scope for n, scope in enumerate(distinct_scopes)}
    params["limit"] = limit
    return _statement(dialect_name, len(distinct_scopes)), params


RECENT_READS = 128
"""How many sets of scopes a provider keeps its last shortlist for, by default (`RecentReads`)."""


RecentReads = Recent[tuple[tuple[str, ...], int], Sequence[Sequence[Any]], Shortlist]
"""The rows each of the last shortlists was built from (by scopes and limit), and the shortlist: when a
turn reads the very rows the last turn at its scopes read, it is given that turn's shortlist, the same
object, without building a record — and `store.memory.RecentTurns`, finding the same shortlist, the
same digest and block. Equal rows, compared in full, are the only hit."""


async def records_shortlisted(
    connection: ReadConnection, *, scopes: Sequence[str], limit: int, recent: RecentReads | None = None
) -> Shortlist:
    """The shortlist of `limit` keys at `scopes` (see the module's docstring); no scopes, none. Up to
    `WHOLE_LIST_AT_MOST` records, it is every record, and its totals are counted here. With `recent`,
    rows equal to the last read's at these scopes give the last read's shortlist."""
    if not scopes:
        return Shortlist(records=(), keys=0, pinned_keys=0)
    _refuse_no_keys(limit)
    asked = (tuple(scopes), limit)
    whole = await rows_at_scopes_up_to(connection, scopes, WHOLE_LIST_AT_MOST)
    if whole is not None:
        if recent is not None and (same := recent.same(asked, whole)) is not None:
            return same
        records = records_of_rows(connection, whole)
        held = {record.key for record in records}
        pinned = {record.key for record in records if record.pinned}
        shortlist = Shortlist(records=tuple(records), keys=len(held), pinned_keys=len(pinned))
    else:
        statement, params = shortlist_statement(connection.dialect.name, scopes, limit)
        rows = await run_statement(connection, statement, params)
        if not rows:  # everything went between the two statements: nothing applies now
            return Shortlist(records=(), keys=0, pinned_keys=0)
        if recent is not None and (same := recent.same(asked, rows)) is not None:
            return same
        keys, pinned_keys = int(rows[0][0]), int(rows[0][1])
        fields = [row[2:] for row in rows]
        sqlite_rows = connection.dialect.name == "sqlite" and has_fast_driver(connection.dialect)
        records = records_from_sqlite_rows(fields) if sqlite_rows else records_from_rows(fields)
        shortlist = Shortlist(records=tuple(records), keys=keys, pinned_keys=pinned_keys)
        whole = rows
    if recent is not None:
        recent.keep(asked, whole, shortlist)
    return shortlist


def _refuse_no_keys(limit: int) -> None:
    if limit < 1:
        msg = f"a shortlist keeps at least one key, not {limit}"
        raise ValueError(msg)


def _at_scopes(count: int) -> ColumnElement[bool]:
    """A record at one of the bound scopes that has not expired (`LIVE`)."""
    return memory.c.scope.in_([bindparam(f"scope_{n}") for n in range(count)]) & LIVE


def _scope_rank(count: int) -> ColumnElement[int]:
    """A record's scope as its place among the bound scopes, 0 the narrowest."""
    return case(*((memory.c.scope == bindparam(f"scope_{n}"), n) for n in range(count)), else_=count)


@lru_cache(maxsize=64)
def _statement(dialect_name: str, count: int) -> Select[tuple[Any, ...]]:
    """The shortlist for `count` scopes on one backend, with parameters `scope_0`… and `limit`."""
    rank = _scope_rank(count).label("scope_rank")
    at_scopes = _at_scopes(count)
    if dialect_name == "postgresql":
        # Grouped in byte order, which sorts several times faster than a linguistic collation and
        # groups alike (equal keys are equal bytes): the key order that matters is the one below.
        in_bytes = memory.c.key.collate("C")
        winners = (
            select(memory.c.key, rank, memory.c.updated_at)
            .where(at_scopes)
            .ext(distinct_on(in_bytes))
            .order_by(in_bytes, literal_column("scope_rank"))
            .cte("winners")
        )
        key_order: ColumnElement[str] = winners.c.key.collate("C")
    else:
        # SQLite: with one min() in a grouped query, a bare column is taken from the row holding that
        # minimum — the key's record at its narrowest scope (a key has one record per scope).
        winners = (
            select(memory.c.key, func.min(rank).label("scope_rank"), memory.c.updated_at)
            .where(at_scopes)
            .group_by(memory.c.key)
            .cte("winners")
        )
        key_order = winners.c.key
    pinned = select(memory.c.key).where(_at_scopes(count), memory.c.pinned).cte("pinned_keys")
    chosen = (
        select(winners.c.key)
        .order_by(
            winners.c.key.in_(select(pinned.c.key)).desc(),
            winners.c.scope_rank,
            winners.c.updated_at.desc(),
            key_order,
        )
        .limit(bindparam("limit", type_=Integer()))
    )
    keys = select(func.count()).select_from(winners).scalar_subquery()
    pinned_keys = select(func.count(distinct(pinned.c.key))).scalar_subquery()
    return select(keys, pinned_keys, *MEMORY_COLUMNS).where(_at_scopes(count), memory.c.key.in_(chosen))
