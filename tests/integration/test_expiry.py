"""A concluded memory past its organisation's lifetime: on both databases it leaves every read that fills
a prompt at once (listed, shortlisted, searched, recalled), the person still sees it and may keep it,
and pruning removes it with its search index entries, its vector and the journals that named it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from store import Actor, MemoryConfig, MemoryOrigin, offer_memories
from store.domain.administration import RoleGate
from store.embedding import UniversalSentenceEncoderEmbedder
from store.expiry import Expiry
from store.persistence import shortlist as shortlist_module
from store.persistence.audit import AuditTrail
from store.persistence.controls import MemoryControlStore
from store.persistence.journal import RunJournal
from store.persistence.people import KnownPeople
from store.persistence.provider import SqlMemoryProvider
from tests.integration.builders import ADA, CAL, agent_origin, ctx
from tests.integration.index_check import index_out_of_step
from tests.integration.text_scan import places_holding

LENA = Actor(id="lena", tenant_ref="berlin", roles=("onfile-admin",))
STATED = MemoryOrigin(author="human", actor_ref="ada")
LONG_AGO = datetime.now(UTC) - timedelta(days=40)


class World:
    def __init__(self, engine: AsyncEngine) -> None:
        embedder = UniversalSentenceEncoderEmbedder()
        self.engine = engine
        self.then = SqlMemoryProvider(engine, clock=lambda: LONG_AGO, embedder=embedder)
        self.provider = SqlMemoryProvider(engine, embedder=embedder)
        self.controls = MemoryControlStore(engine)
        self.journal = RunJournal(engine)
        self.expiry = Expiry(self.provider, self.controls, self.journal, AuditTrail(engine), RoleGate())

    async def keys(self, query: str | None = None) -> set[str]:
        digest = await offer_memories(MemoryConfig(provider=self.provider, max_memories=3), ctx(ADA), query)
        return {entry.key for entry in digest.entries}


@pytest.fixture
async def world(engine: AsyncEngine) -> World:
    found = World(engine)
    await KnownPeople(engine).note(ADA)
    await found.controls.set_concluded_lifetime("berlin", days=30, by="lena")
    # concluded forty days ago, under a thirty-day lifetime: expired ten days ago
    await found.then.write(key="tone", text="short answers please", scope="actor:ada", origin=agent_origin(), ctx=ctx())
    await found.provider.write(key="units", text="kilometres please", scope="actor:ada", origin=STATED, ctx=ctx())
    await found.provider.write(
        key="team", text="answers in the team channel", scope="actor:ada", origin=agent_origin(), ctx=ctx()
    )
    return found


@pytest.mark.parametrize("query", [None, "short answers please", "kilometres please"])
async def test_an_expired_memory_is_in_no_digest_read_whole_searched_or_recalled(
    world: World, query: str | None
) -> None:
    assert await world.keys(query) == {"units", "team"}


async def test_an_expired_memory_is_in_no_digest_the_database_shortlists(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shortlist_module, "WHOLE_LIST_AT_MOST", 0)

    assert await world.keys() == {"units", "team"}


async def test_the_person_still_sees_an_expired_memory_and_keeping_it_brings_it_back(world: World) -> None:
    listed = await world.provider.list(scopes=["actor:ada"], ctx=ctx())
    tone = next(record for record in listed if record.key == "tone")

    assert await world.expiry.keep(ADA, tone.id)

    assert await world.keys() == {"units", "team", "tone"}


async def test_only_the_person_keeps_and_only_what_the_assistant_concluded(world: World) -> None:
    listed = {record.key: record.id for record in await world.provider.list(scopes=["actor:ada"], ctx=ctx())}

    assert not await world.expiry.keep(CAL, listed["tone"])
    assert not await world.expiry.keep(ADA, listed["units"])
    assert "tone" not in await world.keys()


async def test_a_lifetime_chosen_later_reaches_what_was_concluded_before_and_none_brings_it_back(
    world: World,
) -> None:
    await world.expiry.set_lifetime(LENA, days=None)
    assert await world.keys() == {"units", "team", "tone"}

    setting = await world.expiry.set_lifetime(LENA, days=30)

    assert setting is not None
    assert (setting.days, setting.chosen) == (30, True)
    assert await world.keys() == {"units", "team"}


async def test_only_an_administrator_of_the_organisation_sets_its_lifetime(world: World) -> None:
    assert await world.expiry.set_lifetime(ADA, days=None) is None
    assert await world.expiry.lifetime_setting(ADA) is None
    assert "tone" not in await world.keys()


async def test_pruning_removes_the_expired_memory_with_its_index_vector_and_the_journals_naming_it(
    world: World,
) -> None:
    listed = {record.key: record.id for record in await world.provider.list(scopes=["actor:ada"], ctx=ctx())}
    named: dict[str, object] = {"entries": [{"id": listed["tone"], "text": "short answers please"}]}
    await world.journal.checkpoint("run_named", "memory:digest", _payload(named), actor_id="ada")
    await world.journal.checkpoint("run_other", "memory:digest", _payload({"entries": []}), actor_id="ada")

    pruned = await world.expiry.prune(now=datetime.now(UTC))

    assert (pruned.memories, pruned.runs) == (1, 1)
    assert await places_holding(world.engine, "short answers please") == []
    if world.engine.dialect.name == "sqlite":  # PostgreSQL's index is a generated column of the row
        assert await index_out_of_step(world.engine) == []
    assert set(await world.journal.checkpoints("run_other")) == {"memory:digest"}
    async with world.engine.connect() as connection:
        vectors = (
            await connection.execute(text("SELECT count(*) FROM agent_memory WHERE embedding IS NOT NULL"))
        ).scalar_one()
    assert vectors == 2
    assert await world.keys() == {"units", "team"}


def _payload(value: dict[str, object]) -> Callable[[], Awaitable[dict[str, object]]]:
    async def compute() -> dict[str, object]:
        return value

    return compute


async def test_an_undone_forget_puts_a_concluded_memory_back_under_its_lifetime(world: World) -> None:
    listed = {record.key: record for record in await world.provider.list(scopes=["actor:ada"], ctx=ctx())}
    forgotten = await world.provider.forget_many(ids=[listed["tone"].id, listed["team"].id], ctx=ctx())

    await world.provider.put_back(forgotten, ctx=ctx())

    expiries = await world.provider.expiries([r.id for r in listed.values()], ctx=ctx())
    assert expiries == {
        listed["tone"].id: listed["tone"].updated_at + timedelta(days=30),
        listed["team"].id: listed["team"].updated_at + timedelta(days=30),
    }
    assert await world.keys() == {"units", "team"}
