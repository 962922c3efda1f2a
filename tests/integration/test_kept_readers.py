"""A turn's read keeps its connection for the next turn's, out of the pool (`borrowed_reading`): never
more than a quarter of the pool, never one that failed or that the pool gave up on, and none after
the engine is disposed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import event, exc
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.pool import QueuePool

from store.domain.types import MemoryOrigin
from store.persistence.driver import KEPT_SHARE, borrowed_reading, kept_readers
from store.persistence.engine import open_engine, reading
from store.persistence.memories import records_at_scopes
from store.persistence.migrate import upgrade, upgrade_engine
from store.persistence.provider import SqlMemoryProvider
from tests.integration.builders import ctx

SCOPES = ("actor:ada", "global")
HUMAN = MemoryOrigin(author="human")


def _checkouts(engine: AsyncEngine) -> list[object]:
    seen: list[object] = []
    event.listen(engine.sync_engine, "checkout", lambda connection, *_: seen.append(connection))
    return seen


async def test_a_clean_read_keeps_its_connection_for_the_next(engine: AsyncEngine) -> None:
    checkouts = _checkouts(engine)
    provider = SqlMemoryProvider(engine)
    for _ in range(5):
        await provider.list(scopes=SCOPES, ctx=ctx())
        await provider.shortlist(scopes=SCOPES, limit=20, ctx=ctx())

    assert len(checkouts) == 1  # one checkout served all ten reads
    assert kept_readers(engine) == 1
    pool = engine.sync_engine.pool
    assert isinstance(pool, QueuePool)
    assert pool.checkedout() == 1


async def test_at_most_a_quarter_of_the_pool_is_kept(database_url: str) -> None:
    engine = open_engine(database_url, pool_size=8, pool_timeout=5)
    try:
        all_out, done = asyncio.Barrier(7), asyncio.Event()

        async def read() -> None:
            async with borrowed_reading(engine) as connection:
                await records_at_scopes(connection, SCOPES)
                await all_out.wait()
                await done.wait()

        readers = [asyncio.create_task(read()) for _ in range(6)]
        await all_out.wait()
        done.set()
        await asyncio.gather(*readers)

        assert kept_readers(engine) == 8 // KEPT_SHARE == 2
        pool = engine.sync_engine.pool
        assert isinstance(pool, QueuePool)
        assert pool.checkedout() == 2
        assert pool.checkedin() == 4  # the rest went back, open, for anyone
        # and a writer never waits for what is kept: six writes at once still find connections
        provider = SqlMemoryProvider(engine)
        await asyncio.gather(
            *(provider.write(key=f"k{n}", text="v", scope="actor:ada", origin=HUMAN, ctx=ctx()) for n in range(6))
        )
    finally:
        await engine.dispose()


async def test_a_read_that_failed_gives_its_connection_back(engine: AsyncEngine) -> None:
    await SqlMemoryProvider(engine).list(scopes=SCOPES, ctx=ctx())
    assert kept_readers(engine) == 1

    with pytest.raises(RuntimeError, match="the caller's own failure"):
        async with borrowed_reading(engine):
            raise RuntimeError("the caller's own failure")

    assert kept_readers(engine) == 0
    pool = engine.sync_engine.pool
    assert isinstance(pool, QueuePool)
    assert pool.checkedout() == 0


async def test_when_the_pool_gives_up_a_connection_what_is_kept_goes_back_too(engine: AsyncEngine) -> None:
    """An outage kills every connection at once: the pool replaces the others at their next checkout,
    and a kept one must not fail a turn first."""
    provider = SqlMemoryProvider(engine)
    await provider.list(scopes=SCOPES, ctx=ctx())
    assert kept_readers(engine) == 1
    checkouts = _checkouts(engine)

    async with reading(engine) as other:  # another connection of the pool dies
        pooled = await other.get_raw_connection()
        await other.invalidate()
        assert not pooled.is_valid

    assert len(await provider.list(scopes=SCOPES, ctx=ctx())) == 0
    assert len(checkouts) == 2  # the invalidated reader's, then a checkout instead of the kept one
    assert kept_readers(engine) == 1
    pool = engine.sync_engine.pool
    assert isinstance(pool, QueuePool)
    assert pool.checkedout() == 1


async def test_disposing_of_the_engine_closes_what_is_kept(database_url: str) -> None:
    engine = open_engine(database_url)
    closed: list[object] = []
    event.listen(engine.sync_engine, "close", lambda connection, _record: closed.append(connection))
    await SqlMemoryProvider(engine).list(scopes=SCOPES, ctx=ctx())
    assert kept_readers(engine) == 1

    await engine.dispose()

    assert kept_readers(engine) == 0
    assert len(closed) == 1
    # and the engine still serves after being disposed of, as SQLAlchemy's engines do
    try:
        assert list(await SqlMemoryProvider(engine).list(scopes=SCOPES, ctx=ctx())) == []
    finally:
        await engine.dispose()


async def test_a_pool_too_small_to_share_keeps_nothing(database_url: str) -> None:
    engine = open_engine(database_url, pool_size=KEPT_SHARE - 1)
    try:
        await SqlMemoryProvider(engine).list(scopes=SCOPES, ctx=ctx())
        assert kept_readers(engine) == 0
    finally:
        await engine.dispose()


async def test_an_in_memory_database_keeps_nothing_out_of_its_one_connection() -> None:
    engine = open_engine("sqlite+aiosqlite://")
    try:
        await upgrade_engine(engine)
        provider = SqlMemoryProvider(engine)
        await provider.list(scopes=SCOPES, ctx=ctx())
        assert kept_readers(engine) == 0
    finally:
        await engine.dispose()


async def test_a_database_error_on_a_kept_connection_is_still_sqlalchemys(tmp_path: Path) -> None:
    """No schema: the kept connection's read fails as SQLAlchemy's would, and is given back."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'later.sqlite3'}"
    await upgrade(url)
    engine = open_engine(url)
    try:
        await SqlMemoryProvider(engine).list(scopes=SCOPES, ctx=ctx())
        assert kept_readers(engine) == 1
        async with engine.begin() as connection:
            await connection.exec_driver_sql("ALTER TABLE agent_memory RENAME TO gone")
        with pytest.raises(exc.OperationalError, match="no such table"):
            await SqlMemoryProvider(engine).list(scopes=SCOPES, ctx=ctx())
        assert kept_readers(engine) == 0
    finally:
        await engine.dispose()
