"""SQLite's write-ahead log is checkpointed beside the writes, not inside them (`store.persistence.wal`):
a commit does not copy the log into the database file, a background task does, and keeps what is
left to copy small under sustained writes; the safety net bounds the log when that task cannot run;
a failing checkpoint never reaches a write; disposing an engine, or a loop closing, leaves nothing
running and no connection broken."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text

from store import MemoryOrigin, MemoryRecord
from store.persistence import SqlMemoryProvider, open_engine, wal
from store.persistence import engine as engine_module
from store.persistence.engine import checkpoints_settled
from tests.integration.builders import ADA, BEA, CAL, ctx
from tests.integration.wal_log import database_path, log_file_frames, log_state

SLOW_CHECKPOINT = (
    "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 3000000) "
    "SELECT 1, 0, 0 FROM (SELECT max(x) FROM n)"
)
"""A checkpoint statement that takes a few tenths of a second and answers "busy" (one round)."""


def bulk(count: int) -> list[MemoryRecord]:
    stamp = datetime(2026, 11, 1, tzinfo=UTC)
    return [
        MemoryRecord(
            id=f"mem_bulk_{n}",
            key=f"bulk-{n}",
            text=f"fact w{n}x about the depot route and shift {n % 97}",
            scope="actor:ada",
            origin=MemoryOrigin("human"),
            updated_at=stamp,
        )
        for n in range(count)
    ]


async def write(provider: SqlMemoryProvider, n: int, person: str = "ada") -> None:
    actor = {"ada": ADA, "bea": BEA, "cal": CAL}[person]
    await provider.write(
        key=f"note-{n % 50}",
        text=f"noted w{n}x while writing",
        scope=f"actor:{person}",
        origin=MemoryOrigin("agent", actor_ref=person),
        ctx=ctx(actor),
    )


async def _file_once_opened(provider: SqlMemoryProvider, database: Path) -> bytes:
    """The database file's bytes after a first read has opened it (and set up its log)."""
    await provider.list(scopes=["actor:ada"], ctx=ctx())
    return await asyncio.to_thread(database.read_bytes)


def connection_threads() -> set[threading.Thread]:
    return {thread for thread in threading.enumerate() if thread.name.endswith("(_connection_worker_thread)")}


def running_checkpoints() -> list[asyncio.Task[object]]:
    return [task for task in asyncio.all_tasks() if task.get_name() == wal.TASK_NAME and not task.done()]


async def test_a_commit_that_fills_the_log_past_sqlites_default_leaves_the_database_file_alone(
    sqlite_database_url: str,
) -> None:
    database = database_path(sqlite_database_url)
    engine = open_engine(sqlite_database_url)
    try:
        provider = SqlMemoryProvider(engine)
        before = await _file_once_opened(provider, database)

        await provider.add(bulk(8_000))  # one commit

        assert log_state(database).frames > 1_000  # SQLite's default would have checkpointed in this commit
        assert log_state(database).copied == 0
        assert database.read_bytes() == before
    finally:
        await engine.dispose()


async def test_after_enough_commits_the_log_is_copied_in_the_background(sqlite_database_url: str) -> None:
    database = database_path(sqlite_database_url)
    engine = open_engine(sqlite_database_url)
    try:
        provider = SqlMemoryProvider(engine)
        before = await _file_once_opened(provider, database)
        for n in range(wal.CHECKPOINT_EVERY - 1):
            await write(provider, n)
        await checkpoints_settled(engine)
        assert log_state(database).copied == 0
        assert database.read_bytes() == before

        await write(provider, wal.CHECKPOINT_EVERY)  # returns before the checkpoint has begun
        assert log_state(database).copied == 0
        await checkpoints_settled(engine)

        state = log_state(database)
        assert state.frames > 0
        assert state.copied == state.frames
        assert database.read_bytes() != before
    finally:
        await engine.dispose()


