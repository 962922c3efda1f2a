"""SQLite's point reads run inline on the event loop's thread, and a turn's statements on the driver,
some held back until the transaction's next statement or its COMMIT: the answers must be exactly
those of the pooled path, a lock must never stall the loop, nothing must stay open once the engine
is disposed, statements must run in the order they were given, and a transaction must still commit
or fail as a whole."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from unittest.mock import ANY

import aiosqlite
import pytest
from sqlalchemy import bindparam, exc, select
from sqlalchemy.ext.asyncio import AsyncEngine

from store import Actor, MemoryConfig, ScopeContext
from store.domain.codec import record_to_json
from store.persistence import engine as engine_module
from store.persistence import open_engine, upgrade
from store.persistence.driver import hold_back, point_rows, pooled_of, run_statement
from store.persistence.engine import only_if_anchor_inserted, reading, writing
from store.persistence.journal import RunJournal
from store.persistence.outage import database_unavailable
from store.persistence.people import KnownPeople
from store.persistence.provider import SqlMemoryProvider
from store.persistence.registry import ConversationRegistry, Origin
from store.persistence.tables import ConversationRunRow, KnownPersonRow, RunCheckpointRow, table_of
from store.runs import MemoryRuns
from tests.builders import T0

people = table_of(KnownPersonRow)
runs = table_of(ConversationRunRow)
journal = table_of(RunCheckpointRow)
RUN_INTO = runs.insert().values(
    run_id=bindparam("run_id"), thread_id=bindparam("thread_id"), registered_at=bindparam("registered_at")
)
RUN = select(runs.c.run_id, runs.c.thread_id).where(runs.c.run_id == bindparam("run_id"))
JOURNAL_INTO = (
    journal.insert()
    .values(
        run_id=bindparam("run_id"),
        position=bindparam("position"),
        payload=bindparam("payload"),
        created_at=bindparam("created_at"),
    )
    .prefix_with("OR IGNORE")
    .returning(journal.c.run_id)
)
"""An anchor: an insert that returns its row only when it inserted one."""
ENTRY = {"run_id": "run_0", "position": "p", "payload": {"n": 1}, "created_at": T0}
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
        await seen.note(Actor("ada", tenant, ("staff",)), signed_in=True)
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


async def _run_ids(engine: AsyncEngine) -> list[str]:
    """Every registered run id, in order, as committed."""
    async with reading(engine) as connection:
        rows = await run_statement(connection, select(runs.c.run_id).order_by(runs.c.run_id), {})
    return [row[0] for row in rows]


async def _one_connection(path: Path) -> AsyncEngine:
    """An engine whose every transaction reuses one pooled connection."""
    return open_engine(f"sqlite+aiosqlite:///{path}", pool_size=1, max_overflow=0)


async def test_a_held_back_statement_runs_before_whatever_the_transaction_runs_next(
    sqlite_file: tuple[AsyncEngine, Path],
) -> None:
    engine, _path = sqlite_file
    await ConversationRegistry(engine).register_run("run_0", "thr_1", "ada")
    async with writing(engine) as connection:
        for n in (1, 2):
            values = {"run_id": f"run_{n}", "thread_id": "thr_1", "registered_at": T0}
            assert await run_statement(connection, RUN_INTO, values, deferrable=True) == []
        # on the driver: the held-back inserts run first, in the same round trip
        assert [tuple(r) for r in await run_statement(connection, RUN, {"run_id": "run_1"})] == [("run_1", "thr_1")]
        values = {"run_id": "run_3", "thread_id": "thr_1", "registered_at": T0}
        await run_statement(connection, RUN_INTO, values, deferrable=True)
        # through SQLAlchemy: the same
        found = (await connection.execute(select(runs.c.run_id).order_by(runs.c.run_id))).scalars().all()
        assert found == ["run_0", "run_1", "run_2", "run_3"]
        values = {"run_id": "run_4", "thread_id": "thr_1", "registered_at": T0}
        await run_statement(connection, RUN_INTO, values, deferrable=True)  # runs with the COMMIT
    assert await _run_ids(engine) == ["run_0", "run_1", "run_2", "run_3", "run_4"]


async def test_a_held_back_statement_that_fails_at_the_commit_fails_the_whole_transaction(
    sqlite_file: tuple[AsyncEngine, Path],
) -> None:
    _engine, path = sqlite_file
    engine = await _one_connection(path)

    async def register_two() -> None:
        async with writing(engine) as connection:
            await run_statement(connection, RUN_INTO, {"run_id": "a", "thread_id": "thr_9", "registered_at": T0})
            # no such thread: the foreign key refuses it, when it runs, at the COMMIT
            values = {"run_id": "b", "thread_id": "thr_missing", "registered_at": T0}
            assert await run_statement(connection, RUN_INTO, values, deferrable=True) == []

    try:
        await ConversationRegistry(engine).register_run("run_0", "thr_9", "ada")
        with pytest.raises(exc.IntegrityError):
            await register_two()
        assert await _run_ids(engine) == ["run_0"]
        # the same pooled connection then writes cleanly: nothing of the failed transaction is left
        await ConversationRegistry(engine).register_run("c", "thr_2", "ada")
        assert await ConversationRegistry(engine).origins_resolve([Origin("thr_2", "c")]) == {Origin("thr_2", "c")}
        assert await _run_ids(engine) == ["c", "run_0"]
    finally:
        await engine.dispose()


async def test_a_transaction_that_fails_drops_what_it_held_back(sqlite_file: tuple[AsyncEngine, Path]) -> None:
    _engine, path = sqlite_file
    engine = await _one_connection(path)
    try:
        await ConversationRegistry(engine).register_run("run_0", "thr_1", "ada")

        async def fail_after_holding_back() -> None:
            async with writing(engine) as connection:
                values = {"run_id": "run_1", "thread_id": "thr_1", "registered_at": T0}
                await run_statement(connection, RUN_INTO, values, deferrable=True)
                raise RuntimeError("the caller failed")

        with pytest.raises(RuntimeError, match="the caller failed"):
            await fail_after_holding_back()
        async with writing(engine) as connection:  # the same connection: run_1 must not come back
            values = {"run_id": "run_2", "thread_id": "thr_1", "registered_at": T0}
            await run_statement(connection, RUN_INTO, values, deferrable=True)
        assert await _run_ids(engine) == ["run_0", "run_2"]
    finally:
        await engine.dispose()


async def test_outside_a_write_transaction_nothing_is_held_back(sqlite_file: tuple[AsyncEngine, Path]) -> None:
    engine, _path = sqlite_file
    await ConversationRegistry(engine).register_run("run_0", "thr_1", "ada")
    async with reading(engine) as connection:  # a read opens no transaction: the insert runs now
        values = {"run_id": "run_1", "thread_id": "thr_1", "registered_at": T0}
        await run_statement(connection, RUN_INTO, values, deferrable=True)
    assert [tuple(r) for r in await point_rows(engine, RUN, {"run_id": "run_1"})] == [("run_1", "thr_1")]


async def test_what_waits_behind_an_anchor_that_inserted_nothing_never_runs(
    sqlite_file: tuple[AsyncEngine, Path],
) -> None:
    engine, _path = sqlite_file
    await ConversationRegistry(engine).register_run("run_0", "thr_1", "ada")
    for attempt, expected in ((1, ["run_0", "run_1"]), (2, ["run_0", "run_1"])):
        async with writing(engine) as connection:
            assert await hold_back(connection, JOURNAL_INTO, ENTRY, anchor=True)
            with only_if_anchor_inserted():
                values = {"run_id": f"run_{attempt}", "thread_id": "thr_1", "registered_at": T0}
                assert await run_statement(connection, RUN_INTO, values, deferrable=True) == []
        assert await _run_ids(engine) == expected  # the second attempt's anchor inserted nothing


async def test_a_statement_that_cannot_wait_after_a_refused_anchor_raises_instead_of_running(
    sqlite_file: tuple[AsyncEngine, Path],
) -> None:
    engine, _path = sqlite_file
    async with writing(engine) as connection:
        await run_statement(connection, JOURNAL_INTO, ENTRY)

    async def write_after_a_refused_anchor(through_sqlalchemy: bool) -> None:
        async with writing(engine) as connection:
            await hold_back(connection, JOURNAL_INTO, ENTRY, anchor=True)
            with only_if_anchor_inserted():
                if through_sqlalchemy:
                    await connection.execute(select(runs.c.run_id))
                else:
                    await run_statement(connection, select(runs.c.run_id), {})

    for through_sqlalchemy in (False, True):
        with pytest.raises(RuntimeError, match="anchor that inserted nothing"):
            await write_after_a_refused_anchor(through_sqlalchemy)


async def test_a_remember_on_sqlite_is_three_round_trips_and_stores_what_it_answers(
    sqlite_file: tuple[AsyncEngine, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lookup of the call's position (with the held-back BEGIN IMMEDIATE), the upsert, and the
    checkpoint's insert with the COMMIT: the position was found empty under the write lock, so the
    insert waits for the COMMIT and the answer is the payload as it reads back."""
    engine, _ = sqlite_file
    provider = SqlMemoryProvider(engine)
    journal_ = RunJournal(engine)
    memory_runs = MemoryRuns(MemoryConfig(provider=provider), journal_, ConversationRegistry(engine))
    ada = Actor("ada", "berlin")
    await memory_runs.begin("run_1", actor=ada, thread_id="thr_1", text="")
    trips: list[object] = []
    execute: Any = aiosqlite.Connection._execute

    async def counted(self: aiosqlite.Connection, fn: Any, *args: Any, **kwargs: Any) -> Any:
        trips.append(fn)
        return await execute(self, fn, *args, **kwargs)

    monkeypatch.setattr(aiosqlite.Connection, "_execute", counted)

    outcome = await memory_runs.remember("run_1", call_id="call_1", key="tone", fact="short answers")

    assert len(trips) == 3
    assert outcome.ok
    assert outcome.record is not None
    stored = await journal_.stored_json("run_1", "tool:call_1")
    assert stored is not None
    assert json.loads(stored) == {"ok": True, "record": record_to_json(outcome.record), "arguments": ANY}
    assert [r.text for r in await provider.list(scopes=["actor:ada"], ctx=ScopeContext(ada))] == ["short answers"]
    again = await memory_runs.remember("run_1", call_id="call_1", key="tone", fact="short answers")
    assert again == outcome


