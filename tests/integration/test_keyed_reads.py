"""A page's questions about the entries it shows — their authors' names, their expiries, which
conversations are gone, when each was used, and the person's own controls — are statements built once
per list size (`store.persistence.keyed`): for any number of keys they answer what SQLAlchemy's own
statement answers, on every backend, and on a SQLite file they run inline, with no statement through
SQLAlchemy or on the driver's thread."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from store import Actor, MemoryOrigin
from store.persistence import driver as driver_module
from store.persistence.controls import MemoryControlStore
from store.persistence.engine import reading
from store.persistence.journal import RunJournal
from store.persistence.keyed import KEY_SIZES, KeyedStatement, key_chunks
from store.persistence.memories import expiries_at_scope, memory
from store.persistence.people import KnownPeople, people
from store.persistence.provider import SqlMemoryProvider
from store.persistence.registry import ConversationRegistry, Origin
from store.persistence.usage import UsageCounts
from tests.integration.builders import ADA, agent_origin, ctx
from tests.statements_run import statements_run

LIFETIME_DAYS = 30


def test_a_list_is_padded_to_the_next_size_with_its_last_key_and_one_statement_serves_each_size() -> None:
    built: list[tuple[int, ...]] = []

    def build(*lists: list[Any]) -> Any:
        built.append(tuple(len(params) for params in lists))
        return select(people.c.id).where(*(people.c.id.in_(params) for params in lists if params))

    keyed = KeyedStatement(build)
    three, values = keyed.bound(["a", "b", "c"], [])
    again, _ = keyed.bound(["x", "y", "z", "w"], [])
    other, more = keyed.bound(["a"], ["r", "s"])

    assert values == {"k0_0": "a", "k0_1": "b", "k0_2": "c", "k0_3": "c"}
    assert again is three
    assert more == {"k0_0": "a", "k1_0": "r", "k1_1": "s", "k1_2": "s", "k1_3": "s"}
    assert other is not three
    assert built == [(4, 0), (1, 4)]


@pytest.mark.parametrize("count", [0, 1, 5, KEY_SIZES[-1], KEY_SIZES[-1] * 2 + 1])
def test_keys_are_asked_in_pieces_no_longer_than_the_largest_size(count: int) -> None:
    keys = [f"k{n}" for n in range(count)]

    pieces = list(key_chunks(keys))

    assert [key for piece in pieces for key in piece] == keys
    assert all(0 < len(piece) <= KEY_SIZES[-1] for piece in pieces)


@pytest.mark.parametrize("count", [0, 1, 3, 4, 5, 64, 65, KEY_SIZES[-1] + 1, 300])
async def test_the_names_asked_of_any_number_of_people_are_what_sqlalchemy_reads(
    engine: AsyncEngine, count: int
) -> None:
    known = KnownPeople(engine)
    for n in range(0, count + 2):
        await known.note(Actor(f"p{n}", "berlin"), name=f"Person {n}" if n % 3 else None)
    asked = [f"p{n}" for n in range(count)] + [f"p{n}" for n in range(0, count, 7)] + ["nobody"]

    named = await known.names_of(asked)

    wanted = select(people.c.id, people.c.name).where(people.c.id.in_(asked), people.c.name.is_not(None))
    async with reading(engine) as connection:
        expected: dict[str, str] = dict(tuple(row) for row in (await connection.execute(wanted)).all())
    assert named == expected
    assert len(named) == len([n for n in range(count) if n % 3])


async def test_expiries_are_read_as_the_aware_times_sqlalchemy_reads_and_only_at_the_scope_asked(
    engine: AsyncEngine,
) -> None:
    controls = MemoryControlStore(engine)
    await KnownPeople(engine).note(ADA)
    await controls.set_concluded_lifetime("berlin", days=LIFETIME_DAYS, by="lena")
    provider = SqlMemoryProvider(engine)
    concluded = [
        await provider.write(key=f"k{n}", text="concluded", scope="actor:ada", origin=agent_origin(), ctx=ctx())
        for n in range(70)
    ]
    stated = await provider.write(
        key="units", text="kilometres", scope="actor:ada", origin=MemoryOrigin("human", actor_ref="ada"), ctx=ctx()
    )
    ids = [record.id for record in concluded] + [stated.id, "mem_nowhere"]

    expiries = await expiries_at_scope(engine, "actor:ada", ids)
    elsewhere = await expiries_at_scope(engine, "actor:cal", ids)

    wanted = select(memory.c.id, memory.c.expires_at).where(memory.c.id.in_(ids), memory.c.expires_at.is_not(None))
    async with reading(engine) as connection:
        expected: dict[str, datetime] = dict(tuple(row) for row in (await connection.execute(wanted)).all())
    assert expiries == expected
    assert set(expiries) == {record.id for record in concluded}
    assert all(at.tzinfo is not None and at > datetime.now(UTC) + timedelta(days=29) for at in expiries.values())
    assert elsewhere == {}


async def test_origins_of_more_runs_than_one_statement_names_resolve_as_each_one_does(engine: AsyncEngine) -> None:
    registry = ConversationRegistry(engine)
    runs = [f"run_{n}" for n in range(KEY_SIZES[-1] + 40)]
    for run_id in runs:
        await registry.register_run(run_id, "thr_1", "ada")
    await registry.drop_runs("thr_1", runs[::9])
    asked = [Origin("thr_1", run_id) for run_id in runs] + [Origin("thr_gone", "run_x"), Origin(None)]
    await registry.register_run("run_x", "thr_gone", "ada")
    await registry.delete_thread("thr_gone")

    resolving = await registry.origins_resolve(asked)

    assert resolving == {Origin("thr_1", run_id) for run_id in runs if run_id not in runs[::9]} | {Origin(None)}


async def test_a_pages_questions_about_its_entries_run_inline_on_a_sqlite_engine(
    sqlite_engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    known, controls = KnownPeople(sqlite_engine), MemoryControlStore(sqlite_engine)
    await known.note(ADA, name="Ada Lovelace")
    provider = SqlMemoryProvider(sqlite_engine)
    written = [
        await provider.write(key=f"k{n}", text="v", scope="actor:ada", origin=agent_origin(), ctx=ctx())
        for n in range(20)
    ]
    ids = [record.id for record in written]
    registry = ConversationRegistry(sqlite_engine)
    await registry.register_run("run_1", "thr_1", "ada")
    pooled: list[str] = []
    on_driver = driver_module.driver_rows

    async def counted(connection: driver_module.ReadConnection, sql: str, params: Sequence[Any]) -> Any:
        pooled.append(sql)
        return await on_driver(connection, sql, params)

    monkeypatch.setattr(driver_module, "driver_rows", counted)

    with statements_run(sqlite_engine) as run:
        assert await known.names_of(["ada", "bob"]) == {"ada": "Ada Lovelace"}
        assert len(await expiries_at_scope(sqlite_engine, "actor:ada", ids)) == 0
        assert await registry.origins_resolve([Origin("thr_1", "run_1")]) == {Origin("thr_1", "run_1")}
        assert await RunJournal(sqlite_engine).offered_in("ada", ids) == []
        assert await UsageCounts(sqlite_engine).counted("ada", ids, since=datetime.now(UTC).date()) == []
        assert not (await controls.controls_for(ADA)).paused
        assert await controls.waiting_count("ada") == 0

    assert len(run) == 7
    assert pooled == []


async def test_a_new_runs_first_read_finds_the_person_and_their_pause_at_once(engine: AsyncEngine) -> None:
    known, controls = KnownPeople(engine), MemoryControlStore(engine)
    await known.note(Actor("ada", "berlin", ("staff",)))
    await known.note(Actor("bob", None))
    await controls.set_paused("bob", paused=True)
    await controls.set_paused("cem", paused=True)  # paused, and never seen since

    with statements_run(engine) as run:
        found = [await known.find_with_pause(person) for person in ("ada", "bob", "cem", "dan")]

    assert found == [
        (Actor("ada", "berlin", ("staff",)), False),
        (Actor("bob", None), True),
        (None, True),
        (None, False),
    ]
    assert [await known.find(person) for person in ("ada", "bob", "cem")] == [found[0][0], found[1][0], None]
    assert [(await controls.controls_for(Actor(p))).paused for p in ("ada", "bob", "cem")] == [False, True, True]
    assert len(run) == 4, "one statement each"
