"""The per-turn list read runs on the driver, past SQLAlchemy's result layer: it must return exactly
what SQLAlchemy's own path returns — values, types, time zones and order — fail the way it did, and
never serve a stale answer."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import exc, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.pool import QueuePool

from store.domain.types import MemoryOrigin, MemoryRecord
from store.persistence.driver import BorrowedConnection, borrowed_reading, kept_readers
from store.persistence.engine import open_engine, reading
from store.persistence.memories import (
    MEMORY_COLUMNS,
    _utc_from_sqlite,
    memory,
    records_at_scopes,
    records_at_scopes_up_to,
    records_from_rows,
    records_narrowest_newest_first,
    scope_rank,
    up_to_read_sql,
)
from store.persistence.outage import database_unavailable
from store.persistence.provider import SqlMemoryProvider
from tests.integration.builders import ctx

T = datetime(2026, 3, 29, 1, 59, 59, 999_999, tzinfo=UTC)
SCOPES = ("actor:ada", "tenant:berlin", "global")


def _record(
    n: int, scope: str, key: str, text: str, origin: MemoryOrigin, *, pinned: bool, age: timedelta
) -> MemoryRecord:
    return MemoryRecord(
        id=f"mem_hot_{n:03d}", key=key, text=text, scope=scope, origin=origin, updated_at=T - age, pinned=pinned
    )


TABLE = [
    _record(1, "actor:ada", "tone", "short answers", MemoryOrigin(author="agent"), pinned=False, age=timedelta(0)),
    _record(
        2,
        "tenant:berlin",
        "tone",
        "Grüße — 東京 🚚 «quotes»",
        MemoryOrigin(author="human", thread_id="thr_1", run_id="run_1", actor_ref="lena", promoted_from="mem_x"),
        pinned=True,
        age=timedelta(microseconds=1),
    ),
    _record(3, "global", "units", "kilometres", MemoryOrigin(author="human"), pinned=True, age=timedelta(days=400)),
    _record(
        4,
        "global",
        "ünïcode-ключ",
        "  spaced\ttext\n",
        MemoryOrigin(author="agent", run_id="r"),
        pinned=False,
        age=timedelta(0),
    ),
    _record(5, "actor:ada", "same-time", "a", MemoryOrigin(author="agent"), pinned=False, age=timedelta(0)),
    _record(6, "actor:bea", "tone", "not ada's", MemoryOrigin(author="agent"), pinned=False, age=timedelta(0)),
]


async def _through_sqlalchemy(
    connection: AsyncConnection, scopes: tuple[str, ...], *, ordered: bool
) -> list[MemoryRecord]:
    """The read through SQLAlchemy, as the driver path's reference: its statement, result layer and types."""
    statement = select(*MEMORY_COLUMNS).where(memory.c.scope.in_(scopes))
    if ordered:
        statement = statement.order_by(scope_rank(scopes), memory.c.updated_at.desc(), memory.c.key)
    return records_from_rows((await connection.execute(statement)).all())


@pytest.mark.parametrize(
    "scopes", [SCOPES, ("global",), ("actor:ada", "actor:ada", "global"), ("tenant:nowhere",), ("global", "actor:ada")]
)
async def test_the_driver_read_returns_exactly_what_sqlalchemy_returns(
    engine: AsyncEngine, scopes: tuple[str, ...]
) -> None:
    await SqlMemoryProvider(engine).add(TABLE)

    async with reading(engine) as connection:
        slow = await _through_sqlalchemy(connection, scopes, ordered=False)
        slow_ordered = await _through_sqlalchemy(connection, scopes, ordered=True)
    async with borrowed_reading(engine) as borrowed:
        assert isinstance(borrowed, BorrowedConnection)
        fast = await records_at_scopes(borrowed, scopes)
        fast_ordered = await records_narrowest_newest_first(borrowed, scopes)
        up_to = [await records_at_scopes_up_to(borrowed, scopes, most) for most in range(len(slow) + 1)]

    assert sorted(fast, key=lambda r: r.id) == sorted(slow, key=lambda r: r.id)
    assert fast_ordered == slow_ordered
    # every record while they are at most `most`; past that, nothing
    assert [None if found is None else sorted(found, key=lambda r: r.id) for found in up_to] == [
        *([None] * len(slow)),
        sorted(slow, key=lambda r: r.id),
    ]
    assert {r.id for r in fast} == {r.id for r in TABLE if r.scope in scopes}
    for record in fast + fast_ordered:
        assert record.updated_at.tzinfo is UTC
        assert type(record.pinned) is bool
    assert sorted(fast, key=lambda r: r.id) == [r for r in TABLE if r.scope in scopes]


async def test_a_memory_written_a_moment_ago_is_on_the_next_read(engine: AsyncEngine) -> None:
    provider = SqlMemoryProvider(engine)
    assert list(await provider.list(scopes=SCOPES, ctx=ctx())) == []

    written = await provider.write(
        key="tone", text="short", scope="actor:ada", origin=MemoryOrigin(author="agent"), ctx=ctx()
    )

    assert list(await provider.list(scopes=SCOPES, ctx=ctx())) == [written]
    assert await provider.forget(id=written.id, ctx=ctx())
    assert list(await provider.list(scopes=SCOPES, ctx=ctx())) == []


