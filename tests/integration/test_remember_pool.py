"""Many `remember` calls racing for one key never starve the connection pool: the exclusive
checkpoint holds one pooled connection while it writes, and nothing it runs asks the pool for a
second one (the person's pause and approval are read before it opens)."""

from __future__ import annotations

import asyncio

from store import ScopeContext
from store.memory import MemoryConfig
from store.persistence import ConversationRegistry, KnownPeople, RunJournal, SqlMemoryProvider, open_engine
from store.persistence.controls import MemoryControlStore
from store.runs import MemoryRuns
from tests.integration.builders import ADA

RACERS = 12


async def test_calls_racing_for_one_key_finish_on_a_pool_smaller_than_the_race(database_url: str) -> None:
    engine = open_engine(database_url, pool_size=4, max_overflow=0, pool_timeout=5)
    try:
        provider = SqlMemoryProvider(engine)
        runs = MemoryRuns(
            MemoryConfig(provider=provider),
            RunJournal(engine),
            ConversationRegistry(engine),
            KnownPeople(engine),
            MemoryControlStore(engine),
        )
        await runs.begin("run_1", actor=ADA, thread_id="thr_1", text="")

        outcomes = await asyncio.gather(
            *(runs.remember("run_1", call_id=f"call_{n}", key="units", fact=f"answer {n}") for n in range(RACERS))
        )

        assert all(outcome.ok for outcome in outcomes), [o.error for o in outcomes if not o.ok]
        [kept] = await provider.list(scopes=[f"actor:{ADA.id}"], ctx=ScopeContext(actor=ADA, thread_id="thr_1"))
        assert kept.key == "units"
    finally:
        await engine.dispose()
