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
    Recall,
    ScopeContext,
    forget_memory,
    memories_on_file,
    memory_for_turn,
    offer_memories,
)
from store.domain.types import MemoryDigest, Shortlist
from store.memory import RecentTurns
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

    async def recall(self, *, scopes: Sequence[str], query: str, limit: int, ctx: ScopeContext) -> Recall:
        self.calls.append(f"recall:{query}:{limit}")
        return await super().recall(scopes=scopes, query=query, limit=limit, ctx=ctx)


class SearchOnlyProvider:
    """A provider that searches by words but cannot recall (no ranking by meaning, no filling)."""

    def __init__(self, records: Sequence[MemoryRecord]) -> None:
        self.inner = InMemoryMemoryProvider(records)
        self.calls: list[str] = []

    async def list(self, *, scopes: Sequence[str], ctx: ScopeContext) -> Sequence[MemoryRecord]:
        self.calls.append("list")
        return await self.inner.list(scopes=scopes, ctx=ctx)

    async def forget(self, *, id: str, ctx: ScopeContext) -> bool:
        return False

    async def search(
        self, *, scopes: Sequence[str], query: str, limit: int, ctx: ScopeContext
    ) -> Sequence[MemoryRecord]:
        self.calls.append("search")
        return await self.inner.search(scopes=scopes, query=query, limit=limit, ctx=ctx)


class NoScopes:
    async def resolve(self, ctx: ScopeContext) -> Sequence[str]:
        return ()


@pytest.mark.parametrize("query", [None, "", "   \n", "??? 🙂 …", "-- !! --"])
async def test_a_turn_with_no_words_is_served_by_list_and_claims_no_selection(query: str | None) -> None:
    provider = SpyingInMemoryProvider([make_record("tone")])

    digest = await offer_memories(MemoryConfig(provider=provider), CTX, query)

    assert provider.calls == ["list"]
    assert not digest.recalled
    assert [e.key for e in digest.entries] == ["tone"]


MANY = [make_record("pallet-labels", "depot code first", "tenant:berlin")] + [
    make_record(f"note-{n}", f"an unrelated fact number {n}", age_days=n) for n in range(6)
]


async def test_a_turn_with_text_recalls_with_the_trimmed_text_and_never_lists() -> None:
    provider = SpyingInMemoryProvider(MANY)

    digest = await offer_memories(MemoryConfig(provider=provider, max_memories=5), CTX, "  how do I label a pallet?  ")

    assert provider.calls[0] == "recall:how do I label a pallet?:5"
    assert "list" not in provider.calls
    assert (digest.recalled, digest.omitted) == (True, 2)
    assert digest.entries[0].key == "pallet-labels"
    assert len(digest.entries) == 5


async def test_a_turn_whose_memories_all_fit_carries_them_all_and_claims_no_selection() -> None:
    provider = SpyingInMemoryProvider(MANY[:3])

    digest = await offer_memories(MemoryConfig(provider=provider, max_memories=5), CTX, "how far is it?")

    assert (digest.recalled, digest.omitted, len(digest.entries)) == (False, 0, 3)


async def test_a_search_that_leaves_room_when_everything_fits_is_replaced_by_the_whole_list() -> None:
    provider = SearchOnlyProvider(MANY[:3])

    digest = await offer_memories(MemoryConfig(provider=provider, max_memories=5), CTX, "how far is it?")

    assert provider.calls == ["search", "list"]
    assert (digest.recalled, len(digest.entries)) == (False, 3)


async def test_a_search_that_leaves_room_when_more_apply_stays_a_selection() -> None:
    provider = SearchOnlyProvider(MANY)

    digest = await offer_memories(MemoryConfig(provider=provider, max_memories=5), CTX, "label a pallet")

    assert provider.calls == ["search", "list"]
    assert (digest.recalled, [e.key for e in digest.entries]) == (True, ["pallet-labels"])


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


