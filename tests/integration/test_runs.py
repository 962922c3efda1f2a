"""Journaled runs on SQLite and PostgreSQL: resolved once, replayed byte for byte, remember once per call."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine

from store import Actor, MemoryConfig, MemoryOrigin, MemoryRecord, ScopeContext
from store.diagnostics import Diagnostics
from store.persistence import ConversationRegistry, KnownPeople, Origin, RunJournal, SqlMemoryProvider
from store.runs import (
    MemoryRuns,
    PersonInAnotherOrganisationError,
    RememberCallMismatchError,
    RunActorMismatchError,
    RunNotStartedError,
)
from tests.builders import T0

ADA = Actor(id="ada", tenant_ref="berlin")


def runs_over(engine: AsyncEngine, *, max_memories: int = 20) -> tuple[MemoryRuns, SqlMemoryProvider]:
    provider = SqlMemoryProvider(engine)
    config = MemoryConfig(provider=provider, max_memories=max_memories)
    return MemoryRuns(config, RunJournal(engine), ConversationRegistry(engine)), provider


def policy(key: str, text: str, scope: str = "tenant:berlin", *, pinned: bool = False) -> MemoryRecord:
    return MemoryRecord(f"mem_{key}_{scope}", key, text, scope, MemoryOrigin(author="human"), T0, pinned=pinned)


async def test_a_replay_sees_the_recorded_block_even_after_memories_and_memberships_change(engine: AsyncEngine) -> None:
    runs, provider = runs_over(engine)
    await provider.add([policy("units", "kilometres"), policy("tone", "formal")])
    first = await runs.begin("run_1", actor=ADA, thread_id="thr_1", text="units")

    await provider.add([policy("units", "miles"), policy("new-policy", "something new")])
    moved = Actor(id="ada", tenant_ref="hamburg")  # her memberships changed mid-run
    again = await runs.begin("run_1", actor=moved, thread_id="thr_1", text="something else entirely")

    assert again.block == first.block
    assert again.digest == first.digest
    assert again.actor == ADA
    assert "miles" not in again.block
    fresh = await runs.begin("run_2", actor=ADA, thread_id="thr_1", text="units")
    assert "miles" in fresh.block


async def test_a_later_call_for_another_actor_is_refused(engine: AsyncEngine) -> None:
    runs, _ = runs_over(engine)
    await runs.begin("run_1", actor=ADA, thread_id="thr_1", text="")

    with pytest.raises(RunActorMismatchError, match="resolved for actor ada, not bob"):
        await runs.begin("run_1", actor=Actor(id="bob", tenant_ref="berlin"), thread_id="thr_1", text="")


async def test_the_run_is_registered_with_its_thread(engine: AsyncEngine) -> None:
    runs, _ = runs_over(engine)
    registry = ConversationRegistry(engine)
    await runs.begin("run_1", actor=ADA, thread_id="thr_1", text="")

    await registry.drop_runs("thr_1", ["run_1"])

    assert await registry.origins_resolve([Origin("thr_1", "run_1")]) == frozenset()


async def test_remember_runs_once_per_call_and_a_replay_returns_the_recorded_outcome(engine: AsyncEngine) -> None:
    runs, provider = runs_over(engine)
    await runs.begin("run_1", actor=ADA, thread_id="thr_1", text="")

    first = await runs.remember("run_1", call_id="call_1", key="tone", fact="short answers")
    replay = await runs.remember("run_1", call_id="call_1", key="tone", fact="short answers")
    with pytest.raises(RememberCallMismatchError, match="Call call_1 of run run_1 was already carried out"):
        await runs.remember("run_1", call_id="call_1", key="tone", fact="a different fact under the same id")
    with pytest.raises(RememberCallMismatchError):
        await runs.remember("run_1", call_id="call_1", key="tone2", fact="short answers")
    mistake = await runs.remember("run_1", call_id="call_2", key="tone", fact="")
    mistake_again = await runs.remember("run_1", call_id="call_2", key="tone", fact="")

    assert first.ok
    assert replay == first
    assert mistake_again == mistake
    assert (mistake.ok, mistake.error) == (False, "The fact is empty. Give a fact and try again.")
    stored = await provider.list(scopes=["actor:ada"], ctx=None)  # type: ignore[arg-type]
    assert [(r.key, r.text) for r in stored] == [("tone", "short answers")]
    assert first.record is not None
    assert first.record.origin == MemoryOrigin(author="agent", thread_id="thr_1", run_id="run_1", actor_ref="ada")


async def test_an_outcome_journaled_before_arguments_were_kept_is_answered_as_it_is(engine: AsyncEngine) -> None:
    runs, _ = runs_over(engine)
    await runs.begin("run_1", actor=ADA, thread_id="thr_1", text="")
    journal = RunJournal(engine)

    async def old_outcome() -> dict[str, object]:
        return {"ok": False, "error": "recorded by an earlier version"}

    await journal.checkpoint("run_1", "tool:call_old", old_outcome, actor_id="ada", exclusive=True)

    outcome = await runs.remember("run_1", call_id="call_old", key="tone", fact="anything")

    assert (outcome.ok, outcome.error) == (False, "recorded by an earlier version")


class ForgetfulJournal:
    """A journal whose first look for a run always finds nothing: every call resolves and then races
    to store, as a process does that looked a moment before another one stored."""

    def __init__(self, journal: RunJournal) -> None:
        self._journal = journal
        self.checkpoint = journal.checkpoint
        self.store_json = journal.store_json

    async def stored_json(self, run_id: str, position: str) -> str | None:
        return None


async def test_a_run_is_counted_once_however_many_racers_resolved_it(engine: AsyncEngine) -> None:
    diagnostics = Diagnostics()
    heard: list[str | None] = []
    diagnostics.subscribe(lambda event: heard.append(getattr(event, "run_id", None)))
    provider = SqlMemoryProvider(engine)
    config = MemoryConfig(provider=provider, diagnostics=diagnostics)
    runs = MemoryRuns(config, ForgetfulJournal(RunJournal(engine)), ConversationRegistry(engine))

    first = await runs.begin_recorded("run_1", actor=ADA, thread_id="thr_1", text="")
    # the racer resolves a moment later, after a write: its digest differs from the stored one
    await provider.write(
        key="tone", text="short", scope="actor:ada", origin=MemoryOrigin("human"), ctx=ScopeContext(ADA)
    )
    lost = await runs.begin_recorded("run_1", actor=ADA, thread_id="thr_1", text="something else")
    with pytest.raises(RunActorMismatchError):
        await runs.begin_recorded("run_1", actor=Actor("bob"), thread_id="thr_1", text="")

    assert lost == first
    assert heard == ["run_1"]


class ChangingResolver:
    """Scopes a deployment's membership table would answer, edited while a run is in flight."""

    def __init__(self, scopes: tuple[str, ...]) -> None:
        self.scopes = scopes

    async def resolve(self, ctx: ScopeContext) -> Sequence[str]:
        return self.scopes


