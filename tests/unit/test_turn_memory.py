"""A turn's memory end to end over the in-memory provider: offer, read back, render, report."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from store import (
    Actor,
    DiagnosticEvent,
    Diagnostics,
    InMemoryMemoryProvider,
    MemoryConfig,
    MemoryRecord,
    MemoryResolved,
    ScopeContext,
    memories_on_file,
    memory_for_turn,
    offer_memories,
)
from tests.builders import make_record

CTX = ScopeContext(actor=Actor(id="ada", tenant_ref="berlin"), thread_id="thr_1")


class ListOnlyProvider:
    """A provider with no write and no search, that remembers what it was asked."""

    def __init__(self, records: Sequence[MemoryRecord]) -> None:
        self.records = records
        self.asked: list[tuple[str, ...]] = []

    async def list(self, *, scopes: Sequence[str], ctx: ScopeContext) -> Sequence[MemoryRecord]:
        self.asked.append(tuple(scopes))
        return self.records  # deliberately unfiltered: the digest must drop what does not apply

    async def forget(self, *, id: str, ctx: ScopeContext) -> bool:
        return False


class SpyingInMemoryProvider(InMemoryMemoryProvider):
    def __init__(self, records: Sequence[MemoryRecord]) -> None:
        super().__init__(records)
        self.calls: list[str] = []

    async def list(self, *, scopes: Sequence[str], ctx: ScopeContext) -> Sequence[MemoryRecord]:
        self.calls.append("list")
        return await super().list(scopes=scopes, ctx=ctx)

    async def search(
        self, *, scopes: Sequence[str], query: str, limit: int, ctx: ScopeContext
    ) -> Sequence[MemoryRecord]:
        self.calls.append(f"search:{query}:{limit}")
        return await super().search(scopes=scopes, query=query, limit=limit, ctx=ctx)


class NoScopes:
    async def resolve(self, ctx: ScopeContext) -> Sequence[str]:
        return ()


@pytest.mark.parametrize("query", [None, "", "   \n"])
async def test_a_turn_with_no_text_is_served_by_list(query: str | None) -> None:
    provider = SpyingInMemoryProvider([make_record("tone")])

    digest = await offer_memories(MemoryConfig(provider=provider), CTX, query)

    assert provider.calls == ["list"]
    assert not digest.recalled
    assert [e.key for e in digest.entries] == ["tone"]


async def test_a_turn_with_text_searches_with_the_trimmed_text_and_never_lists() -> None:
    provider = SpyingInMemoryProvider(
        [make_record("pallet-labels", "depot code first", "tenant:berlin"), make_record("tone", "short answers")]
    )

    digest = await offer_memories(MemoryConfig(provider=provider, max_memories=5), CTX, "  how do I label a pallet?  ")

    assert provider.calls == ["search:how do I label a pallet?:5"]
    assert digest.recalled
    assert [e.key for e in digest.entries] == ["pallet-labels"]


async def test_a_provider_without_search_is_listed_even_with_text() -> None:
    provider = ListOnlyProvider([make_record("tone")])

    digest = await offer_memories(MemoryConfig(provider=provider), CTX, "anything")

    assert provider.asked == [("actor:ada", "tenant:berlin", "global")]
    assert not digest.recalled


async def test_records_a_provider_returns_outside_the_scopes_are_dropped() -> None:
    provider = ListOnlyProvider([make_record("tone", scope="actor:bob"), make_record("units", scope="tenant:hamburg")])

    digest = await offer_memories(MemoryConfig(provider=provider), CTX)

    assert digest.entries == ()
    assert digest.omitted == 0


async def test_an_actor_with_no_scopes_asks_the_provider_nothing() -> None:
    provider = ListOnlyProvider([make_record()])
    config = MemoryConfig(provider=provider, scopes=NoScopes())

    assert (await offer_memories(config, CTX, "text")).scopes == ()
    assert (await memories_on_file(config, CTX)).entries == ()
    assert provider.asked == []


async def test_the_read_back_shows_everything_with_no_ceiling_and_no_search() -> None:
    provider = SpyingInMemoryProvider([make_record(f"k{i:03d}") for i in range(50)])

    digest = await memories_on_file(MemoryConfig(provider=provider, max_memories=3), CTX)

    assert len(digest.entries) == 50
    assert provider.calls == ["list"]


async def test_a_turn_reports_what_it_resolved_without_keys_or_facts() -> None:
    hub = Diagnostics()
    events: list[DiagnosticEvent] = []
    hub.subscribe(events.append)
    records = [make_record(f"secret-key-{i}", f"secret fact {i}", pinned=i < 2) for i in range(4)]
    config = MemoryConfig(provider=InMemoryMemoryProvider(records), max_memories=1, diagnostics=hub)

    turn = await memory_for_turn(config, CTX, run_id="run_1")

    assert events == [
        MemoryResolved(
            run_id="run_1",
            scopes=3,
            offered=1,
            omitted=3,
            pinned_omitted=1,
            recalled=False,
            prompt_chars=len(turn.block),
        )
    ]
    assert "secret" not in repr(events)
    assert turn.tools[0]["name"] == "remember"


async def test_a_read_only_provider_is_offered_no_tool_and_no_invitation() -> None:
    config = MemoryConfig(provider=ListOnlyProvider([make_record()]))

    turn = await memory_for_turn(config, CTX, run_id=None)

    assert turn.tools == ()
    assert "remember" not in turn.block
    assert not config.writable


@pytest.mark.parametrize(("field", "value"), [("max_memories", 0), ("max_fact_chars", 0)])
def test_a_config_refuses_a_ceiling_below_one(field: str, value: int) -> None:
    with pytest.raises(ValueError, match=f"{field} must be at least 1"):
        MemoryConfig(provider=InMemoryMemoryProvider(), **{field: value})  # type: ignore[arg-type]