class WriteInterruptedError(Exception):
    """Something failed after the writes of a transaction, before its commit."""


async def test_a_new_runs_writes_on_the_driver_roll_back_with_their_transaction_on_every_backend(
    engine: AsyncEngine,
) -> None:
    journal, registry, seen = RunJournal(engine), ConversationRegistry(engine), KnownPeople(engine)
    ada = Actor("ada", "berlin")

    async def alongside_then_fail() -> None:
        await registry.register_run("run_1", "thr_1", ada.id)
        await seen.note(ada)
        raise WriteInterruptedError

    with pytest.raises(WriteInterruptedError):
        await journal.store_json(
            "run_1", "memory:digest", '{"first": true}', actor_id="ada", alongside=alongside_then_fail
        )

    assert await journal.stored_json("run_1", "memory:digest") is None
    assert await seen.find("ada") is None
    assert await registry.erase_actor("ada") == 0, "neither the run nor its thread"

    async def alongside() -> None:
        await registry.register_run("run_1", "thr_1", ada.id)
        await seen.note(ada)

    won, _ = await journal.store_json("run_1", "memory:digest", "{}", actor_id="ada", alongside=alongside)
    assert won
    assert await seen.find("ada") == ada
    assert await registry.erase_actor("ada") == 2  # the run and its thread


async def test_a_statement_run_first_on_the_driver_inside_a_transaction_is_part_of_it(engine: AsyncEngine) -> None:
    values = {"id": "ada", "tenant_ref": "berlin", "roles": "[]", "last_seen_at": T0, "name": None}
    insert = people.insert().values({name: bindparam(name) for name in values})

    async def insert_then_fail() -> None:
        async with writing(engine) as connection:
            await run_statement(connection, insert, values)
            raise WriteInterruptedError

    with pytest.raises(WriteInterruptedError):
        await insert_then_fail()

    assert await KnownPeople(engine).find("ada") is None


async def test_the_pooled_connection_is_read_off_a_connection_holding_one_and_made_again_once_invalidated(
    engine: AsyncEngine,
) -> None:
    async with engine.connect() as connection:
        held = await pooled_of(connection)
        assert held is await connection.get_raw_connection()
        await connection.invalidate()

        again = await pooled_of(connection)

        assert again.is_valid
        assert again is await connection.get_raw_connection()
        assert (await connection.execute(select(1))).scalar_one() == 1
