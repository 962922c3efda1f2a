"""The conversation registry: which memory origins still point at a conversation that exists."""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from store.persistence.registry import ConversationRegistry, Origin, RunsOnAnotherThreadError
from tests.statements_run import statements_run


async def test_an_origin_without_a_thread_always_resolves(engine: AsyncEngine) -> None:
    registry = ConversationRegistry(engine)
    human = Origin(thread_id=None)

    assert await registry.origins_resolve([human]) == {human}


async def test_a_thread_never_registered_resolves(engine: AsyncEngine) -> None:
    registry = ConversationRegistry(engine)
    unknown = Origin(thread_id="thr_unknown", run_id="run_unknown")

    assert await registry.origins_resolve([unknown]) == {unknown}


async def test_a_registered_run_resolves_until_its_thread_is_deleted(engine: AsyncEngine) -> None:
    registry = ConversationRegistry(engine)
    await registry.register_run("run_1", "thr_1", "ada")
    origin = Origin(thread_id="thr_1", run_id="run_1")
    thread_only = Origin(thread_id="thr_1")

    assert await registry.origins_resolve([origin, thread_only]) == {origin, thread_only}
    await registry.delete_thread("thr_1")
    assert await registry.origins_resolve([origin, thread_only]) == frozenset()


async def test_a_dropped_run_stops_resolving_and_its_thread_does_not(engine: AsyncEngine) -> None:
    registry = ConversationRegistry(engine)
    for run in ("run_1", "run_2", "run_3"):
        await registry.register_run(run, "thr_1", "ada")

    await registry.drop_runs("thr_1", ["run_1", "run_2"])

    origins = [Origin("thr_1", "run_1"), Origin("thr_1", "run_2"), Origin("thr_1", "run_3"), Origin("thr_1")]
    assert await registry.origins_resolve(origins) == {Origin("thr_1", "run_3"), Origin("thr_1")}


async def test_dropping_a_run_never_registered_marks_it_gone(engine: AsyncEngine) -> None:
    registry = ConversationRegistry(engine)

    await registry.drop_runs("thr_9", ["run_old"])

    assert await registry.origins_resolve([Origin("thr_9", "run_old"), Origin("thr_9")]) == {Origin("thr_9")}


async def test_a_run_of_another_thread_is_not_dropped_and_nothing_in_the_call_is(engine: AsyncEngine) -> None:
    registry = ConversationRegistry(engine)
    await registry.register_run("run_a", "thr_a", "ada")
    await registry.register_run("run_b", "thr_b", "ada")

    with pytest.raises(RunsOnAnotherThreadError, match="run_a") as refused:
        await registry.drop_runs("thr_b", ["run_b", "run_a", "run_new"])

    assert refused.value.run_ids == ("run_a",)
    origins = [Origin("thr_a", "run_a"), Origin("thr_b", "run_b"), Origin("thr_b", "run_new")]
    assert await registry.origins_resolve(origins) == set(origins)


async def test_deleting_a_thread_never_registered_leaves_a_tombstone(engine: AsyncEngine) -> None:
    registry = ConversationRegistry(engine)

    await registry.delete_thread("thr_gone")

    assert await registry.origins_resolve([Origin("thr_gone", "run_1")]) == frozenset()


async def test_registering_again_brings_back_neither_a_deleted_thread_nor_a_dropped_run(engine: AsyncEngine) -> None:
    registry = ConversationRegistry(engine)
    await registry.register_run("run_1", "thr_1", "ada")
    await registry.register_run("run_a", "thr_2", "ada")
    await registry.delete_thread("thr_1")
    await registry.drop_runs("thr_2", ["run_a"])

    await registry.register_run("run_1", "thr_1", "ada")
    await registry.register_run("run_2", "thr_1", "ada")
    await registry.register_run("run_a", "thr_2", "ada")

    origins = [Origin("thr_1", "run_1"), Origin("thr_1", "run_2"), Origin("thr_2", "run_a")]
    assert await registry.origins_resolve(origins) == frozenset()


async def test_resolving_many_origins_asks_the_database_once(engine: AsyncEngine) -> None:
    registry = ConversationRegistry(engine)
    for n in range(5):
        await registry.register_run(f"run_{n}", f"thr_{n % 2}", "ada")
    await registry.drop_runs("thr_0", ["run_0"])

    with statements_run(engine) as statements:
        resolved = await registry.origins_resolve(
            [Origin(f"thr_{n % 2}", f"run_{n}") for n in range(5)] + [Origin(None), Origin("thr_x", "run_x")]
        )

    assert len(resolved) == 6
    assert len([s for s in statements if s.lstrip().upper().startswith("SELECT")]) == 1
    assert not [s for s in statements if s.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))]


async def test_resolving_only_threadless_origins_asks_nothing(engine: AsyncEngine) -> None:
    registry = ConversationRegistry(engine)

    with statements_run(engine) as statements:
        assert await registry.origins_resolve([Origin(None, "run_1")]) == {Origin(None, "run_1")}
    assert statements == []