async def test_remember_is_authorised_against_the_recorded_scopes_not_todays(engine: AsyncEngine) -> None:
    resolver = ChangingResolver(("tenant:berlin", "global"))  # ada's own scope does not apply yet
    config = MemoryConfig(provider=SqlMemoryProvider(engine), scopes=resolver)
    runs = MemoryRuns(config, RunJournal(engine), ConversationRegistry(engine))
    await runs.begin("run_1", actor=ADA, thread_id="thr_1", text="")
    resolver.scopes = ("actor:ada", "tenant:berlin", "global")  # the table is edited mid-run

    outcome = await runs.remember("run_1", call_id="c", key="k", fact="v")
    later = await runs.begin("run_2", actor=ADA, thread_id="thr_1", text="")
    allowed = await runs.remember("run_2", call_id="c", key="k", fact="v")

    assert not outcome.ok
    assert outcome.error is not None
    assert "actor:ada does not apply to ada" in outcome.error
    assert later.digest.scopes[0] == "actor:ada"
    assert allowed.ok


async def test_remember_before_the_digest_is_refused(engine: AsyncEngine) -> None:
    runs, _ = runs_over(engine)

    with pytest.raises(RunNotStartedError, match="has no memory digest yet"):
        await runs.remember("run_never", call_id="c", key="k", fact="v")


