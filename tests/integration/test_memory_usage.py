"""When each memory was used, on SQLite and PostgreSQL: read from the run journal while its runs are
kept, and from the counts pruning folds in once they are not; a page's worth of memories costs the
same few statements however many the person holds; the counts keep no text and go with the person."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncEngine

from store import Actor, MemoryConfig, MemoryOrigin, MemoryRecord, ScopeContext
from store.persistence import ConversationRegistry, RunJournal, SqlMemoryProvider
from store.persistence.usage import UsageCounts
from store.runs import DIGEST_POSITION, MemoryRuns, offered
from store.usage import MemoryUsage
from tests.integration.text_scan import places_holding
from tests.statements_run import statements_run

ADA = Actor("ada", "berlin")
BOB = Actor("bob", "berlin")
SECRET = "marmotlantern"


class World:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.provider = SqlMemoryProvider(engine)
        self.config = MemoryConfig(provider=self.provider)
        self.journal = RunJournal(engine, offered=offered, offered_at=DIGEST_POSITION)
        self.runs = MemoryRuns(self.config, self.journal, ConversationRegistry(engine))
        self.usage = MemoryUsage(self.journal, UsageCounts(engine))

    async def note(self, key: str, actor: Actor = ADA) -> MemoryRecord:
        return await self.provider.write(
            key=key,
            text=f"{SECRET} {key}",
            scope=f"actor:{actor.id}",
            origin=MemoryOrigin("human"),
            ctx=ScopeContext(actor),
        )

    async def prune(self) -> int:
        return await self.journal.prune(older_than=datetime.now(UTC) + timedelta(seconds=1))


async def test_usage_is_read_from_the_journal_and_survives_pruning_as_a_count_without_text(engine: AsyncEngine) -> None:
    world = World(engine)
    units = await world.note("units")
    tone = await world.note("tone")
    await world.runs.begin("run_1", actor=ADA, thread_id="thr_1", text="")
    await world.runs.begin("run_2", actor=ADA, thread_id="thr_2", text="")
    await world.runs.begin("run_b", actor=BOB, thread_id="thr_b", text="")

    live = await world.usage.usage(ADA, [units.id, tone.id, "mem_never"], datetime.now(UTC))
    assert await world.prune() == 3
    kept = await world.usage.usage(ADA, [units.id, tone.id, "mem_never"], datetime.now(UTC))

    assert (live[units.id].turns, live[tone.id].turns, live[units.id].last_thread_id) == (2, 2, "thr_2")
    assert live["mem_never"].never
    assert kept == live
    assert await world.journal.checkpoints("run_1") == {}
    assert await places_holding(engine, SECRET) == ["agent_memory"]


async def test_runs_pruned_at_different_times_add_up_and_the_journal_adds_what_is_still_kept(
    engine: AsyncEngine,
) -> None:
    world = World(engine)
    units = await world.note("units")
    await world.runs.begin("run_1", actor=ADA, thread_id="thr_1", text="")
    await world.prune()
    await world.runs.begin("run_2", actor=ADA, thread_id="thr_2", text="")
    await world.prune()
    await world.runs.begin("run_3", actor=ADA, thread_id="thr_3", text="")

    usage = (await world.usage.usage(ADA, [units.id], datetime.now(UTC)))[units.id]

    assert (usage.turns, usage.last_thread_id) == (3, "thr_3")


async def test_a_pages_worth_of_usage_costs_the_same_statements_however_many_memories_there_are(
    engine: AsyncEngine,
) -> None:
    world = World(engine)
    origin = MemoryOrigin("human")
    now = datetime.now(UTC)
    records = [MemoryRecord(f"m{n}", f"k{n}", "v", "actor:ada", origin, now) for n in range(300)]
    await world.provider.add(records)
    for n in range(5):
        await world.runs.begin(f"run_{n}", actor=ADA, thread_id="thr_1", text="")
    await world.prune()
    await world.runs.begin("run_live", actor=ADA, thread_id="thr_1", text="")

    with statements_run(engine) as seen:
        usage = await world.usage.usage(ADA, [r.id for r in records[:50]], now + timedelta(minutes=1))

    assert len(usage) == 50
    assert len(seen) == 2, seen


async def test_an_erasure_of_the_journal_drops_the_persons_counts(engine: AsyncEngine) -> None:
    world = World(engine)
    units = await world.note("units")
    await world.runs.begin("run_1", actor=ADA, thread_id="thr_1", text="")
    await world.prune()

    await world.journal.erase_actor("ada")

    assert (await world.usage.usage(ADA, [units.id], datetime.now(UTC)))[units.id].never
