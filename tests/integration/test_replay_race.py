"""Replays of one `remember` call racing in two processes (two engines, two pools) write once, on SQLite
and PostgreSQL; and a write whose checkpoint never got stored leaves no row behind.

The write is slowed down so that both racers have read "nothing recorded yet" before either stores
its answer: without a lock on the position, both would write."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from store import Actor, MemoryConfig, MemoryOrigin, MemoryRecord, ScopeContext
from store.memory import WriteOutcome
from store.persistence import ConversationRegistry, RunJournal, SqlMemoryProvider, open_engine
from store.runs import MemoryRuns, RememberCallMismatchError

ADA = Actor(id="ada", tenant_ref="berlin")


class SlowCountingProvider(SqlMemoryProvider):
    """The SQL provider, with every write counted and held for a moment before it reaches the database."""

    writes: list[str] = []  # noqa: RUF012 - shared on purpose: both "processes" count into one list

    async def write(self, *, key: str, text: str, scope: str, origin: MemoryOrigin, ctx: ScopeContext) -> MemoryRecord:
        type(self).writes.append(text)
        await asyncio.sleep(0.3)
        return await super().write(key=key, text=text, scope=scope, origin=origin, ctx=ctx)


def runs_over(engine: AsyncEngine) -> MemoryRuns:
    config = MemoryConfig(provider=SlowCountingProvider(engine))
    return MemoryRuns(config, RunJournal(engine), ConversationRegistry(engine))


async def race_one_call(database_url: str, facts: tuple[str, str]) -> tuple[list[object], Sequence[MemoryRecord]]:
    """Call `call_1` of one run from two "processes" (engines) at once, one with each fact: the
    outcomes (or what each raised), and what is on file afterwards."""
    SlowCountingProvider.writes = []
    engines = [open_engine(database_url) for _ in range(2)]
    try:
        first, second = (runs_over(engine) for engine in engines)
        await first.begin("run_1", actor=ADA, thread_id="thr_1", text="")
        outcomes = await asyncio.gather(
            *(
                runs.remember("run_1", call_id="call_1", key="tone", fact=fact)
                for runs, fact in zip((first, second), facts, strict=True)
            ),
            return_exceptions=True,
        )
        stored = await SqlMemoryProvider(engines[0]).list(scopes=["actor:ada"], ctx=ScopeContext(actor=ADA))
    finally:
        for engine in engines:
            await engine.dispose()
    return list(outcomes), stored


async def test_replays_of_one_call_racing_in_two_processes_write_once(database_url: str) -> None:
    outcomes, stored = await race_one_call(database_url, ("short answers", "short answers"))

    assert len(SlowCountingProvider.writes) == 1, SlowCountingProvider.writes
    assert outcomes[0] == outcomes[1]
    outcome = outcomes[0]
    assert isinstance(outcome, WriteOutcome)
    assert outcome.record is not None
    assert [(r.text, r.updated_at) for r in stored] == [(outcome.record.text, outcome.record.updated_at)]


async def test_one_call_id_racing_with_two_different_facts_writes_one_and_refuses_the_other(database_url: str) -> None:
    outcomes, stored = await race_one_call(database_url, ("from the first process", "from the second process"))

    written = [o for o in outcomes if isinstance(o, WriteOutcome)]
    refused = [o for o in outcomes if isinstance(o, RememberCallMismatchError)]
    assert (len(written), len(refused)) == (1, 1), outcomes
    assert written[0].record is not None
    assert SlowCountingProvider.writes == [written[0].record.text]
    assert [r.text for r in stored] == SlowCountingProvider.writes


class FailingAfterTheWrite(SqlMemoryProvider):
    async def write(self, *, key: str, text: str, scope: str, origin: MemoryOrigin, ctx: ScopeContext) -> MemoryRecord:
        await super().write(key=key, text=text, scope=scope, origin=origin, ctx=ctx)
        msg = "the process died between the write and its checkpoint"
        raise RuntimeError(msg)


async def test_a_write_whose_checkpoint_was_never_stored_is_not_kept(engine: AsyncEngine) -> None:
    runs = MemoryRuns(
        MemoryConfig(provider=FailingAfterTheWrite(engine)), RunJournal(engine), ConversationRegistry(engine)
    )
    await runs.begin("run_1", actor=ADA, thread_id="thr_1", text="")

    with pytest.raises(RuntimeError, match="between the write and its checkpoint"):
        await runs.remember("run_1", call_id="call_1", key="tone", fact="half done")

    assert await SqlMemoryProvider(engine).list(scopes=["actor:ada"], ctx=ScopeContext(actor=ADA)) == ()
    assert "tool:call_1" not in await RunJournal(engine).checkpoints("run_1")