async def test_concurrent_first_calls_for_one_run_agree_on_one_digest(engine: AsyncEngine) -> None:
    runs, provider = runs_over(engine)
    await provider.add([policy(f"k{i}", f"fact {i}") for i in range(30)])

    results = await asyncio.gather(*(runs.begin("run_1", actor=ADA, thread_id="t", text="") for _ in range(8)))

    assert len({r.block for r in results}) == 1


async def test_a_new_run_is_one_write_transaction_and_a_replay_writes_nothing(engine: AsyncEngine) -> None:
    provider = SqlMemoryProvider(engine)
    people = KnownPeople(engine)
    runs = MemoryRuns(MemoryConfig(provider=provider), RunJournal(engine), ConversationRegistry(engine), people)
    await provider.add([policy("units", "kilometres")])
    commits: list[str] = []
    event.listen(engine.sync_engine, "commit", lambda _connection: commits.append("commit"))

    first = await runs.begin("run_1", actor=ADA, thread_id="thr_1", text="units")
    after_first = len(commits)
    again = await runs.begin("run_1", actor=ADA, thread_id="thr_1", text="units")

    assert (after_first, len(commits)) == (1, 1)
    assert again == first
    assert [p.id for p in await people.recent()] == ["ada"]


async def test_a_new_run_reads_the_journal_once_and_takes_its_own_insert_s_word_for_what_it_stored(
    engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs, provider = runs_over(engine)
    await provider.add([policy("units", "kilometres")])
    reads: list[tuple[str, str]] = []
    stored_json = RunJournal.stored_json

    async def counted(self: RunJournal, run_id: str, position: str) -> str | None:
        reads.append((run_id, position))
        return await stored_json(self, run_id, position)

    monkeypatch.setattr(RunJournal, "stored_json", counted)

    first = await runs.begin("run_1", actor=ADA, thread_id="thr_1", text="units")

    assert reads == [("run_1", "memory:digest")], "the replay check; nothing read back after the commit"
    assert await runs.begin("run_1", actor=ADA, thread_id="thr_1", text="units") == first


async def test_a_racer_that_lost_takes_the_stored_digest_and_registers_nothing(engine: AsyncEngine) -> None:
    journal, people, registry = RunJournal(engine), KnownPeople(engine), ConversationRegistry(engine)

    def alongside(actor: Actor, thread_id: str) -> Callable[[], Awaitable[None]]:
        async def write() -> None:
            await registry.register_run("run_1", thread_id, actor.id)
            await people.note(actor)

        return write

    first, second = alongside(ADA, "thr_first"), alongside(Actor("bob", "lyon"), "thr_second")
    won, stored = await journal.store_json("run_1", "memory:digest", '{"first": true}', alongside=first)
    lost, kept = await journal.store_json("run_1", "memory:digest", '{"second": true}', alongside=second)

    assert (won, lost) == (True, False)
    assert stored == '{"first": true}'
    assert kept.replace(" ", "") == '{"first":true}'
    assert [p.id for p in await people.recent()] == ["ada"]  # bob's call wrote nothing
    assert await registry.erase_actor("bob") == 0  # no thread of bob's either
    assert await registry.erase_actor("ada") == 2  # ada's run and thread


async def test_an_agent_call_cannot_move_a_person_between_organisations(engine: AsyncEngine) -> None:
    provider = SqlMemoryProvider(engine)
    people = KnownPeople(engine)
    runs = MemoryRuns(MemoryConfig(provider=provider), RunJournal(engine), ConversationRegistry(engine), people)
    await provider.add(
        [policy("depot", "berlin's secret depot code"), policy("dock", "hamburg dock", "tenant:hamburg")]
    )
    await runs.begin("run_1", actor=ADA, thread_id="thr_1", text="depot")

    for asked in (Actor("ada", "hamburg"), Actor("ada")):
        with pytest.raises(PersonInAnotherOrganisationError, match="ada is known in organisation berlin"):
            await runs.begin(f"run_{asked.tenant_ref}", actor=asked, thread_id="thr_2", text="dock")

    assert await people.find("ada") == ADA
    assert await RunJournal(engine).stored_json("run_hamburg", "memory:digest") is None
    assert await RunJournal(engine).stored_json("run_None", "memory:digest") is None
    again = await runs.begin("run_3", actor=Actor("ada", "berlin", ("staff",)), thread_id="thr_1", text="")
    assert again.digest.scopes == ("actor:ada", "tenant:berlin", "global")  # the same organisation goes on


async def test_a_note_from_an_agent_never_moves_a_person_even_when_it_races_past_the_check(engine: AsyncEngine) -> None:
    people = KnownPeople(engine)
    await people.note(ADA)

    await people.note(Actor("ada", "hamburg", ("staff",)))

    assert await people.find("ada") == ADA
    await people.note(Actor("ada", "hamburg", ("staff",)), signed_in=True)
    assert await people.find("ada") == Actor("ada", "hamburg", ("staff",))


class EditedJournal:
    """A journal whose stored text for a run can be edited between calls, as a replay after the run was
    erased and begun again reads another text under the same run id."""

    def __init__(self, journal: RunJournal) -> None:
        self._journal = journal
        self.checkpoint = journal.checkpoint
        self.store_json = journal.store_json
        self.edit: Callable[[str], str] = lambda text: text

    async def stored_json(self, run_id: str, position: str) -> str | None:
        stored = await self._journal.stored_json(run_id, position)
        return None if stored is None else self.edit(stored)


async def test_a_replay_of_an_unchanged_checkpoint_is_answered_with_the_answer_already_made(
    engine: AsyncEngine,
) -> None:
    provider = SqlMemoryProvider(engine)
    await provider.add([policy("units", "kilometres")])
    keeping = MemoryRuns(MemoryConfig(provider=provider), RunJournal(engine), ConversationRegistry(engine))
    forgetful = MemoryRuns(
        MemoryConfig(provider=provider), RunJournal(engine), ConversationRegistry(engine), recent_answers=0
    )

    first = await keeping.begin_answered("run_1", actor=ADA, thread_id="thr_1", text="units")
    replays = [await keeping.begin_answered("run_1", actor=ADA, thread_id="thr_1", text="") for _ in range(2)]
    made_afresh = [await forgetful.begin_answered("run_1", actor=ADA, thread_id="thr_1", text="") for _ in range(2)]

    assert replays[0] is replays[1], "the second replay reads the text the first one decoded"
    assert made_afresh[0] is not made_afresh[1]
    assert {first.answer, replays[1].answer, made_afresh[0].answer, made_afresh[1].answer} == {first.answer}
    assert b'"text":"kilometres"' in first.answer
    assert replays[1].recorded == first.recorded, "the run is decoded again once its answer is made"
    with pytest.raises(RunActorMismatchError):
        await keeping.begin_answered("run_1", actor=Actor("bob"), thread_id="thr_1", text="")


async def test_a_replay_reading_another_text_than_the_last_is_answered_from_what_it_read(engine: AsyncEngine) -> None:
    provider = SqlMemoryProvider(engine)
    await provider.add([policy("units", "kilometres")])
    journal = EditedJournal(RunJournal(engine))
    runs = MemoryRuns(MemoryConfig(provider=provider), journal, ConversationRegistry(engine))
    first = await runs.begin_answered("run_1", actor=ADA, thread_id="thr_1", text="units")
    await runs.begin_answered("run_1", actor=ADA, thread_id="thr_1", text="")

    journal.edit = lambda text: text.replace("kilometres", "miles")
    edited = await runs.begin_answered("run_1", actor=ADA, thread_id="thr_1", text="")
    journal.edit = lambda text: text.replace('"id":"ada"', '"id":"bob"').replace('"id": "ada"', '"id": "bob"')

    assert b"miles" in edited.answer
    assert b"kilometres" not in edited.answer
    assert edited.answer == first.answer.replace(b"kilometres", b"miles")
    with pytest.raises(RunActorMismatchError):
        await runs.begin_answered("run_1", actor=ADA, thread_id="thr_1", text="")