async def test_a_person_forgets_their_own_memory_and_the_wider_value_is_revealed() -> None:
    mine = make_record("units", "miles", "actor:ada", id="mem_mine")
    org = make_record("units", "kilometres", "tenant:berlin", author="human", id="mem_org")
    config = MemoryConfig(provider=InMemoryMemoryProvider([mine, org]))

    outcome = await forget_memory(config, CTX, "mem_mine")

    assert outcome.status == "forgotten"
    (left,) = (await memories_on_file(config, CTX)).entries
    assert left.record.id == "mem_org"


@pytest.mark.parametrize(
    ("target", "status"),
    [
        ("mem_org", "refused"),  # visible, but held at a wider scope
        ("mem_beaten", "not_found"),  # beaten by a narrower record: not what the person sees
        ("mem_bob", "not_found"),  # another person's
        ("mem_hamburg", "not_found"),  # another organisation's
        ("mem_nope", "not_found"),  # unknown
    ],
)
async def test_forgetting_what_is_not_yours_is_refused_or_not_found(target: str, status: str) -> None:
    config = MemoryConfig(
        provider=InMemoryMemoryProvider(
            [
                make_record("tone", "short", "tenant:berlin", author="human", id="mem_org"),
                make_record("units", "miles", "actor:ada", id="mem_mine"),
                make_record("units", "kilometres", "global", author="human", id="mem_beaten"),
                make_record("tone", "long", "actor:bob", id="mem_bob"),
                make_record("labels", "customer first", "tenant:hamburg", author="human", id="mem_hamburg"),
            ]
        )
    )

    outcome = await forget_memory(config, CTX, target)

    assert outcome.status == status
    if status == "not_found":
        assert outcome.reason == "There is no memory with that id on file for you."
    else:
        assert "managed by its administrators" in outcome.reason
    assert len((await memories_on_file(config, CTX)).entries) == 2


async def test_a_memory_forgotten_meanwhile_is_not_found() -> None:
    class Racing(InMemoryMemoryProvider):
        async def forget(self, *, id: str, ctx: ScopeContext) -> bool:
            await super().forget(id=id, ctx=ctx)
            return False  # another tab forgot it first

    config = MemoryConfig(provider=Racing([make_record(id="mem_mine")]))

    assert (await forget_memory(config, CTX, "mem_mine")).status == "not_found"


def test_recent_turns_keeps_the_most_recently_asked_sets_of_scopes_only() -> None:
    recent = RecentTurns(2)
    lists = {name: Shortlist(records=(make_record(name, "fact", "global"),), keys=1, pinned_keys=0) for name in "abc"}
    digests = {name: MemoryDigest(scopes=(name,)) for name in "abc"}
    recent.keep(("a",), lists["a"], digests["a"])
    recent.keep(("b",), lists["b"], digests["b"])
    assert recent.digest(("a",), lists["a"]) is digests["a"]  # asked: now the most recent

    recent.keep(("c",), lists["c"], digests["c"])

    assert recent.digest(("b",), lists["b"]) is None
    assert recent.digest(("a",), lists["a"]) is digests["a"]
    assert recent.digest(("c",), lists["c"]) is digests["c"]
    assert recent.digest(("c",), lists["a"]) is None  # another shortlist at the same scopes


def test_recent_turns_keeps_a_block_only_for_the_digest_it_keeps() -> None:
    recent = RecentTurns(1)
    kept, other = MemoryDigest(scopes=("a",)), MemoryDigest(scopes=("a",))
    recent.keep(("a",), Shortlist(records=(), keys=0, pinned_keys=0), kept)

    recent.keep_block(other, "another block")
    assert recent.block(kept) is None
    recent.keep_block(kept, "the block")

    assert recent.block(kept) == "the block"
    assert recent.block(other) is None


def test_a_config_cannot_remember_a_negative_number_of_turns() -> None:
    with pytest.raises(ValueError, match="recent_turns cannot be negative"):
        MemoryConfig(provider=InMemoryMemoryProvider([]), recent_turns=-1)
