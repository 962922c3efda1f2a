"""Isolation on the fast path: the turn's digest (listed and searched), the read-back and forgetting,
over generated worlds on the in-memory reference provider. Nobody is ever given a record outside the
scopes their resolver answers, and forgetting answers one "not found" for every id they cannot see."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given

from store import (
    Diagnostics,
    MemoryConfig,
    MemoryDigest,
    MemoryRecord,
    ScopeContext,
    forget_memory,
    memories_on_file,
    memory_for_turn,
)
from store.in_memory import InMemoryMemoryProvider
from store.memory import NOT_ON_FILE
from tests.properties.world import SCOPE_POOL, DepotResolver, World, markers_in, property_settings, worlds


def config_over(provider: object, world: World) -> MemoryConfig:
    return MemoryConfig(
        provider=provider,  # type: ignore[arg-type]
        scopes=DepotResolver(),
        max_memories=world.max_memories,
        diagnostics=Diagnostics(),
    )


def assert_only_resolved_scopes(world: World, digest: MemoryDigest, block: str, scopes: Sequence[str]) -> None:
    assert digest.scopes == tuple(scopes)
    for entry in digest.entries:
        assert entry.record.scope in scopes, f"{entry.record.scope} is not among {scopes}"
        assert all(o.scope in scopes for o in entry.overrides), entry.overrides
    assert markers_in(block) <= world.markers_at(scopes), "the block shows a record from outside the scopes"


class ScopeBlindProvider:
    """A provider whose list and search ignore the scopes they are given: a broken index. The rules
    must still drop every record outside the resolved scopes (the design's backstop)."""

    def __init__(self, records: Sequence[MemoryRecord]) -> None:
        self._inner = InMemoryMemoryProvider(records)

    async def list(self, *, scopes: Sequence[str], ctx: ScopeContext) -> Sequence[MemoryRecord]:
        return await self._inner.search(scopes=SCOPE_POOL, query="", limit=0, ctx=ctx)

    async def search(
        self, *, scopes: Sequence[str], query: str, limit: int, ctx: ScopeContext
    ) -> Sequence[MemoryRecord]:
        return await self._inner.search(scopes=SCOPE_POOL, query=query, limit=limit, ctx=ctx)

    async def forget(self, *, id: str, ctx: ScopeContext) -> bool:
        return await self._inner.forget(id=id, ctx=ctx)


@property_settings(3500)
@given(world=worlds())
async def test_a_turn_is_given_only_what_its_resolved_scopes_hold_listed_or_searched(world: World) -> None:
    config = config_over(InMemoryMemoryProvider(world.records), world)
    for person in world.people:
        scopes = world.scopes_of(person)
        winners = world.winners(person)
        for query in ("", world.turn_text):
            turn = await memory_for_turn(config, ScopeContext(actor=person), run_id=None, query=query)
            assert_only_resolved_scopes(world, turn.digest, turn.block, scopes)
            # what is shown for a key is the person's own answer to it, never a foreign or beaten record
            assert all(winners[e.key] == e.record for e in turn.digest.entries)


@property_settings(2500)
@given(world=worlds())
async def test_a_provider_that_ignores_the_scopes_still_leaks_nothing(world: World) -> None:
    config = config_over(ScopeBlindProvider(world.records), world)
    for person in world.people:
        scopes = world.scopes_of(person)
        for query in ("", world.turn_text):
            turn = await memory_for_turn(config, ScopeContext(actor=person), run_id=None, query=query)
            assert_only_resolved_scopes(world, turn.digest, turn.block, scopes)
        on_file = await memories_on_file(config, ScopeContext(actor=person))
        assert {e.record.id for e in on_file.entries} == {r.id for r in world.winners(person).values()}


@property_settings(3200)
@given(world=worlds())
async def test_the_read_back_is_exactly_the_persons_answers_and_forgetting_hides_everything_else(
    world: World,
) -> None:
    provider = InMemoryMemoryProvider(world.records)
    config = config_over(provider, world)
    for person in world.people:
        ctx = ScopeContext(actor=person)
        on_file = await memories_on_file(config, ctx)
        assert {e.record.id for e in on_file.entries} == {r.id for r in world.winners(person).values()}
        assert_only_resolved_scopes(world, on_file, "", world.scopes_of(person))

        unseen = [r.id for r in (*world.foreign(person), *world.beaten(person))]
        for id in ["mem_unknown", *unseen]:
            outcome = await forget_memory(config, ctx, id)
            assert (outcome.status, outcome.reason) == ("not_found", NOT_ON_FILE), id
        assert len(await provider.list(scopes=[r.scope for r in world.records], ctx=ctx)) == len(world.records)

    for person in world.people:  # then each forgets what is theirs to forget: their own scope only
        ctx = ScopeContext(actor=person)
        for record in world.winners(person).values():
            outcome = await forget_memory(config, ctx, record.id)
            expected = "forgotten" if record.scope == f"actor:{person.id}" else "refused"
            assert outcome.status == expected, (record.scope, person)
