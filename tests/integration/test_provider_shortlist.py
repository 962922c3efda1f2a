"""The contract of shortlist: on both databases, a listed turn's ceiling applied in the query gives
exactly the digest `list` gives — the same keys kept, the same overrides riding along, the same
omissions — and never reads another person's record.

Up to `WHOLE_LIST_AT_MOST` applicable records the provider reads them all; the tests of the query
itself set that to nothing, so that every turn is shortlisted by the database."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from store import MemoryConfig, MemoryOrigin, MemoryRecord, ScopeContext, offer_memories, resolve_digest
from store.persistence import shortlist as shortlist_module
from store.persistence.provider import SqlMemoryProvider
from tests.builders import reference_shortlist
from tests.integration.builders import ADA, BASE_TIME, BEA, ctx, make_record, scope_keys, scopes_of, seed

ADA_SCOPES = scopes_of(ADA)


@pytest.fixture
def always_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    """No turn is read whole: the database chooses the keys every time."""
    monkeypatch.setattr(shortlist_module, "WHOLE_LIST_AT_MOST", 0)


RECORDS = [
    make_record("manifest", "never without a printed manifest", "tenant:berlin", pinned=True, days_ago=30),
    make_record("fiscal-year", "they report on the calendar year", "actor:ada", author="agent", days_ago=1),
    make_record("fiscal-year", "the fiscal year starts in October", "global", days_ago=0),
    make_record("units", "kilometres", "global", days_ago=3),
    make_record("tone", "short answers", "actor:ada", author="agent", days_ago=2),
    make_record("tone", "formal", "tenant:hamburg"),  # another tenant's: never read, never counted
    make_record("secret", "bea's own", "actor:bea", pinned=True),
]


@pytest.mark.usefixtures("always_chosen")
async def test_the_query_keeps_the_ceilings_keys_with_their_overrides_and_counts_the_rest(engine: AsyncEngine) -> None:
    provider = SqlMemoryProvider(engine)
    await seed(provider, RECORDS)

    shortlist = await provider.shortlist(scopes=ADA_SCOPES, limit=2, ctx=ctx())

    assert scope_keys(shortlist.records) == {
        ("tenant:berlin", "manifest"),
        ("actor:ada", "fiscal-year"),
        ("global", "fiscal-year"),
    }
    assert (shortlist.keys, shortlist.pinned_keys) == (4, 1)


async def test_a_turn_with_few_memories_reads_them_all_and_counts_them_itself(engine: AsyncEngine) -> None:
    provider = SqlMemoryProvider(engine)
    await seed(provider, RECORDS)

    shortlist = await provider.shortlist(scopes=ADA_SCOPES, limit=2, ctx=ctx())

    assert scope_keys(shortlist.records) == {(r.scope, r.key) for r in RECORDS if r.scope in ADA_SCOPES}
    assert (shortlist.keys, shortlist.pinned_keys) == (4, 1)


async def test_past_the_whole_list_the_database_chooses(engine: AsyncEngine) -> None:
    provider = SqlMemoryProvider(engine)
    most = shortlist_module.WHOLE_LIST_AT_MOST
    records = [make_record(f"key-{n:04d}", f"fact {n}", ADA_SCOPES[n % 3], days_ago=n) for n in range(most + 1)]
    await seed(provider, records)

    shortlist = await provider.shortlist(scopes=ADA_SCOPES, limit=3, ctx=ctx())

    # narrowest scope first (every third key is held at the actor's own), newest first
    assert sorted(r.key for r in shortlist.records) == ["key-0000", "key-0003", "key-0006"]
    assert (shortlist.keys, shortlist.pinned_keys) == (most + 1, 0)


async def test_a_shortlist_keeps_at_least_one_key(engine: AsyncEngine) -> None:
    with pytest.raises(ValueError, match="at least one key, not 0"):
        await SqlMemoryProvider(engine).shortlist(scopes=ADA_SCOPES, limit=0, ctx=ctx())


@pytest.mark.usefixtures("always_chosen")
async def test_keys_that_tie_on_scope_and_time_are_kept_in_code_point_order(engine: AsyncEngine) -> None:
    """The last tie-break is the key as Python orders strings, whatever the database's collation: on
    PostgreSQL the key column is given a linguistic one here (ICU's root locale, which puts "a" before
    "B" and "ä" beside "a"), as a database created with a language's locale would have."""
    if engine.dialect.name == "postgresql":
        async with engine.begin() as connection:
            await connection.execute(text('ALTER TABLE agent_memory ALTER COLUMN key TYPE text COLLATE "und-x-icu"'))
    provider = SqlMemoryProvider(engine)
    keys = ["ä", "a", "B", "Z", "_", "東京", "é", "e"]
    await seed(provider, [make_record(key, f"fact {key}", "actor:ada", days_ago=1) for key in keys])

    for ceiling in range(1, len(keys) + 1):
        shortlist = await provider.shortlist(scopes=ADA_SCOPES, limit=ceiling, ctx=ctx())
        assert {r.key for r in shortlist.records} == set(sorted(keys)[:ceiling])


