"""Turns' reads share a quarter of the pool (`borrowed_reading`): a read that finds every lent
connection in use waits for one to come back instead of checking another out of the pool and back
in — but never for long, never for a second connection while it holds one, and a connection handed
to a read that is cancelled meanwhile is not lost."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.pool import QueuePool

from store.persistence import driver as driver_module
from store.persistence.driver import KEPT_SHARE, borrowed_reading, kept_readers
from store.persistence.engine import open_engine
from store.persistence.memories import records_at_scopes

SCOPES = ("actor:ada", "global")
LENT = 2
"""What a pool of `LENT * KEPT_SHARE` connections lends its reads."""


@pytest.fixture
async def small_pool(database_url: str) -> AsyncIterator[AsyncEngine]:
    engine = open_engine(database_url, pool_size=LENT * KEPT_SHARE, pool_timeout=5)
    try:
        yield engine
    finally:
        await engine.dispose()


@asynccontextmanager
async def reads_holding(engine: AsyncEngine, count: int) -> AsyncIterator[None]:
    """`count` reads of other tasks, each holding its borrowed connection for the time of the block."""
    held, done = asyncio.Barrier(count + 1), asyncio.Event()

    async def hold() -> None:
        async with borrowed_reading(engine):
            await held.wait()
            await done.wait()

    holders = [asyncio.create_task(hold()) for _ in range(count)]
    await held.wait()
    try:
        yield
    finally:
        done.set()
        await asyncio.gather(*holders)


def _checkouts(engine: AsyncEngine) -> list[object]:
    seen: list[object] = []
    event.listen(engine.sync_engine, "checkout", lambda connection, *_: seen.append(connection))
    return seen


def _lent_all_kept(engine: AsyncEngine) -> bool:
    """Whether the lent connections, and no more, are out of the pool, all kept for the next reads."""
    return kept_readers(engine) == LENT and _checked_out(engine) == LENT


def _checked_out(engine: AsyncEngine) -> int:
    pool = engine.sync_engine.pool
    assert isinstance(pool, QueuePool)
    return pool.checkedout()


async def test_many_reads_at_once_share_the_lent_connections_without_checking_out_more(
    small_pool: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(driver_module, "LEND_WAIT_SECONDS", 10.0)
    checkouts = _checkouts(small_pool)
    most_at_once, at_once = 0, 0

    async def read() -> None:
        nonlocal most_at_once, at_once
        async with borrowed_reading(small_pool) as connection:
            at_once += 1
            most_at_once = max(most_at_once, at_once)
            await records_at_scopes(connection, SCOPES)
            await asyncio.sleep(0.01)
            at_once -= 1

    await asyncio.wait_for(asyncio.gather(*(read() for _ in range(12))), timeout=5)

    assert most_at_once == LENT
    assert len(checkouts) == LENT
    assert _lent_all_kept(small_pool)


async def test_a_read_waits_no_longer_than_the_lend_wait_then_takes_a_connection_from_the_pool(
    small_pool: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(driver_module, "LEND_WAIT_SECONDS", 0.05)

    async with reads_holding(small_pool, LENT), borrowed_reading(small_pool) as connection:
        assert await records_at_scopes(connection, SCOPES) == []
        assert _checked_out(small_pool) == LENT + 1

    assert _lent_all_kept(small_pool)  # the one taken past the lent ones went back


async def test_a_task_holding_a_lent_connection_never_waits_for_a_second(
    small_pool: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(driver_module, "LEND_WAIT_SECONDS", 10.0)

    async def nested() -> None:
        async with borrowed_reading(small_pool), borrowed_reading(small_pool) as second:
            await records_at_scopes(second, SCOPES)

    async with reads_holding(small_pool, LENT - 1):
        await asyncio.wait_for(nested(), timeout=2)
    assert _checked_out(small_pool) == LENT


async def test_a_read_that_failed_lets_a_waiting_read_borrow_in_its_place(
    small_pool: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(driver_module, "LEND_WAIT_SECONDS", 10.0)
    held, fail, done = asyncio.Barrier(LENT + 1), asyncio.Event(), asyncio.Event()

    async def hold(failing: bool) -> None:
        async with borrowed_reading(small_pool):
            await held.wait()
            await (fail if failing else done).wait()
            if failing:
                raise RuntimeError("the read failed")

    failing = asyncio.create_task(hold(failing=True))
    steady = asyncio.create_task(hold(failing=False))
    await held.wait()

    async def read() -> list[object]:
        async with borrowed_reading(small_pool) as connection:
            return list(await records_at_scopes(connection, SCOPES))

    waiting = asyncio.create_task(read())
    await asyncio.sleep(0.01)
    assert not waiting.done()
    fail.set()

    assert await asyncio.wait_for(waiting, timeout=2) == []
    with pytest.raises(RuntimeError, match="the read failed"):
        await failing
    done.set()
    await steady
    assert _lent_all_kept(small_pool)


async def test_a_connection_handed_to_a_read_cancelled_before_it_ran_is_kept_not_lost(
    small_pool: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(driver_module, "LEND_WAIT_SECONDS", 10.0)
    checkouts = _checkouts(small_pool)

    async def read() -> None:
        async with borrowed_reading(small_pool):
            pass

    async with reads_holding(small_pool, LENT - 1):
        async with borrowed_reading(small_pool):
            # a read of another request: it does not share this task's lent connection, so it waits
            waiting = asyncio.create_task(read(), context=contextvars.Context())
            for _ in range(5):
                await asyncio.sleep(0)
            assert not waiting.done()
        # leaving the block handed its connection to the waiting read, which has not run yet
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting

    assert _lent_all_kept(small_pool)
    await read()  # served by what is kept: no checkout
    assert len(checkouts) == LENT
