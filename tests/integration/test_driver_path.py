"""SQLite's point reads run inline on the event loop's thread, and a turn's statements on the driver:
the answers must be exactly those of the pooled path, a lock must never stall the loop, and nothing
must stay open once the engine is disposed."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import bindparam, exc, select
from sqlalchemy.ext.asyncio import AsyncEngine

from store import Actor
from store.persistence import engine as engine_module
from store.persistence import open_engine, upgrade
from store.persistence.driver import point_rows, run_statement
from store.persistence.engine import reading, writing
from store.persistence.journal import RunJournal
from store.persistence.outage import database_unavailable
from store.persistence.people import KnownPeople
from store.persistence.tables import KnownPersonRow, table_of

people = table_of(KnownPersonRow)
PERSON = select(people.c.id, people.c.tenant_ref, people.c.roles, people.c.last_seen_at).where(
    people.c.id == bindparam("id")
)


@pytest.fixture
async def sqlite_file(tmp_path: Path) -> AsyncIterator[tuple[AsyncEngine, Path]]:
    path = tmp_path / "inline.sqlite3"
    url = f"sqlite+aiosqlite:///{path}"
    await upgrade(url)
    engine = open_engine(url)
    try:
        yield engine, path
    finally:
        await engine.dispose()


def _open_files(path: Path) -> int:
    """How many of this process's file descriptors are the database file."""
    fds = Path("/proc/self/fd")
    return sum(1 for fd in fds.iterdir() if os.path.realpath(fd) == str(path.resolve()))


async def test_an_inline_read_answers_what_the_pooled_path_answers_and_sees_every_commit(
    sqlite_file: tuple[AsyncEngine, Path],
) -> None:
    engine, _path = sqlite_file
    seen = KnownPeople(engine)
    assert await point_rows(engine, PERSON, {"id": "ada"}) == []
    for tenant in ("berlin", "lyon", None):
        await seen.note(Actor("ada", tenant, ("staff",)))
        inline = await point_rows(engine, PERSON, {"id": "ada"})
        async with reading(engine) as connection:
            pooled = await run_statement(connection, PERSON, {"id": "ada"})
        assert inline == pooled
        assert [tuple(row[:3]) for row in inline] == [("ada", tenant, '["staff"]')]


async def test_an_inline_read_that_meets_a_lock_never_stalls_the_loop_and_answers_once_it_is_free(
    sqlite_file: tuple[AsyncEngine, Path],
) -> None:
    engine, path = sqlite_file
    await KnownPeople(engine).note(Actor("ada", "berlin"))
    await engine.dispose()  # checkpoints the log, so the exclusive holder below is the only one
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("UPDATE known_person SET tenant_ref = 'lyon' WHERE id = 'ada'")

    def release_later() -> None:
        time.sleep(0.5)
        holder.execute("COMMIT")
        holder.close()

    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.01)

    ticker = asyncio.create_task(tick())
    releaser = threading.Thread(target=release_later)
    started = time.monotonic()
    releaser.start()
    try:
        rows = await point_rows(engine, PERSON, {"id": "ada"})
    finally:
        ticker.cancel()
        releaser.join()
    assert time.monotonic() - started >= 0.4, "the read answered while the database was locked"
    assert ticks >= 10, "the event loop stood still while the database was locked"
    assert rows[0][1] == "lyon"


async def test_a_disposed_engine_leaves_no_inline_connection_open(sqlite_file: tuple[AsyncEngine, Path]) -> None:
    engine, path = sqlite_file
    await point_rows(engine, PERSON, {"id": "ada"})
    await engine.dispose()
    assert _open_files(path) == 0
    assert await point_rows(engine, PERSON, {"id": "ada"}) == []  # and a later read opens anew


async def test_an_in_memory_database_is_read_pooled() -> None:
    engine = open_engine("sqlite+aiosqlite://")
    try:
        async with engine.begin() as connection:
            await connection.run_sync(people.metadata.create_all, tables=[people])
        await KnownPeople(engine).note(Actor("ada", "berlin"))
        assert [row[0] for row in await point_rows(engine, PERSON, {"id": "ada"})] == ["ada"]
    finally:
        await engine.dispose()


async def test_a_write_lock_held_past_the_busy_timeout_is_an_outage_raised_from_the_begin(
    sqlite_file: tuple[AsyncEngine, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The BEGIN IMMEDIATE runs in the dialect's begin: a lock held too long still surfaces as
    SQLAlchemy's OperationalError, which the web layer answers with 503."""
    _engine, path = sqlite_file
    monkeypatch.setattr(engine_module, "BUSY_TIMEOUT_MS", 200)
    engine = open_engine(f"sqlite+aiosqlite:///{path}")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(exc.OperationalError) as raised:
            async with writing(engine) as connection:
                await run_statement(connection, PERSON, {"id": "ada"})
        assert database_unavailable(raised.value)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        await engine.dispose()
    # once the lock is free, the same engine writes again
    engine = open_engine(f"sqlite+aiosqlite:///{path}")
    try:
        await KnownPeople(engine).note(Actor("ada", "berlin"))
        assert (await point_rows(engine, PERSON, {"id": "ada"}))[0][1] == "berlin"
    finally:
        await engine.dispose()


async def test_a_replay_read_inline_returns_the_stored_text_byte_for_byte(
    sqlite_file: tuple[AsyncEngine, Path],
) -> None:
    engine, _path = sqlite_file
    journal = RunJournal(engine)
    payload = '{"block":"Grüße — 東京 🚚 \\"quoted\\"","n":[1,2,3]}'
    assert await journal.store_json("run_1", "memory:digest", payload, actor_id="ada") == (True, payload)
    assert await journal.stored_json("run_1", "memory:digest") == payload
    assert await journal.stored_json("run_2", "memory:digest") is None
