"""A turn's short read runs inline on SQLite, with no trip to aiosqlite's thread: it must answer what
the pooled path answers on every backend, see every commit, and never hold the event loop for long —
a read of many rows, or one that runs past its step budget, still goes through the thread."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import aiosqlite
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from store.domain.types import MemoryRecord, Shortlist
from store.persistence import driver as driver_module
from store.persistence.driver import INLINE_ROWS_AT_MOST, BorrowedConnection, borrowed_reading
from store.persistence.engine import reading
from store.persistence.memories import records_at_scopes, records_at_scopes_up_to
from store.persistence.provider import SqlMemoryProvider
from store.persistence.shortlist import WHOLE_LIST_AT_MOST
from tests.builders import make_record
from tests.integration.builders import ADA, agent_origin, ctx, scopes_of

SCOPES = scopes_of(ADA)


def _memories(count: int, *, prefix: str = "k") -> list[MemoryRecord]:
    """`count` memories over Ada's three scopes, a third of the keys held at two of them."""
    made = []
    for n in range(count):
        scope = SCOPES[n % 3]
        key = f"{prefix}-{n // 2 if n % 3 else n}"
        made.append(make_record(key, f"fact {n}", scope, pinned=n % 50 == 0, age_days=n / 1000))
    return made


def _by_id(records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    return sorted(records, key=lambda record: record.id)


class ThreadTrips:
    """Counts the reads that went to aiosqlite's thread (every read of a borrowed connection does)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        original = aiosqlite.Connection.execute_fetchall

        async def counted(connection: aiosqlite.Connection, sql: str, parameters: Any = None) -> Any:
            self.count += 1
            return await original(connection, sql, parameters)

        monkeypatch.setattr(aiosqlite.Connection, "execute_fetchall", counted)


async def _ticks_until(task: asyncio.Task[Any]) -> int:
    """How many times the event loop let this coroutine run again while `task` ran."""
    ticks = 0
    while not task.done():
        ticks += 1
        await asyncio.sleep(0)
    return ticks


@pytest.mark.parametrize("count", [0, 20, WHOLE_LIST_AT_MOST, WHOLE_LIST_AT_MOST + 1])
async def test_a_short_read_answers_what_the_pooled_read_answers_on_every_backend(
    engine: AsyncEngine, count: int
) -> None:
    await SqlMemoryProvider(engine).add(_memories(count))

    async with reading(engine) as connection:
        pooled = await records_at_scopes(connection, SCOPES)
    async with borrowed_reading(engine) as borrowed:
        short = await records_at_scopes_up_to(borrowed, SCOPES, WHOLE_LIST_AT_MOST)

    assert len(pooled) == count
    if count > WHOLE_LIST_AT_MOST:
        assert short is None
    else:
        assert short is not None
        assert _by_id(short) == _by_id(pooled)


async def test_a_turns_short_read_takes_no_trip_to_the_thread_and_sees_every_commit(
    sqlite_engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = SqlMemoryProvider(sqlite_engine)
    await provider.add(_memories(20))
    trips = ThreadTrips(monkeypatch)

    for n in range(3):
        written = await provider.write(
            key=f"new-{n}", text="just said", scope="actor:ada", origin=agent_origin(), ctx=ctx()
        )
        shortlist = await provider.shortlist(scopes=SCOPES, limit=30, ctx=ctx())
        assert written in shortlist.records
        assert len(shortlist.records) == 21 + n

    assert trips.count == 0


async def test_a_read_of_twenty_thousand_rows_goes_through_the_thread_and_the_loop_runs_meanwhile(
    sqlite_engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = SqlMemoryProvider(sqlite_engine)
    await provider.add(_memories(20_000))
    trips = ThreadTrips(monkeypatch)

    reading_task = asyncio.create_task(provider.list(scopes=SCOPES, ctx=ctx()))
    ticks = await _ticks_until(reading_task)

    assert len(await reading_task) == 20_000
    assert trips.count == 1
    assert ticks > 1, "the event loop stood still while twenty thousand rows were read"


async def test_a_ranked_turn_over_a_few_dozen_memories_takes_no_trip_to_the_thread_and_ranks_as_the_thread_does(
    sqlite_engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = SqlMemoryProvider(sqlite_engine)
    await provider.add(_memories(60))
    trips = ThreadTrips(monkeypatch)

    inline = await provider.recall(scopes=SCOPES, query="fact 12 or fact 40", limit=5, ctx=ctx())
    inline_trips = trips.count
    monkeypatch.setattr(driver_module, "INLINE_SEARCH_STEPS_AT_MOST", 0)
    pooled = await provider.recall(scopes=SCOPES, query="fact 12 or fact 40", limit=5, ctx=ctx())

    assert inline.ranked
    assert inline_trips == 0
    assert trips.count == 1, "the search went to the thread; the rest was taken from the first read"
    assert inline == pooled


async def test_a_ranked_turn_over_twenty_thousand_memories_searches_on_the_thread_and_the_loop_runs_meanwhile(
    sqlite_engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = SqlMemoryProvider(sqlite_engine)
    await provider.add(_memories(20_000))
    trips = ThreadTrips(monkeypatch)

    recalling = asyncio.create_task(provider.recall(scopes=SCOPES, query="fact 12", limit=20, ctx=ctx()))
    ticks = await _ticks_until(recalling)

    recalled = await recalling
    assert recalled.ranked
    assert "fact 12" in [record.text for record in recalled.records]
    assert trips.count >= 2, "the keys at the scopes and the search went to the thread"
    assert ticks > 2, "the event loop stood still while twenty thousand memories were searched"


async def test_a_limited_read_of_more_rows_than_the_inline_bound_goes_through_the_thread(
    sqlite_engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    await SqlMemoryProvider(sqlite_engine).add(_memories(INLINE_ROWS_AT_MOST + 10))
    trips = ThreadTrips(monkeypatch)

    async with borrowed_reading(sqlite_engine) as borrowed:
        found = await records_at_scopes_up_to(borrowed, SCOPES, INLINE_ROWS_AT_MOST + 10)

    assert found is not None
    assert len(found) == INLINE_ROWS_AT_MOST + 10
    assert trips.count == 1


async def test_an_inline_read_past_its_step_budget_is_answered_on_the_thread_and_the_connection_kept(
    sqlite_engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = SqlMemoryProvider(sqlite_engine)
    await provider.add(_memories(WHOLE_LIST_AT_MOST))
    expected = await provider.shortlist(scopes=SCOPES, limit=20, ctx=ctx())
    monkeypatch.setattr(driver_module, "INLINE_STEPS_AT_MOST", 2_000)  # a few dozen rows' worth
    trips = ThreadTrips(monkeypatch)

    for _ in range(2):
        shortlist = await provider.shortlist(scopes=SCOPES, limit=20, ctx=ctx())
        assert _same(shortlist, expected)

    assert trips.count == 2
    monkeypatch.undo()
    async with borrowed_reading(sqlite_engine) as borrowed:
        assert isinstance(borrowed, BorrowedConnection)
        assert borrowed.inline is not None
        assert borrowed.inline.rows("SELECT 1", ()) == [(1,)]  # interrupted, not dropped


def _same(found: Shortlist, expected: Shortlist) -> bool:
    return (found.keys, found.pinned_keys, _by_id(found.records)) == (
        expected.keys,
        expected.pinned_keys,
        _by_id(expected.records),
    )
