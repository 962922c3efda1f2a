"""The `agent_memory` repository: every statement that reads or changes a memory, named for intent.

Each function takes a connection, so the caller decides the transaction. Reads select the columns
of `MEMORY_COLUMNS` and turn each row into a `MemoryRecord`, the only shape that leaves this package.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple

from sqlalchemy import (
    ColumnElement,
    Insert,
    Row,
    Select,
    bindparam,
    case,
    delete,
    func,
    literal_column,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from store.domain.finding import folded_memory, sort_key
from store.domain.types import MemoryOrigin, MemoryRecord
from store.persistence.driver import (
    INLINE_ROWS_AT_MOST,
    BorrowedConnection,
    ReadConnection,
    driver_rows,
    has_fast_driver,
    run_statement,
    short_rows,
)
from store.persistence.keyed import KeyedStatement, key_chunks
from store.persistence.tables import MemoryRow, table_of
from store.persistence.terms import index_terms
from store.persistence.types import new_id

__all__ = (
    "LIVE",
    "MEMORY_COLUMNS",
    "Meaning",
    "Removed",
    "delete_expired_records",
    "delete_record",
    "delete_record_at_scope",
    "delete_record_returning",
    "delete_records_at_scope",
    "delete_records_returning",
    "expiries_at_scope",
    "expiring_at_scopes",
    "insert_records",
    "insert_records_where_free",
    "keep_record",
    "key_in_code_points",
    "meanings_at_scope",
    "record_at",
    "record_by_id",
    "record_created_at",
    "record_from_row",
    "record_locked",
    "records_at_scopes",
    "records_at_scopes_up_to",
    "records_from_rows",
    "records_from_sqlite_rows",
    "records_narrowest_newest_first",
    "records_of_rows",
    "removal_at_scope",
    "reset_expiry_at_scopes",
    "rewrite_record",
    "rows_at_scopes_up_to",
    "scope_rank",
    "set_pinned",
    "set_pinned_returning",
    "up_to_read_sql",
    "upsert_record",
)

memory = table_of(MemoryRow)
MEMORY_COLUMNS = (
    memory.c.id,
    memory.c.key,
    memory.c.text,
    memory.c.scope,
    memory.c.origin_author,
    memory.c.origin_thread_id,
    memory.c.origin_run_id,
    memory.c.origin_actor_ref,
    memory.c.updated_at,
    memory.c.pinned,
    memory.c.origin_promoted_from,
)
LIVE: ColumnElement[bool] = or_(memory.c.expires_at.is_(None), memory.c.expires_at > func.current_timestamp())
"""A record that has not expired, by the database's own clock: every read that fills a prompt (the
shortlist, a search, a recall) keeps to it, so an expired memory leaves prompts the instant it
expires, for one comparison per row and no other query. The person's own read-back does not: they
see what expired until `onfile prune` removes it, and may keep it."""


def record_from_row(row: Row[Any] | Sequence[Any]) -> MemoryRecord:
    """A row selected as `MEMORY_COLUMNS` (any extra columns after them are ignored)."""
    id, key, text, scope, author, thread_id, run_id, actor_ref, updated_at, pinned, promoted_from = row[:11]
    origin = MemoryOrigin(
        author=author, thread_id=thread_id, run_id=run_id, actor_ref=actor_ref, promoted_from=promoted_from
    )
    return MemoryRecord(
        id=id, key=key, text=text, scope=scope, origin=origin, updated_at=updated_at, pinned=bool(pinned)
    )


def records_from_rows(rows: Iterable[Sequence[Any]]) -> list[MemoryRecord]:
    """`record_from_row` over many rows, as a tight loop: this is the per-turn hot path."""
    record, origin = MemoryRecord, MemoryOrigin
    return [
        record(id, key, text, scope, origin(author, thread_id, run_id, actor_ref, promoted), updated_at, bool(pinned))
        for id, key, text, scope, author, thread_id, run_id, actor_ref, updated_at, pinned, promoted in rows
    ]


def key_in_code_points(dialect: Dialect) -> ColumnElement[str]:
    """`agent_memory.key` ordered as the rules order keys, by code point: on PostgreSQL in byte order
    (`COLLATE "C"`, for UTF-8 the same), whatever the database's own collation; SQLite's binary order
    already is."""
    return memory.c.key.collate("C") if dialect.name == "postgresql" else memory.c.key


def scope_rank(scopes: Sequence[str], scope: ColumnElement[str] | None = None) -> ColumnElement[int]:
    """A record's scope (`scope`, by default `agent_memory.scope`) as its rank in `scopes`, 0 the
    narrowest (a repeated token keeps its first)."""
    ranks: dict[str, int] = {}
    for position, token in enumerate(scopes):
        ranks.setdefault(token, position)
    return case(ranks, value=memory.c.scope if scope is None else scope, else_=len(ranks))


async def records_at_scopes(connection: ReadConnection, scopes: Sequence[str]) -> list[MemoryRecord]:
    """Every record held at one of `scopes`, expired ones included, in no particular order: the
    read-back, and the list a provider that cannot shortlist is asked. On aiosqlite and asyncpg it
    runs on the driver (see `_hot_read`)."""
    if not scopes:
        return []
    if isinstance(connection, BorrowedConnection) or has_fast_driver(connection.dialect):
        return await _hot_read(connection, scopes, ordered=False)
    result = await connection.execute(select(*MEMORY_COLUMNS).where(memory.c.scope.in_(scopes)))
    return records_from_rows(result.all())


async def records_narrowest_newest_first(connection: ReadConnection, scopes: Sequence[str]) -> list[MemoryRecord]:
    """Every record at `scopes` that has not expired, narrowest scope first, newest first within a scope, then by key
    (a repeated scope keeps its first rank). On aiosqlite and asyncpg it runs on the driver."""
    if not scopes:
        return []
    if isinstance(connection, BorrowedConnection) or has_fast_driver(connection.dialect):
        return await _hot_read(connection, scopes, ordered=True)
    statement = (
        select(*MEMORY_COLUMNS)
        .where(memory.c.scope.in_(scopes), LIVE)
        .order_by(scope_rank(scopes), memory.c.updated_at.desc(), key_in_code_points(connection.dialect))
    )
    result = await connection.execute(statement)
    return records_from_rows(result.all())


async def records_at_scopes_up_to(
    connection: ReadConnection, scopes: Sequence[str], most: int
) -> list[MemoryRecord] | None:
    """Every record held at one of `scopes` that has not expired, when there are at most `most` of
    them, in no particular order; None when there are more (telling reads `most + 1` rows, and builds no record)."""
    rows = await rows_at_scopes_up_to(connection, scopes, most)
    return None if rows is None else records_of_rows(connection, rows)


async def rows_at_scopes_up_to(
    connection: ReadConnection, scopes: Sequence[str], most: int
) -> Sequence[Sequence[Any]] | None:
    """The rows `records_at_scopes_up_to` builds its records from (`records_of_rows`), or None."""
    if not scopes:
        return []
    if isinstance(connection, BorrowedConnection) or has_fast_driver(connection.dialect):
        rows = await _hot_rows(connection, scopes, ordered=False, most=most)
        return None if len(rows) > most else rows
    statement = select(*MEMORY_COLUMNS).where(memory.c.scope.in_(scopes), LIVE).limit(most + 1)
    result = await connection.execute(statement)
    found = result.all()
    return None if len(found) > most else found


async def _hot_read(connection: ReadConnection, scopes: Sequence[str], *, ordered: bool) -> list[MemoryRecord]:
    """The list read without SQLAlchemy's execution and result layers: SQL compiled once per
    (dialect, number of distinct scopes, order), run on the driver, records built from its rows."""
    return records_of_rows(connection, await _hot_rows(connection, scopes, ordered=ordered))


async def _hot_rows(
    connection: ReadConnection, scopes: Sequence[str], *, ordered: bool, most: int | None = None
) -> Sequence[Sequence[Any]]:
    """The driver's rows of the list read (at most `most + 1` of them, when `most` is given). A
    repeated scope is asked for once: the same rows, and the rank of its first place. A read limited
    to few enough rows may run inline on SQLite (`store.persistence.driver.short_rows`)."""
    distinct = tuple(dict.fromkeys(scopes))
    dialect = connection.dialect
    shape = (dialect.name, dialect.driver, len(distinct), ordered, most)
    query = _hot_queries.get(shape)
    if query is None:
        query = _hot_queries[shape] = _compile_hot_query(dialect, len(distinct), ordered=ordered, most=most)
    sql, positions = query
    params = [distinct[i] for i in positions]
    if most is not None and most < INLINE_ROWS_AT_MOST:
        return await short_rows(connection, sql, params)
    return await driver_rows(connection, sql, params)


def up_to_read_sql(dialect: Dialect, scopes: Sequence[str], most: int) -> tuple[str, list[str]]:
    """The SQL `records_at_scopes_up_to` runs on the driver, and its parameters (for a benchmark's floor)."""
    distinct = tuple(dict.fromkeys(scopes))
    sql, positions = _compile_hot_query(dialect, len(distinct), ordered=False, most=most)
    return sql, [distinct[i] for i in positions]


def records_of_rows(connection: ReadConnection, rows: Sequence[Sequence[Any]]) -> list[MemoryRecord]:
    """The records of rows selected as `MEMORY_COLUMNS` on `connection` (SQLite's driver keeps times as text)."""
    fast_sqlite = connection.dialect.name == "sqlite" and (
        isinstance(connection, BorrowedConnection) or has_fast_driver(connection.dialect)
    )
    return records_from_sqlite_rows(rows) if fast_sqlite else records_from_rows(rows)


_hot_queries: dict[tuple[str, str, int, bool, int | None], tuple[str, tuple[int, ...]]] = {}
"""Compiled list reads by (dialect, driver, number of scopes, ordered, most): the SQL, and which scope
each of its positional parameters takes."""


def _compile_hot_query(dialect: Dialect, count: int, *, ordered: bool, most: int | None) -> tuple[str, tuple[int, ...]]:
    """The statement `records_at_scopes` (or, `ordered`, `records_narrowest_newest_first`; or, with
    `most`, `records_at_scopes_up_to`) builds, with one named parameter per scope, compiled for
    `dialect`: the same SQL, up to how the scopes are bound.

    `most + 1` is the shape's own number, so it is written into the SQL, not bound. On PostgreSQL the
    limited read is ordered by scope: once asyncpg's prepared statement gets a generic plan, a bare
    LIMIT makes scanning the whole table look cheaper than the scope index (4 ms against 0.17 ms for
    twenty memories in a store of 22,000), while rows wanted in the index's own order keep the index
    in every plan. (A materialized read that knew no limit did too, for some 40 µs more a turn.)"""
    tokens = [bindparam(f"scope_{i}", type_=memory.c.scope.type) for i in range(count)]
    statement: Select[Any] = select(*MEMORY_COLUMNS).where(memory.c.scope.in_(tokens))
    if ordered or most is not None:  # the reads that fill a prompt; the plain list is the read-back
        statement = statement.where(LIVE)
    if ordered:
        ranks: dict[Any, Any] = {token: literal_column(str(i)) for i, token in enumerate(tokens)}
        rank = case(ranks, value=memory.c.scope, else_=literal_column(str(count)))
        statement = statement.order_by(rank, memory.c.updated_at.desc(), key_in_code_points(dialect))
    suffix = ""
    if most is not None and dialect.name == "postgresql":
        statement = statement.order_by(memory.c.scope).limit(literal_column(str(most + 1)))
    elif most is not None:  # SQLAlchemy would add a bound OFFSET to SQLite's LIMIT
        suffix = f" LIMIT {most + 1}"
    compiled = statement.compile(dialect=dialect)
    names = compiled.positiontup or []
    return compiled.string + suffix, tuple(int(name.removeprefix("scope_")) for name in names)


def records_from_sqlite_rows(rows: Iterable[Sequence[Any]]) -> list[MemoryRecord]:
    """`records_from_rows` for SQLite's raw values, converted as `UtcDateTime` and `Boolean` convert
    them on SQLAlchemy's path: the update time is ISO 8601 text in UTC, a pin is 0 or 1."""
    record, origin, utc, parsed = MemoryRecord, MemoryOrigin, _utc_from_sqlite, _parsed_times.get
    return [
        record(
            id,
            key,
            text,
            scope,
            origin(author, thread_id, run_id, actor_ref, promoted),
            parsed(updated_at) or utc(updated_at),
            bool(pinned),
        )
        for id, key, text, scope, author, thread_id, run_id, actor_ref, updated_at, pinned, promoted in rows
    ]


_parsed_times: dict[str, datetime] = {}
"""SQLite's time texts already parsed, by text: a person's turns read the same few dozen records
again and again, and parsing was a third of building one. Emptied when it reaches `_PARSED_AT_MOST`."""
_PARSED_AT_MOST = 16_384


def _utc_from_sqlite(text: str) -> datetime:
    """SQLite's text for a time `UtcDateTime` stored (UTC, without an offset) as an aware UTC time.
    Parsing it with the offset appended costs a sixth of parsing it and then `replace`-ing the zone,
    the larger part of building a record; a text that carries an offset of its own is converted."""
    try:
        found = datetime.fromisoformat(text + "+00:00")
    except ValueError:
        stamp = datetime.fromisoformat(text)
        found = stamp.replace(tzinfo=UTC) if stamp.tzinfo is None else stamp.astimezone(UTC)
    if len(_parsed_times) >= _PARSED_AT_MOST:
        _parsed_times.clear()
    _parsed_times[text] = found
    return found


async def record_by_id(connection: AsyncConnection, id: str) -> MemoryRecord | None:
    result = await connection.execute(select(*MEMORY_COLUMNS).where(memory.c.id == id))
    row = result.first()
    return None if row is None else record_from_row(row)


async def record_created_at(connection: AsyncConnection, id: str) -> datetime | None:
    result = await connection.execute(select(memory.c.created_at).where(memory.c.id == id))
    return result.scalar_one_or_none()


class Meaning(NamedTuple):
    """A record's vector as stored (`store.embedding.vector_bytes`) and the embedder that made it."""

    embedder: str
    vector: bytes


async def upsert_record(
    connection: AsyncConnection,
    *,
    key: str,
    text: str,
    scope: str,
    origin: MemoryOrigin,
    now: datetime,
    meaning: Meaning | None = None,
    expires_at: datetime | None = None,
) -> MemoryRecord:
    """One `INSERT … ON CONFLICT (scope, key) DO UPDATE`: a new fact gets a fresh id; a rewrite replaces
    the text, origin, update time and expiry and keeps the id, the pin and the creation time — so two
    turns concluding one key at once cannot race to a duplicate, and a delete handle already shown
    stays valid."""
    values = {
        "id": new_id("mem"),
        "scope": scope,
        "key": key,
        "text": text,
        "origin_author": origin.author,
        "origin_thread_id": origin.thread_id,
        "origin_run_id": origin.run_id,
        "origin_actor_ref": origin.actor_ref,
        "origin_promoted_from": origin.promoted_from,
        "pinned": False,
        "created_at": now,
        "updated_at": now,
        "search_terms": index_terms(scope, key, text),
        "folded_words": folded_memory(key, text),
        "sort_key": sort_key(key),
        "embedding": None if meaning is None else meaning.vector,
        "embedder": None if meaning is None else meaning.embedder,
        "expires_at": expires_at,
    }
    rows = await run_statement(connection, _UPSERT[connection.dialect.name], values)
    raw_sqlite = (connection.dialect.name, connection.dialect.driver) == ("sqlite", "aiosqlite")
    return records_from_sqlite_rows(rows)[0] if raw_sqlite else record_from_row(rows[0])


async def delete_record_at_scope(connection: AsyncConnection, *, id: str, scope: str) -> bool:
    """Delete the record `id` only if it is held at `scope`; whether a row went.

    The row's index entries go with it (a trigger on SQLite, the generated column on PostgreSQL). What
    the index may keep of them until it is rewritten is digests, never words (`store.persistence.terms`)."""
    result = await connection.execute(delete(memory).where(memory.c.id == id, memory.c.scope == scope))
    return result.rowcount > 0


async def delete_records_at_scope(connection: AsyncConnection, *, scope: str) -> int:
    """Delete every record held at `scope`; how many went."""
    result = await connection.execute(delete(memory).where(memory.c.scope == scope))
    return result.rowcount


_AT_ONCE = 500
"""Ids per statement."""


@dataclass(frozen=True, slots=True)
class Removed:
    """What deleting some records removes: the records, the vectors among them, and their entries in
    the word index (a record whose search terms are empty has none)."""

    records: int
    vectors: int
    index_entries: int


async def removal_at_scope(connection: AsyncConnection, *, scope: str, ids: Sequence[str] | None = None) -> Removed:
    """What deleting the records at `scope` (only those of `ids`, when given) would remove, counted
    in the transaction that then deletes them."""
    counts = select(
        func.count(),
        func.count(memory.c.embedding),
        func.count(case((memory.c.search_terms != "", 1))),
    ).where(memory.c.scope == scope)
    if ids is None:
        records, vectors, entries = (await connection.execute(counts)).one()
        return Removed(records, vectors, entries)
    total = Removed(0, 0, 0)
    distinct = list(dict.fromkeys(ids))
    for start in range(0, len(distinct), _AT_ONCE):
        chunk = counts.where(memory.c.id.in_(distinct[start : start + _AT_ONCE]))
        records, vectors, entries = (await connection.execute(chunk)).one()
        total = Removed(total.records + records, total.vectors + vectors, total.index_entries + entries)
    return total


_ROWS_AT_ONCE = 1_000
"""Rows per insert: fifteen values each, under both backends' limit of 32,766 bound parameters."""


async def delete_records_returning(
    connection: AsyncConnection, *, ids: Sequence[str], scope: str
) -> list[tuple[MemoryRecord, datetime]]:
    """Delete the records `ids` held at `scope` (any other id is left alone); each record as it was
    when it went, with its creation time. Call it inside one transaction: it is one act."""
    gone: list[tuple[MemoryRecord, datetime]] = []
    distinct = list(dict.fromkeys(ids))
    for start in range(0, len(distinct), _AT_ONCE):
        statement = (
            delete(memory)
            .where(memory.c.id.in_(distinct[start : start + _AT_ONCE]), memory.c.scope == scope)
            .returning(*MEMORY_COLUMNS, memory.c.created_at)
        )
        gone.extend((record_from_row(row), row[11]) for row in (await connection.execute(statement)).all())
    return gone


async def meanings_at_scope(connection: AsyncConnection, *, ids: Sequence[str], scope: str) -> dict[str, Meaning]:
    """The vectors of the records `ids` held at `scope` that have one, by id: kept beside what a forget
    stashes, so that its undo puts each back with its vector rather than making it again."""
    found: dict[str, Meaning] = {}
    distinct = list(dict.fromkeys(ids))
    for start in range(0, len(distinct), _AT_ONCE):
        statement = select(memory.c.id, memory.c.embedder, memory.c.embedding).where(
            memory.c.id.in_(distinct[start : start + _AT_ONCE]),
            memory.c.scope == scope,
            memory.c.embedding.is_not(None),
        )
        found.update(
            (id, Meaning(embedder, bytes(vector))) for id, embedder, vector in await _all(connection, statement)
        )
    return found


async def _all(connection: AsyncConnection, statement: Any) -> list[Any]:
    return list((await connection.execute(statement)).all())


async def insert_records_where_free(
    connection: AsyncConnection,
    records: Sequence[tuple[MemoryRecord, datetime]],
    meanings: Sequence[Meaning | None],
) -> list[str]:
    """Insert each (record, creation time) exactly as given (id, text, origin, times, pin), unless its
    id or its (scope, key) is held already, which is left as it is: an insert that never overwrites.
    The ids inserted."""
    rows = [
        {
            **_row_values(r, created_at),
            "folded_words": folded_memory(r.key, r.text),
            "sort_key": sort_key(r.key),
            "embedding": None if m is None else m.vector,
            "embedder": None if m is None else m.embedder,
        }
        for (r, created_at), m in zip(records, meanings, strict=True)
    ]
    insert = postgresql.insert if connection.dialect.name == "postgresql" else sqlite.insert
    inserted: list[str] = []
    for start in range(0, len(rows), _ROWS_AT_ONCE):
        statement = insert(memory).values(rows[start : start + _ROWS_AT_ONCE]).on_conflict_do_nothing()
        inserted.extend(row[0] for row in (await connection.execute(statement.returning(memory.c.id))).all())
    return inserted


async def delete_record(connection: AsyncConnection, *, id: str) -> bool:
    """Delete the record `id` whatever its scope (the administrative delete); whether a row went."""
    result = await connection.execute(delete(memory).where(memory.c.id == id))
    return result.rowcount > 0


async def record_at(connection: AsyncConnection, *, scope: str, key: str) -> MemoryRecord | None:
    result = await connection.execute(select(*MEMORY_COLUMNS).where(memory.c.scope == scope, memory.c.key == key))
    row = result.first()
    return None if row is None else record_from_row(row)


async def record_locked(
    connection: AsyncConnection, *, scope: str, id: str | None = None, key: str | None = None
) -> MemoryRecord | None:
    """The record `id` (or, without one, the one at `key`) held at `scope`, locked until the
    transaction ends, so what a change then replaces is what this read saw: `FOR UPDATE` on
    PostgreSQL (a racer deleting it first leaves nothing to find); SQLite's write transaction already
    holds the whole database. By `key`, a row not written yet has nothing to lock, so on PostgreSQL
    the (scope, key) itself is locked first (a transaction-level advisory lock): of two writers of a
    new key, the second reads what the first wrote instead of nothing."""
    if id is None and connection.dialect.name == "postgresql":
        await connection.execute(select(func.pg_advisory_xact_lock(_advisory_key(scope, key or ""))))
    where = memory.c.id == id if id is not None else memory.c.key == key
    result = await connection.execute(select(*MEMORY_COLUMNS).where(where, memory.c.scope == scope).with_for_update())
    row = result.first()
    return None if row is None else record_from_row(row)


def _advisory_key(scope: str, key: str) -> int:
    """A (scope, key) as a signed 64-bit advisory lock key: the same in every process."""
    digest = hashlib.blake2b(f"{scope}\x00{key}".encode(), digest_size=8, person=b"onfile-key").digest()
    return int.from_bytes(digest, "big", signed=True)


async def rewrite_record(
    connection: AsyncConnection,
    *,
    id: str,
    scope: str,
    text: str,
    origin: MemoryOrigin,
    now: datetime,
    meaning: Meaning | None = None,
) -> tuple[MemoryRecord, MemoryRecord] | None:
    """A new text (origin, update time, index terms) for the existing record `id` at `scope`: an update
    by id that never inserts, so a record deleted meanwhile stays deleted. What it replaced and what it
    is now, or None when there is no such row. Call it inside the transaction that records the change."""
    before = await record_locked(connection, scope=scope, id=id)
    if before is None:
        return None
    statement = (
        update(memory)
        .where(memory.c.id == id)
        .values(
            text=text,
            origin_author=origin.author,
            origin_thread_id=origin.thread_id,
            origin_run_id=origin.run_id,
            origin_actor_ref=origin.actor_ref,
            origin_promoted_from=origin.promoted_from,
            updated_at=now,
            search_terms=index_terms(scope, before.key, text),
            folded_words=folded_memory(before.key, text),
            embedding=None if meaning is None else meaning.vector,
            embedder=None if meaning is None else meaning.embedder,
            **({"expires_at": None} if origin.author == "human" else {}),
        )
        .returning(*MEMORY_COLUMNS)
    )
    return before, record_from_row((await connection.execute(statement)).one())


async def set_pinned_returning(
    connection: AsyncConnection, *, id: str, scope: str, pinned: bool
) -> tuple[MemoryRecord, MemoryRecord] | None:
    """Pin or unpin the existing record `id` at `scope`: what it was and what it is now, or None when
    there is no such row."""
    before = await record_locked(connection, scope=scope, id=id)
    if before is None:
        return None
    statement = update(memory).where(memory.c.id == id).values(pinned=pinned).returning(*MEMORY_COLUMNS)
    return before, record_from_row((await connection.execute(statement)).one())


async def delete_record_returning(connection: AsyncConnection, *, id: str, scope: str) -> MemoryRecord | None:
    """Delete the record `id` held at `scope`; the record as it was when it went, or None."""
    statement = delete(memory).where(memory.c.id == id, memory.c.scope == scope).returning(*MEMORY_COLUMNS)
    row = (await connection.execute(statement)).first()
    return None if row is None else record_from_row(row)


async def set_pinned(connection: AsyncConnection, *, id: str, pinned: bool) -> bool:
    """Pin or unpin the record `id` (its text and times are untouched); whether it exists."""
    result = await connection.execute(update(memory).where(memory.c.id == id).values(pinned=pinned))
    return result.rowcount > 0


async def insert_records(
    connection: AsyncConnection,
    records: Sequence[MemoryRecord],
    meanings: Sequence[Meaning | None] = (),
    *,
    page_columns: bool = True,
) -> None:
    """Store records exactly as given (ids, times, pins), replacing any held at the same (scope, key),
    each with its meaning (`meanings[i]` for `records[i]`; none given, none stored, nor its columns
    named) and, unless `page_columns` is false (a schema before revision 0011), its folded words and
    key. For imports, fixtures and benchmarks; a record's creation time is taken to be its update
    time."""
    given = list(meanings) or [None] * len(records)
    rows = [_row_values(r, r.updated_at) for r in records]
    if page_columns:
        for row, r in zip(rows, records, strict=True):
            row.update(folded_words=folded_memory(r.key, r.text), sort_key=sort_key(r.key))
    if any(m is not None for m in given):  # otherwise the columns are left out: a schema before 0007 works
        for row, m in zip(rows, given, strict=True):
            row.update(embedding=None if m is None else m.vector, embedder=None if m is None else m.embedder)
    if not rows:
        return
    displaced = delete(memory).where(
        or_(
            (memory.c.scope == bindparam("displaced_scope")) & (memory.c.key == bindparam("displaced_key")),
            memory.c.id == bindparam("displaced_id"),
        )
    )
    await connection.execute(
        displaced, [{"displaced_scope": r["scope"], "displaced_key": r["key"], "displaced_id": r["id"]} for r in rows]
    )
    await connection.execute(memory.insert(), rows)


def _row_values(r: MemoryRecord, created_at: datetime) -> dict[str, object]:
    """The columns of `r` as a row (but its meaning), created at `created_at`."""
    return {
        "id": r.id,
        "scope": r.scope,
        "key": r.key,
        "text": r.text,
        "origin_author": r.origin.author,
        "origin_thread_id": r.origin.thread_id,
        "origin_run_id": r.origin.run_id,
        "origin_actor_ref": r.origin.actor_ref,
        "origin_promoted_from": r.origin.promoted_from,
        "pinned": r.pinned,
        "created_at": created_at,
        "updated_at": r.updated_at,
        "search_terms": index_terms(r.scope, r.key, r.text),
    }


_REWRITTEN = (
    "text",
    "origin_author",
    "origin_thread_id",
    "origin_run_id",
    "origin_actor_ref",
    "origin_promoted_from",
    "updated_at",
    "search_terms",
    "folded_words",
    "embedding",
    "embedder",
    "expires_at",
)


def _upsert_for(dialect_name: str) -> Insert:
    """The upsert `upsert_record` runs, every value a named parameter, so it compiles once
    (`run_statement`: one round trip on aiosqlite)."""
    names = (*_REWRITTEN, "id", "scope", "key", "sort_key", "pinned", "created_at")
    insert = postgresql.insert if dialect_name == "postgresql" else sqlite.insert
    values = insert(memory).values({name: bindparam(name, type_=memory.c[name].type) for name in names})
    index = [memory.c.scope, memory.c.key]
    upsert = values.on_conflict_do_update(index_elements=index, set_={n: values.excluded[n] for n in _REWRITTEN})
    return upsert.returning(*MEMORY_COLUMNS)


_UPSERT = {name: _upsert_for(name) for name in ("postgresql", "sqlite")}


async def keep_record(
    connection: AsyncConnection, *, id: str, scope: str, now: datetime, expires_at: datetime | None
) -> bool:
    """The person keeps what the assistant concluded about them, held at their own `scope`: its clock
    starts again at `now`, and it expires at `expires_at` (None: never). Whether there was such a row."""
    statement = (
        update(memory)
        .where(memory.c.id == id, memory.c.scope == scope, memory.c.origin_author == "agent")
        .values(confirmed_at=now, expires_at=expires_at)
    )
    return (await connection.execute(statement)).rowcount > 0


async def reset_expiry_at_scopes(
    connection: AsyncConnection,
    scopes: Select[Any] | Sequence[str],
    expiry: Callable[[datetime, datetime | None], datetime | None],
    ids: Sequence[str] | None = None,
) -> int:
    """Give every record the assistant concluded at one of `scopes` (scope tokens, or a select of them),
    or only those of them among `ids`, the expiry `expiry(updated_at, confirmed_at)` answers; how many
    records were given one."""
    chosen = select(memory.c.seq, memory.c.updated_at, memory.c.confirmed_at).where(
        memory.c.origin_author == "agent", memory.c.scope.in_(scopes)
    )
    batches = (
        [chosen]
        if ids is None
        else [chosen.where(memory.c.id.in_(ids[start : start + _AT_ONCE])) for start in range(0, len(ids), _AT_ONCE)]
    )
    rows: list[tuple[int, datetime, datetime | None]] = []
    for batch in batches:
        rows.extend((seq, updated, confirmed) for seq, updated, confirmed in (await connection.execute(batch)).all())
    changes = [{"row_seq": seq, "row_expires_at": expiry(updated, confirmed)} for seq, updated, confirmed in rows]
    if changes:
        statement = (
            update(memory)
            .where(memory.c.seq == bindparam("row_seq"))
            .values(expires_at=bindparam("row_expires_at", type_=memory.c.expires_at.type))
        )
        await connection.execute(statement, changes)
    return sum(1 for change in changes if change["row_expires_at"] is not None)


async def expiring_at_scopes(
    connection: AsyncConnection,
    scopes: Select[Any] | Sequence[str],
    expiry: Callable[[datetime, datetime | None], datetime | None],
    *,
    now: datetime,
) -> tuple[int, int]:
    """How many of the records the assistant concluded at `scopes` the expiry `expiry(updated_at,
    confirmed_at)` would expire by `now` that have not expired already, and at how many scopes (people)
    they are: what giving them that expiry takes away at once. Nothing is changed."""
    statement = select(memory.c.scope, memory.c.updated_at, memory.c.confirmed_at, memory.c.expires_at).where(
        memory.c.origin_author == "agent", memory.c.scope.in_(scopes)
    )
    going: dict[str, int] = {}
    for scope, updated, confirmed, expires in (await connection.execute(statement)).all():
        after = expiry(updated, confirmed)
        if after is not None and after <= now and (expires is None or expires > now):
            going[scope] = going.get(scope, 0) + 1
    return sum(going.values()), len(going)


async def delete_expired_records(connection: AsyncConnection, *, now: datetime) -> list[tuple[str, str]]:
    """Delete every record that expired by `now`, its vector with it and its search index entries by the
    index's own machinery; `(id, scope)` of each that went."""
    statement = (
        delete(memory)
        .where(memory.c.expires_at.is_not(None), memory.c.expires_at <= now)
        .returning(memory.c.id, memory.c.scope)
    )
    return [(str(id), str(scope)) for id, scope in (await connection.execute(statement)).all()]


async def expiries_at_scope(engine: AsyncEngine, scope: str, ids: Sequence[str]) -> dict[str, datetime]:
    """When each of the records `ids` at `scope` that has an expiry expires (or expired), by id: a page
    asks about the entries it shows, never about every record of a person (`store.persistence.keyed`:
    on a SQLite file, inline)."""
    found: dict[str, datetime] = {}
    for chunk in key_chunks(sorted(set(ids))):
        for id, at_scope, expires_at in await _EXPIRIES.rows(engine, chunk):
            if at_scope == scope:
                found[str(id)] = expires_at
    return found


# By id alone, the scope checked on the rows found: with the scope in the statement SQLite's planner
# walks every record at the scope rather than the few ids asked about.
_EXPIRIES = KeyedStatement(
    lambda ids: select(memory.c.id, memory.c.scope, memory.c.expires_at).where(
        memory.c.id.in_(ids), memory.c.expires_at.is_not(None)
    )
)