async def test_a_turn_without_search_text_is_served_by_the_shortlist_with_the_lists_digest(
    engine: AsyncEngine,
) -> None:
    provider = SqlMemoryProvider(engine)
    records = [make_record(f"key-{n:02d}", f"fact {n}", ADA_SCOPES[n % 3], days_ago=n % 7) for n in range(40)]
    await seed(provider, records)
    config = MemoryConfig(provider=provider, max_memories=7)

    digest = await offer_memories(config, ScopeContext(actor=ADA), query="   ")

    assert digest == resolve_digest(records, scopes=ADA_SCOPES, max_memories=7)
    assert (digest.offered, digest.omitted) == (7, 33)


_SCOPE_POOL = (*ADA_SCOPES, *scopes_of(BEA))
_KEY_POOL = ("units", "Units", "ünits", "tone", "a", "B", "_", "東京", "fiscal-year", "manifest")
_world = st.lists(
    st.tuples(st.sampled_from(_SCOPE_POOL), st.sampled_from(_KEY_POOL), st.integers(0, 3), st.booleans()),
    max_size=30,
    unique_by=lambda fields: (fields[0], fields[1]),
)
_worlds = itertools.count()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(world=_world, ceiling=st.integers(1, 12), chosen=st.booleans())
async def test_any_world_shortlists_as_its_definition_and_digests_as_the_list(
    engine: AsyncEngine,
    monkeypatch: pytest.MonkeyPatch,
    world: list[tuple[str, str, int, bool]],
    ceiling: int,
    chosen: bool,
) -> None:
    """Times from a few instants, so that ties on scope and time are common; keys that differ only in
    case or accent. Each example is a world of its own: its scopes are named for it."""
    n = next(_worlds)
    records = [
        MemoryRecord(
            id=f"mem_w{n}_{i}",
            key=key,
            text=f"{key} at {scope}",
            scope=f"{scope}~w{n}",
            origin=MemoryOrigin(author="human" if pinned else "agent"),
            updated_at=BASE_TIME - timedelta(hours=hours),
            pinned=pinned,
        )
        for i, (scope, key, hours, pinned) in enumerate(world)
    ]
    scopes = [f"{scope}~w{n}" for scope in ADA_SCOPES]
    provider = SqlMemoryProvider(engine)
    await provider.add(records)
    monkeypatch.setattr(shortlist_module, "WHOLE_LIST_AT_MOST", 0 if chosen else 200)

    found = await provider.shortlist(scopes=scopes, limit=ceiling, ctx=ctx())

    expected = reference_shortlist(records, scopes, ceiling if chosen else len(records))
    assert scope_keys(found.records) == scope_keys(expected.records)
    assert (found.keys, found.pinned_keys) == (expected.keys, expected.pinned_keys)
    config = MemoryConfig(provider=provider, scopes=_Fixed(scopes), max_memories=ceiling)
    assert await offer_memories(config, ScopeContext(actor=ADA)) == resolve_digest(
        records, scopes=scopes, max_memories=ceiling
    )


class _Fixed:
    """A resolver answering one world's scopes for everyone."""

    def __init__(self, scopes: list[str]) -> None:
        self._scopes = scopes

    async def resolve(self, ctx: ScopeContext) -> Sequence[str]:
        return self._scopes