async def test_a_failed_driver_read_is_raised_as_sqlalchemy_raises_it(tmp_path: Path) -> None:
    """A database without the schema: the driver's error arrives as SQLAlchemy's, a bug (500), not an outage."""
    engine = open_engine(f"sqlite+aiosqlite:///{tmp_path / 'empty.sqlite3'}")
    try:
        async with reading(engine) as connection:
            with pytest.raises(exc.OperationalError, match="no such table") as failed:
                await records_at_scopes(connection, SCOPES)
        assert not database_unavailable(failed.value)
        assert not failed.value.connection_invalidated
    finally:
        await engine.dispose()


@pytest.mark.parametrize("borrowed", [False, True], ids=["sqlalchemy", "borrowed"])
async def test_a_read_on_a_dead_connection_is_an_outage_and_the_pool_drops_it(
    engine: AsyncEngine, borrowed: bool
) -> None:
    await SqlMemoryProvider(engine).add(TABLE)
    async with borrowed_reading(engine) if borrowed else reading(engine) as connection:
        assert isinstance(connection, BorrowedConnection) is borrowed
        pooled = await connection.get_raw_connection()
        assert pooled.driver_connection is not None
        await pooled.driver_connection.close()
        with pytest.raises(exc.DBAPIError) as failed:
            await records_at_scopes(connection, SCOPES)
        assert not pooled.is_valid  # invalidated: the pool will replace it

    assert database_unavailable(failed.value)
    assert len(await SqlMemoryProvider(engine).list(scopes=SCOPES, ctx=ctx())) == 5  # a fresh connection serves
    pool = engine.sync_engine.pool
    assert isinstance(pool, QueuePool)
    # the dead one went back to the pool to be replaced: all that is out is the one the next read kept
    assert pool.checkedout() == kept_readers(engine) == 1


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        ("2026-03-29 01:59:59.999999", datetime(2026, 3, 29, 1, 59, 59, 999_999, tzinfo=UTC)),
        ("2026-03-29 01:59:59", datetime(2026, 3, 29, 1, 59, 59, tzinfo=UTC)),
        ("2026-03-29T03:59:59.5+02:00", datetime(2026, 3, 29, 1, 59, 59, 500_000, tzinfo=UTC)),
    ],
)
def test_a_stored_time_reads_back_as_utc_with_or_without_an_offset_of_its_own(stored: str, expected: datetime) -> None:
    found = _utc_from_sqlite(stored)
    assert (found, found.tzinfo) == (expected, UTC)


@pytest.mark.postgres
async def test_on_postgresql_the_limited_read_keeps_the_scope_index_under_a_generic_plan(
    postgres_database_url: str,
) -> None:
    """asyncpg's prepared statements go generic after a few runs; with a bare LIMIT, PostgreSQL's
    generic plan reads the whole table where a few people hold most of it (4 ms instead of 0.17 for
    twenty memories in 22,000)."""
    engine = open_engine(postgres_database_url)
    try:
        async with engine.begin() as connection:
            await connection.exec_driver_sql(
                "INSERT INTO agent_memory (id, scope, key, text, origin_author, pinned, created_at, updated_at,"
                " search_terms) SELECT 'mem_' || n, CASE WHEN n <= 20 THEN 'actor:p1' ELSE 'actor:big' || (n % 2) END,"
                " 'k' || n, 'fact', 'agent', false, now(), now(), '' FROM generate_series(1, 22000) AS n"
            )
            await connection.exec_driver_sql("ANALYZE agent_memory")
        sql, params = up_to_read_sql(engine.dialect, ("actor:p1", "tenant:none", "global"), 200)
        bare_limit = sql.replace(" ORDER BY agent_memory.scope", "")
        assert bare_limit != sql

        async def generic_plan(statement: str) -> str:
            async with engine.connect() as connection:
                driver: Any = (await connection.get_raw_connection()).driver_connection
                await driver.execute("SET plan_cache_mode = force_generic_plan")
                await driver.execute(f"PREPARE probe (varchar, varchar, varchar) AS {statement}")
                literals = ", ".join(f"'{value}'" for value in params)
                plan = [row[0] for row in await driver.fetch(f"EXPLAIN EXECUTE probe ({literals})")]
                await driver.execute("DEALLOCATE probe")
                await driver.execute("RESET plan_cache_mode")
                return "\n".join(plan)

        assert "Seq Scan" in await generic_plan(bare_limit)  # what the order keeps away
        plan = await generic_plan(sql)
        assert "Seq Scan" not in plan
        # either index leading with the scope serves it: (scope, key), or the page's (scope, updated_at)
        assert re.search(r"Index Scan using (uq_agent_memory_scope_key|ix_agent_memory_scope_updated_at)", plan)
    finally:
        await engine.dispose()
