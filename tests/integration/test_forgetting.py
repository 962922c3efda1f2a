"""Forgetting reaches everywhere: after a forget, a forget-all or an erasure, a scan of every table and
index finds the text nowhere but in the journals of runs still within retention; after pruning,
nowhere at all. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from store import Actor, MemoryConfig, MemoryOrigin, MemoryRecord, ScopeContext, forget_all_memories, forget_memory
from store.admin import Administration, Stores
from store.domain.administration import RoleGate
from store.persistence import (
    AuditTrail,
    ConversationRegistry,
    DashboardSessions,
    KnownPeople,
    Origin,
    RunJournal,
    RunPrunedError,
    SqlMemoryProvider,
    open_engine,
)
from store.persistence.engine import checkpoints_settled
from store.runs import MemoryRuns
from tests.builders import T0
from tests.integration.text_scan import places_holding

ADA = Actor("ada", "berlin")
LENA = Actor("lena", "berlin", ("onfile-admin",))
SECRET = "zebraquartz"


class World:
    def __init__(self, engine: AsyncEngine) -> None:
        self.provider = SqlMemoryProvider(engine)
        self.config = MemoryConfig(provider=self.provider)
        self.journal = RunJournal(engine)
        self.registry = ConversationRegistry(engine)
        self.sessions = DashboardSessions(engine)
        self.people = KnownPeople(engine)
        self.audit = AuditTrail(engine)
        self.runs = MemoryRuns(self.config, self.journal, self.registry, self.people)
        stores = Stores(self.journal, self.registry, self.sessions)
        self.admin = Administration(self.config, self.provider, RoleGate(), self.audit, self.people, stores)

    async def ada_with_a_secret(self) -> MemoryRecord:
        """Ada's own fact holding the secret, her organisation's fact, a run that saw both, a session."""
        origin = MemoryOrigin("human", actor_ref="lena")
        await self.provider.add([MemoryRecord("mem_org", "tone", "formal answers", "tenant:berlin", origin, T0)])
        secret = await self.provider.write(
            key="health",
            text=f"{SECRET} appointment on Fridays",
            scope="actor:ada",
            origin=MemoryOrigin("agent", thread_id="thr_1", run_id="run_0", actor_ref="ada"),
            ctx=ScopeContext(ADA),
        )
        run = await self.runs.begin("run_1", actor=ADA, thread_id="thr_1", text="")
        assert SECRET in run.block
        await self.sessions.create({"actor": {"id": "ada"}}, ttl=timedelta(hours=1), actor_id="ada")
        return secret


@pytest.fixture
def world(engine: AsyncEngine) -> World:
    return World(engine)


async def test_a_forgotten_fact_lives_on_only_in_runs_still_in_flight_and_not_after_pruning(
    world: World, engine: AsyncEngine
) -> None:
    secret = await world.ada_with_a_secret()

    outcome = await forget_memory(world.config, ScopeContext(ADA), secret.id)

    assert outcome.status == "forgotten"
    assert await places_holding(engine, SECRET) == ["run_journal"]
    replay = await world.runs.begin("run_1", actor=ADA, thread_id="thr_1", text="")
    assert SECRET in replay.block  # the run in flight keeps its prompt, as determinism needs
    fresh = await world.runs.begin("run_2", actor=ADA, thread_id="thr_1", text="")
    assert SECRET not in fresh.block

    pruned = await world.journal.prune(older_than=datetime.now(UTC) + timedelta(seconds=1))

    assert pruned == 2
    assert await places_holding(engine, SECRET) == []
    assert await world.provider.search(scopes=["actor:ada"], query=SECRET, limit=20, ctx=ScopeContext(ADA)) == ()


async def test_after_a_forget_and_pruning_not_a_byte_of_the_fact_is_left_in_the_sqlite_file(
    sqlite_database_url: str,
) -> None:
    """Below the tables: the database file itself, with the write-ahead log folded in. The search
    index holds per-scope digests, never words, so not even its postings of the deleted rows carry
    anything of the text; secure_delete zeroes what the deletes free."""
    engine = open_engine(sqlite_database_url)
    try:
        world = World(engine)
        secret = await world.ada_with_a_secret()
        for n in range(30):  # enough rows to fill pages of the table and of the index, freed by the forgets
            await world.provider.write(
                key=f"note-{n}",
                text=f"{SECRET} note {n}",
                scope="actor:ada",
                origin=MemoryOrigin("human"),
                ctx=ScopeContext(ADA),
            )
        path = Path(make_url(sqlite_database_url).database or "")
        await checkpoints_settled(engine)  # SQLite refuses a checkpoint while another runs
        async with engine.connect() as connection:
            await connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        assert SECRET.encode() in await asyncio.to_thread(path.read_bytes)

        await forget_memory(world.config, ScopeContext(ADA), secret.id)
        await forget_all_memories(world.config, ScopeContext(ADA))
        await world.journal.prune(older_than=datetime.now(UTC) + timedelta(seconds=1))
        await checkpoints_settled(engine)
        async with engine.connect() as connection:
            await connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")

        assert SECRET.encode() not in await asyncio.to_thread(path.read_bytes)
        assert await places_holding(engine, SECRET) == []
    finally:
        await engine.dispose()


async def test_a_pruned_run_that_tries_to_resume_is_told_never_given_a_different_prompt(world: World) -> None:
    await world.ada_with_a_secret()
    await world.journal.prune(older_than=datetime.now(UTC) + timedelta(seconds=1))

    with pytest.raises(RunPrunedError, match="journal was deleted"):
        await world.runs.begin("run_1", actor=ADA, thread_id="thr_1", text="")
    with pytest.raises(RunPrunedError):
        await world.runs.remember("run_1", call_id="c", key="k", fact="v")


async def test_pruning_keeps_runs_within_retention(world: World) -> None:
    await world.ada_with_a_secret()

    assert await world.journal.prune(older_than=datetime.now(UTC) - timedelta(hours=1)) == 0
    assert await world.journal.checkpoints("run_1") != {}


async def test_forget_all_removes_every_own_fact_and_leaves_the_organisations(
    world: World, engine: AsyncEngine
) -> None:
    await world.ada_with_a_secret()
    await world.provider.write(
        key="units", text=f"miles {SECRET}", scope="actor:ada", origin=MemoryOrigin("human"), ctx=ScopeContext(ADA)
    )

    gone = await forget_all_memories(world.config, ScopeContext(ADA))

    assert gone == 2
    left = await world.provider.list(scopes=["actor:ada", "tenant:berlin"], ctx=ScopeContext(ADA))
    assert [r.key for r in left] == ["tone"]
    assert await places_holding(engine, SECRET) == ["run_journal"]


async def test_an_erasure_removes_the_person_everywhere_and_the_trail_keeps_only_that_it_happened(
    world: World, engine: AsyncEngine
) -> None:
    await world.ada_with_a_secret()
    await world.people.note(ADA)
    await world.audit.append(who="ada", action="write", scope="actor:ada", key="health", after={"text": SECRET})

    erasure = await world.admin.erase_person(LENA, ADA)

    assert erasure is not None
    assert (erasure.memories, erasure.sessions) == (1, 1)
    assert erasure.checkpoints >= 1
    assert await places_holding(engine, SECRET) == []
    assert await places_holding(engine, "thr_1") == []
    assert await world.people.recent() == []
    assert await world.registry.origins_resolve([Origin("thr_1", "run_1")]) == frozenset({Origin("thr_1", "run_1")})
    (redacted,) = await world.audit.at_scopes(["actor:ada"])
    assert (redacted.who, redacted.action, redacted.key, redacted.after) == ("ada", "write", None, None)
    (erased,) = [e for e in await world.audit.at_scopes(["tenant:berlin"]) if e.action == "erase"]
    assert (erased.who, erased.after["person"]) == ("lena", "ada")
    left = await world.provider.list(scopes=["tenant:berlin"], ctx=ScopeContext(LENA))
    assert [r.key for r in left] == ["tone"]


@pytest.mark.parametrize(
    "actor",
    [Actor("jonas", "hamburg", ("onfile-admin",)), Actor("sam", "berlin", ("onfile-support",)), Actor("bob", "berlin")],
)
async def test_only_an_administrator_of_the_persons_tenant_or_a_global_one_may_erase(
    world: World, engine: AsyncEngine, actor: Actor
) -> None:
    await world.ada_with_a_secret()

    assert await world.admin.erase_person(actor, ADA) is None
    assert "agent_memory" in await places_holding(engine, SECRET)
    assert await world.admin.may_erase(Actor("gil", None, ("onfile-global-admin",)), ADA)
