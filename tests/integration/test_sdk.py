"""The in-process SDK on SQLite and PostgreSQL: one run, replayed, remembered once."""

from __future__ import annotations

import pytest

from store import Actor, MemoryOrigin, MemoryRecord
from store.embedding import DEFAULT_EMBEDDER, Embedder
from store.persistence import SqlMemoryProvider, open_engine
from store.sdk import OnFile, OnFileError
from tests.builders import T0, UNRELATED_FACTS

ADA = Actor(id="ada", tenant_ref="berlin")


async def test_a_run_begun_in_process_replays_and_remembers_once(database_url: str) -> None:
    async with await OnFile.open(database_url, max_memories=5) as onfile:
        run = await onfile.begin_run("run_1", actor=ADA, thread_id="thr_1", text="")
        saved = await run.remember("call_1", "tone", "short answers")
        again = await run.remember("call_1", "tone", "short answers")
        with pytest.raises(OnFileError, match="already carried out with another key or fact") as reused:
            await run.remember("call_1", "tone", "something else")
        replay = await onfile.begin_run("run_1", actor=ADA, thread_id="thr_1", text="")
        next_turn = await onfile.begin_run("run_2", actor=ADA, thread_id="thr_1", text="")

    assert run.block == ""  # nothing on file yet: no block at all
    assert [t["name"] for t in run.tools] == ["remember"]
    assert saved.ok
    assert again == saved
    assert reused.value.status == 409
    assert replay.block == run.block
    assert "- [actor:ada] tone: short answers" in next_turn.block


async def test_another_actor_on_a_recorded_run_is_an_error(database_url: str) -> None:
    async with await OnFile.open(database_url) as onfile:
        await onfile.begin_run("run_1", actor=ADA, thread_id=None, text="")

        with pytest.raises(OnFileError, match="resolved for actor ada, not bob"):
            await onfile.begin_run("run_1", actor=Actor(id="bob"), thread_id=None, text="")


async def test_the_conversation_lifecycle_keeps_memories(database_url: str) -> None:
    async with await OnFile.open(database_url) as onfile:
        run = await onfile.begin_run("run_1", actor=ADA, thread_id="thr_1", text="")
        await run.remember("c", "k", "v")
        await onfile.runs_dropped("thr_1", ["run_1"])
        await onfile.thread_deleted("thr_1")
        later = await onfile.begin_run("run_2", actor=ADA, thread_id="thr_2", text="")

    assert "- [actor:ada] k: v" in later.block


async def test_a_custom_resolver_serves_the_sdk(database_url: str) -> None:
    class WithDepot:
        async def resolve(self, ctx: object) -> tuple[str, ...]:
            return ("actor:ada", "depot:spandau", "tenant:berlin", "global")

    engine = open_engine(database_url)
    await SqlMemoryProvider(engine).add(
        [
            MemoryRecord("m1", "shift", "06:00", "depot:spandau", MemoryOrigin(author="human"), T0),
            MemoryRecord("m2", "shift", "08:00", "tenant:berlin", MemoryOrigin(author="human"), T0),
        ]
    )
    await engine.dispose()
    async with await OnFile.open(database_url, scopes=WithDepot()) as onfile:
        run = await onfile.begin_run("run_1", actor=ADA, thread_id=None, text="")

    assert run.digest.scopes[1] == "depot:spandau"
    assert "- [depot:spandau] shift: 06:00" in run.block


@pytest.mark.parametrize(("embedder", "found"), [(DEFAULT_EMBEDDER, True), (None, False)])
async def test_in_process_a_turn_recalls_by_meaning_as_the_service_does_unless_told_words_only(
    database_url: str, embedder: Embedder | None, found: bool
) -> None:
    async with await OnFile.open(database_url, max_memories=3, embedder=embedder) as onfile:
        run = await onfile.begin_run("run_1", actor=ADA, thread_id="thr_1", text="")
        await run.remember("call_units", "distance-units", "they report distances in kilometres")
        for n, fact in enumerate(UNRELATED_FACTS[:6]):
            await run.remember(f"call_{n}", f"note-{n}", fact)
        turn = await onfile.begin_run("run_2", actor=ADA, thread_id="thr_1", text="how far away is the depot?")

    assert ("distance-units" in turn.block) is found
