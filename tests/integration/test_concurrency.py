"""Many writers at once, each on its own connection: they queue rather than fail, and an upsert
racing another on the same key cannot make a duplicate. Connections a burst opened are kept for the
next one."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime

from sqlalchemy import event, exc, text
from sqlalchemy.ext.asyncio import AsyncEngine

from store.domain.types import MemoryOrigin
from store.persistence.driver import borrowed_reading
from store.persistence.engine import BUSY_TIMEOUT_MS, POOL_SIZE, open_engine, writing
from store.persistence.memories import upsert_record
from store.persistence.provider import SqlMemoryProvider
from tests.integration.builders import ADA, ctx

HUMAN = MemoryOrigin(author="human", actor_ref="lena")
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


@asynccontextmanager
async def engines(database_url: str, count: int) -> AsyncIterator[list[AsyncEngine]]:
    """`count` engines on one database: separate pools, so separate connections (and, for SQLite,
    separate threads)."""
    opened = [open_engine(database_url) for _ in range(count)]
    try:
        yield opened
    finally:
        for engine in opened:
            await engine.dispose()


async def test_sqlite_runs_in_production_mode(sqlite_database_url: str) -> None:
    async with engines(sqlite_database_url, 1) as (engine,), engine.connect() as connection:
        journal_mode = (await connection.execute(text("PRAGMA journal_mode"))).scalar_one()
        foreign_keys = (await connection.execute(text("PRAGMA foreign_keys"))).scalar_one()
        busy_timeout = (await connection.execute(text("PRAGMA busy_timeout"))).scalar_one()

    assert (journal_mode, foreign_keys, busy_timeout) == ("wal", 1, BUSY_TIMEOUT_MS)


async def test_concurrent_writers_on_separate_connections_all_succeed(database_url: str) -> None:
    async with engines(database_url, 4) as opened:
        providers = [SqlMemoryProvider(engine) for engine in opened]

        async def write_many(writer: int, provider: SqlMemoryProvider) -> None:
            for n in range(25):
                await provider.write(key=f"k{writer}-{n}", text=f"fact {n}", scope="global", origin=HUMAN, ctx=ctx())

        await asyncio.gather(*(write_many(i, p) for i, p in enumerate(providers)))

        listed = await providers[0].list(scopes=["global"], ctx=ctx(ADA))
        assert len(listed) == 100


async def test_a_sqlite_writer_that_reads_first_queues_behind_a_held_write(sqlite_database_url: str) -> None:
    async with engines(sqlite_database_url, 2) as (holder, waiter):
        held = asyncio.Event()
        release = asyncio.Event()

        async def hold_the_write_lock() -> None:
            async with writing(holder) as connection:
                await upsert_record(
                    connection, key="first", text="holds the lock", scope="global", origin=HUMAN, now=NOW
                )
                held.set()
                await release.wait()

        async def read_then_write() -> str:
            await held.wait()
            async with writing(waiter) as connection:
                await connection.execute(text("SELECT count(*) FROM agent_memory"))
                record = await upsert_record(
                    connection, key="queued", text="waited its turn", scope="global", origin=HUMAN, now=NOW
                )
            return record.text

        holding = asyncio.create_task(hold_the_write_lock())
        queued = asyncio.create_task(read_then_write())
        await held.wait()
        await asyncio.sleep(0.3)
        assert not queued.done(), "the second writer waits for the first instead of failing"
        release.set()
        await holding

        assert await asyncio.wait_for(queued, timeout=5) == "waited its turn"
        listed = await SqlMemoryProvider(waiter).list(scopes=["global"], ctx=ctx())
        assert {r.key for r in listed} == {"first", "queued"}


async def test_sqlite_writers_in_one_process_wait_their_turn_without_holding_a_connection(
    sqlite_database_url: str,
) -> None:
    async with engines(sqlite_database_url, 1) as (engine,):
        held = asyncio.Event()
        release = asyncio.Event()

        async def hold_the_write_lock() -> None:
            async with writing(engine) as connection:
                await upsert_record(connection, key="first", text="holds it", scope="global", origin=HUMAN, now=NOW)
                held.set()
                await release.wait()

        async def write_next(n: int) -> None:
            async with writing(engine) as connection:
                await upsert_record(connection, key=f"next-{n}", text="queued", scope="global", origin=HUMAN, now=NOW)

        holding = asyncio.create_task(hold_the_write_lock())
        await held.wait()
        queued = [asyncio.create_task(write_next(n)) for n in range(3)]
        await asyncio.sleep(0.2)
        # queued in the process, not in SQLite's sleeping busy handler: only the holder has a connection
        assert engine.pool.checkedout() == 1  # type: ignore[attr-defined]
        assert not any(task.done() for task in queued)
        release.set()
        await asyncio.wait_for(asyncio.gather(holding, *queued), timeout=5)

        listed = await SqlMemoryProvider(engine).list(scopes=["global"], ctx=ctx())
        assert {r.key for r in listed} == {"first", "next-0", "next-1", "next-2"}


async def test_racing_upserts_of_one_key_make_one_record(database_url: str) -> None:
    async with engines(database_url, 4) as opened:
        providers = [SqlMemoryProvider(engine) for engine in opened]

        written = await asyncio.gather(
            *(
                p.write(key="units", text=f"from writer {i}", scope="actor:ada", origin=HUMAN, ctx=ctx())
                for i, p in enumerate(providers)
                for _ in range(5)
            )
        )

        listed = await providers[0].list(scopes=["actor:ada"], ctx=ctx())
        assert len(listed) == 1
        assert {r.id for r in written} == {listed[0].id}


async def test_the_pool_never_closes_what_a_burst_opened_so_the_next_burst_opens_nothing(database_url: str) -> None:
    engine = open_engine(database_url, pool_timeout=0.5)
    opened: list[object] = []
    event.listen(engine.sync_engine, "connect", lambda connection, _record: opened.append(connection))

    async def burst() -> bool:
        """POOL_SIZE reads holding their connections at once; whether one more could get one then."""
        all_out, done = asyncio.Barrier(POOL_SIZE + 1), asyncio.Event()

        async def read() -> None:
            async with borrowed_reading(engine):
                await all_out.wait()
                await done.wait()

        readers = [asyncio.create_task(read()) for _ in range(POOL_SIZE)]
        await all_out.wait()
        try:
            async with borrowed_reading(engine):
                one_more = True
        except exc.TimeoutError:  # the pool's own wait for a free connection, 0.5 s here
            one_more = False
        done.set()
        await asyncio.gather(*readers)
        return one_more

    try:
        async with asyncio.timeout(60):
            one_more = await burst()
            after_first = len(opened)
            await burst()
            await burst()
    finally:
        await engine.dispose()

    assert not one_more  # POOL_SIZE is the most there are: none open beyond it, to be closed again
    assert after_first == POOL_SIZE
    assert len(opened) == after_first  # nothing was closed between bursts, so nothing was reopened