async def test_under_sustained_writes_what_is_left_to_copy_stays_small(sqlite_database_url: str) -> None:
    """Four writers, 3,000 writes back to back: some 30,000 frames, three times the safety net. The
    log starts over only when a writer begins after a checkpoint copied all of it; back to back,
    that is the safety net's doing, and it has little left to copy."""
    database = database_path(sqlite_database_url)
    engine = open_engine(sqlite_database_url)
    behind: list[int] = []
    writes = iter(range(3_000))

    async def writer(person: str) -> None:
        for n in writes:
            await write(provider, n, person)
            behind.append(log_state(database).behind)

    try:
        provider = SqlMemoryProvider(engine)
        await asyncio.gather(*(writer(person) for person in ("ada", "bea", "cal", "ada")))
    finally:
        await engine.dispose()

    assert len(behind) == 3_000
    assert max(behind) < 5_000  # some 200 here, 10,000 with no background checkpoints; the margin is a slow disk's
    assert log_file_frames(database) < wal.SAFETY_NET_PAGES + 100


async def test_when_no_background_checkpoint_runs_the_safety_net_bounds_the_log(
    sqlite_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(wal, "CHECKPOINT_EVERY", 10**9)
    monkeypatch.setattr(engine_module, "SAFETY_NET_PAGES", 600)  # below SQLite's default of 1,000
    database = database_path(sqlite_database_url)
    engine = open_engine(sqlite_database_url)
    most = 0
    try:
        provider = SqlMemoryProvider(engine)
        for n in range(600):  # some 6,000 frames
            await write(provider, n)
            most = max(most, log_state(database).frames)
        assert running_checkpoints() == []
    finally:
        await engine.dispose()

    assert 600 <= most < 650
    assert log_file_frames(database) < 650


async def test_a_failing_background_checkpoint_never_reaches_a_write_and_is_tried_again(
    sqlite_database_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(wal, "_PASSIVE", "SELECT * FROM no_such_table")
    monkeypatch.setattr(engine_module, "SAFETY_NET_PAGES", 600)
    database = database_path(sqlite_database_url)
    engine = open_engine(sqlite_database_url)
    try:
        provider = SqlMemoryProvider(engine)
        with caplog.at_level(logging.WARNING, logger=wal.__name__):
            for n in range(3 * wal.CHECKPOINT_EVERY + 1):
                await write(provider, n)
                await checkpoints_settled(engine)
        assert len(await provider.list(scopes=["actor:ada"], ctx=ctx())) == 50
    finally:
        await engine.dispose()

    failures = [record for record in caplog.records if "background WAL checkpoint failed" in record.message]
    assert len(failures) == 3
    assert all(record.levelno == logging.WARNING and "no such table" in record.message for record in failures)
    assert log_file_frames(database) < 650  # the safety net held


async def test_disposing_the_engine_waits_for_a_running_checkpoint_and_closes_its_connection(
    sqlite_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(wal, "_PASSIVE", SLOW_CHECKPOINT)
    threads_before = connection_threads()
    engine = open_engine(sqlite_database_url)
    provider = SqlMemoryProvider(engine)
    for n in range(wal.CHECKPOINT_EVERY):
        await write(provider, n)
    await asyncio.sleep(0.05)
    assert len(running_checkpoints()) == 1

    await engine.dispose()

    assert running_checkpoints() == []
    for thread in connection_threads() - threads_before:
        thread.join(timeout=5)
        assert not thread.is_alive()


def test_a_loop_closing_on_a_running_checkpoint_leaves_its_connection_working(
    sqlite_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """asyncio.run cancels what is still running when its coroutine returns, here a checkpoint whose
    statement runs on aiosqlite's thread; were the loop closed before that thread hands back the
    result, the thread would die, and its pooled connection would hang whoever got it next."""
    monkeypatch.setattr(wal, "_PASSIVE", SLOW_CHECKPOINT)
    threads_before = connection_threads()
    engine = open_engine(sqlite_database_url)
    provider = SqlMemoryProvider(engine)

    async def write_and_leave() -> None:
        for n in range(wal.CHECKPOINT_EVERY):
            await write(provider, n)
        await asyncio.sleep(0.05)
        assert len(running_checkpoints()) == 1

    async def count_on_every_connection() -> int:
        connections = [await engine.connect() for _ in range(3)]  # all the pool holds, and more
        try:
            counts = [(await c.execute(text("SELECT count(*) FROM agent_memory"))).scalar_one() for c in connections]
        finally:
            for connection in connections:
                await connection.close()
        return int(min(counts))

    asyncio.run(write_and_leave())
    threads = connection_threads() - threads_before
    time.sleep(1)  # time enough for the statement to end, had the loop not waited for it
    assert threads
    assert all(thread.is_alive() for thread in threads)
    try:
        assert asyncio.run(count_on_every_connection()) == wal.CHECKPOINT_EVERY
    finally:
        asyncio.run(engine.dispose())


async def test_a_checkpoint_that_finds_another_at_work_steps_aside_quietly_and_later_ones_still_run(
    sqlite_database_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """What SQLite answers a PASSIVE checkpoint while another connection (another worker's) holds the
    checkpoint lock: busy, and no frame counts. Nothing to retry, nothing to warn about."""
    monkeypatch.setattr(wal, "_PASSIVE", "SELECT 1, -1, -1")
    engine = open_engine(sqlite_database_url)
    try:
        provider = SqlMemoryProvider(engine)
        with caplog.at_level(logging.DEBUG, logger=wal.__name__):
            for n in range(3 * wal.CHECKPOINT_EVERY):
                await write(provider, n)
                await checkpoints_settled(engine)
    finally:
        await engine.dispose()

    assert [record.levelno for record in caplog.records] == [logging.DEBUG] * 3
    assert all("1 rounds, busy 1" in record.message for record in caplog.records)


async def test_two_engines_on_one_file_checkpoint_beside_each_other(
    sqlite_database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """As two worker processes would: separate pools, each with its own background checkpoints."""
    caplog.set_level(logging.WARNING, logger=wal.__name__)
    database = database_path(sqlite_database_url)
    engines = [open_engine(sqlite_database_url) for _ in range(2)]
    behind: list[int] = []
    try:
        providers = [SqlMemoryProvider(engine) for engine in engines]

        async def writer(provider: SqlMemoryProvider, person: str) -> None:
            for n in range(1_000):
                await write(provider, n, person)
                behind.append(log_state(database).behind)

        await asyncio.gather(writer(providers[0], "ada"), writer(providers[1], "bea"))
        async with engines[0].connect() as connection:
            integrity = (await connection.execute(text("PRAGMA integrity_check"))).scalars().all()
            rows = (await connection.execute(text("SELECT count(*) FROM agent_memory"))).scalar_one()
    finally:
        for engine in engines:
            await engine.dispose()

    assert integrity == ["ok"]
    assert rows == 100
    assert max(behind) < 5_000  # some 300 here
    assert caplog.records == []


async def test_after_a_burst_the_log_file_is_cut_back_when_the_log_starts_over(
    sqlite_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A burst grows the log file; its old page images (forgotten facts among them) must not stay in
    a file of that size: once the log is copied and starts over, the file is cut back to the limit."""
    limit = 64 * 1024
    monkeypatch.setattr(engine_module, "WAL_FILE_LIMIT_BYTES", limit)
    engine = open_engine(sqlite_database_url)
    try:
        provider = SqlMemoryProvider(engine)
        await provider.add(bulk(3_000))  # one transaction, far past the limit
        wal_file = database_path(sqlite_database_url).with_name(database_path(sqlite_database_url).name + "-wal")
        assert wal_file.stat().st_size > 4 * limit
        await checkpoints_settled(engine)
        async with engine.connect() as connection:
            await connection.execute(text("PRAGMA wal_checkpoint(PASSIVE)"))
        await write(provider, 1)  # the first write after a whole copy starts the log over

        assert wal_file.stat().st_size <= limit
    finally:
        await engine.dispose()
