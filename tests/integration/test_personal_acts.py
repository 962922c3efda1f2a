"""A person's own acts on SQLite and PostgreSQL: forgetting many at once and undoing it with the
original dates, and correcting a memory with the audit trail keeping both values until it is forgotten."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from store import Actor, MemoryConfig, MemoryOrigin, MemoryRecord, ScopeContext, memories_on_file
from store.domain.forgetting import chosen_reach, matching_reach
from store.persistence import AuditTrail, ForgottenStash, SqlMemoryProvider
from store.personal import PersonalMemories, UndoTicket
from tests.conftest import Clock
from tests.integration.index_check import index_out_of_step
from tests.integration.text_scan import places_holding

ADA = Actor("ada", "berlin")
BOB = Actor("bob", "berlin")


def record(id: str, key: str, text: str, scope: str = "actor:ada", *, days_ago: int = 30) -> MemoryRecord:
    origin = MemoryOrigin("agent", thread_id="thr_1", run_id="run_1", actor_ref=scope.removeprefix("actor:"))
    return MemoryRecord(id, key, text, scope, origin, Clock().now - timedelta(days=days_ago))


@pytest.fixture
def world(engine: AsyncEngine, clock: Clock) -> tuple[PersonalMemories, SqlMemoryProvider, AuditTrail, Clock]:
    provider = SqlMemoryProvider(engine, clock=clock)
    audit = AuditTrail(engine, clock=clock)
    config = MemoryConfig(provider=provider)
    personal = PersonalMemories(config, provider, ForgottenStash(engine, clock=clock), audit, clock=clock)
    return personal, provider, audit, clock


async def index_in_step(engine: AsyncEngine) -> None:
    """SQLite's postings equal a recomputation from the rows (PostgreSQL's index is generated)."""
    if engine.dialect.name == "sqlite":
        assert await index_out_of_step(engine) == []


async def on_file(personal: PersonalMemories, actor: Actor = ADA) -> dict[str, MemoryRecord]:
    digest = await memories_on_file(personal._config, ScopeContext(actor=actor))
    return {e.record.id: e.record for e in digest.entries}


async def test_many_go_in_one_act_and_one_undo_brings_each_back_exactly_as_it_was(
    engine: AsyncEngine, world: tuple[PersonalMemories, SqlMemoryProvider, AuditTrail, Clock]
) -> None:
    personal, provider, _, clock = world
    seeded = [record(f"m_{n}", f"key-{n}", f"zanzibarword number {n}", days_ago=n + 1) for n in range(7)]
    await provider.add([*seeded, record("t_org", "fiscal", "october", "tenant:berlin")])
    before = await on_file(personal)

    choice = chosen_reach(ADA, list((await memories_on_file(personal._config, ScopeContext(ADA))).entries), [])
    assert not (await personal.forget(ADA, choice)).records
    entries = (await memories_on_file(personal._config, ScopeContext(ADA))).entries
    forgotten = await personal.forget(ADA, matching_reach(ADA, [e for e in entries if "zanzibar" in e.text]))

    assert forgotten.count == 7
    assert forgotten.ticket is not None
    assert set(await on_file(personal)) == {"t_org"}
    assert await places_holding(engine, "zanzibarword") == [], "the stash holds the text only encrypted"
    await index_in_step(engine)

    clock.advance(minutes=9)
    undone = await personal.undo(ADA, forgotten.ticket)

    assert undone.status == "restored"
    assert len(undone.restored) == 7
    assert await on_file(personal) == before, "the same ids, texts, origins and dates"
    assert (await provider.created_at("m_3")) == seeded[3].updated_at
    await index_in_step(engine)
    assert (await personal.undo(ADA, forgotten.ticket)).status == "expired", "an undo happens once"


async def test_an_undo_keeps_a_key_written_again_and_is_refused_late_foreign_or_with_another_key(
    world: tuple[PersonalMemories, SqlMemoryProvider, AuditTrail, Clock],
) -> None:
    personal, provider, _, clock = world
    await provider.add([record("m_1", "units", "miles"), record("m_2", "tone", "short")])
    entries = (await memories_on_file(personal._config, ScopeContext(ADA))).entries
    forgotten = await personal.forget(ADA, matching_reach(ADA, entries))
    assert forgotten.ticket is not None
    ticket = forgotten.ticket
    await provider.write(
        key="tone", text="long", scope="actor:ada", origin=MemoryOrigin("human"), ctx=ScopeContext(ADA)
    )

    assert (await personal.undo(BOB, ticket)).status == "expired", "another person's stash opens for nobody else"
    assert (await personal.undo(ADA, UndoTicket(ticket.stash, "A" * 43 + "="))).status == "expired"

    undone = await personal.undo(ADA, ticket)

    assert [r.id for r in undone.restored] == ["m_1"]
    assert [r.key for r in undone.superseded] == ["tone"]
    assert {r.text for r in (await on_file(personal)).values()} == {"miles", "long"}

    late = await personal.forget(
        ADA, matching_reach(ADA, (await memories_on_file(personal._config, ScopeContext(ADA))).entries)
    )
    assert late.ticket is not None
    clock.advance(minutes=10, seconds=1)
    assert (await personal.undo(ADA, late.ticket)).status == "expired"


async def test_a_correction_is_stated_by_the_person_and_audited_until_the_memory_is_forgotten(
    engine: AsyncEngine, world: tuple[PersonalMemories, SqlMemoryProvider, AuditTrail, Clock]
) -> None:
    personal, provider, audit, clock = world
    await provider.add(
        [record("m_1", "units", "quokkaword miles"), record("t_org", "fiscal", "october", "tenant:berlin")]
    )
    clock.advance(minutes=1)

    done = await personal.correct(ADA, "m_1", "  kilometres please ")

    assert done.status == "done"
    assert done.after is not None
    assert (done.after.id, done.after.text, done.after.origin.author, done.after.origin.actor_ref) == (
        "m_1",
        "kilometres please",
        "human",
        "ada",
    )
    assert done.after.updated_at == clock.now
    (entry,) = await audit.at_scopes(["actor:ada"])
    assert (entry.who, entry.action, entry.key) == ("ada", "edit", "units")
    assert (entry.before["text"], entry.after["text"]) == ("quokkaword miles", "kilometres please")
    assert await provider.search(scopes=["actor:ada"], query="kilometres", limit=5, ctx=ScopeContext(ADA))
    assert not await provider.search(scopes=["actor:ada"], query="quokkaword", limit=5, ctx=ScopeContext(ADA))
    await index_in_step(engine)

    for refused, id, text in [
        ("not_found", "m_nope", "x"),
        ("refused", "t_org", "calendar"),
        ("invalid", "m_1", "   "),
        ("invalid", "m_1", "x" * 241),
        ("invalid", "m_1", "two\nlines"),
        ("invalid", "m_1", "abc\u202edef"),
    ]:
        assert (await personal.correct(ADA, id, text)).status == refused, (id, text)
    assert (await personal.correct(BOB, "m_1", "mine now")).status == "not_found"
    assert (await on_file(personal))["m_1"].text == "kilometres please", "nothing refused changed it"

    entries = (await memories_on_file(personal._config, ScopeContext(ADA))).entries
    await personal.forget(ADA, chosen_reach(ADA, entries, ["m_1"]))

    (redacted,) = await audit.at_scopes(["actor:ada"])
    assert (redacted.who, redacted.action, redacted.key, redacted.before, redacted.after) == (
        "ada",
        "edit",
        None,
        None,
        None,
    )
    assert await places_holding(engine, "quokkaword") == []
    assert await places_holding(engine, "kilometres please") == []


async def test_forgetting_all_drops_the_values_of_ones_corrections_too(
    engine: AsyncEngine, world: tuple[PersonalMemories, SqlMemoryProvider, AuditTrail, Clock]
) -> None:
    personal, provider, audit, _ = world
    await provider.add([record("m_1", "units", "miles")])
    assert (await personal.correct(ADA, "m_1", "wombatword kilometres")).status == "done"

    assert (await personal.forget_all(ADA)).removal.memories == 1

    assert await places_holding(engine, "wombatword") == []
    assert (await audit.at_scopes(["actor:ada"]))[0].after is None
