"""Recall by words and meaning, as an agent's turn meets it, on the reference provider and both databases.

A turn never misses a memory because its words differ: when everything fits, the block holds it all;
above the ceiling, the ranking by meaning fills the block with the nearest memories.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

import numpy as np
import pytest
from sqlalchemy import text

from store.embedding import EmbedderError, UniversalSentenceEncoderEmbedder
from store.in_memory import InMemoryMemoryProvider
from store.memory import MemoryConfig, offer_memories
from store.persistence import open_engine
from store.persistence.provider import SqlMemoryProvider
from tests.builders import UNRELATED_FACTS
from tests.conftest import Clock
from tests.integration.builders import (
    ADA,
    BEA,
    Provider,
    agent_origin,
    ctx,
    keys_in_order,
    make_record,
    scopes_of,
    seed,
)

ADA_SCOPES = scopes_of(ADA)
KILOMETRES = make_record("distance-units", "they report distances in kilometres", "actor:ada")
OTHERS = [make_record(f"note-{n:02d}", fact, "actor:ada", days_ago=n % 7) for n, fact in enumerate(UNRELATED_FACTS)]


@pytest.fixture
async def recalling(provider_database_url: str | None, clock: Clock) -> AsyncIterator[Provider]:
    """A provider that embeds with the default model, on each backend."""
    if provider_database_url is None:
        yield InMemoryMemoryProvider(clock=clock, embedder=UniversalSentenceEncoderEmbedder())
        return
    engine = open_engine(provider_database_url)
    try:
        yield SqlMemoryProvider(engine, clock=clock, embedder=UniversalSentenceEncoderEmbedder())
    finally:
        await engine.dispose()


async def test_the_only_memory_is_in_the_block_whatever_the_turn_says(recalling: Provider) -> None:
    await seed(recalling, [KILOMETRES])

    digest = await offer_memories(MemoryConfig(provider=recalling), ctx(), "how far is it")

    assert [entry.record.key for entry in digest.entries] == ["distance-units"]
    assert (digest.recalled, digest.omitted, digest.is_partial) == (False, 0, False)


async def test_everything_that_fits_is_carried_even_by_a_provider_that_ranks_by_words_only(
    provider: Provider,
) -> None:
    await seed(provider, [KILOMETRES, *OTHERS[:3]])

    digest = await offer_memories(MemoryConfig(provider=provider, max_memories=5), ctx(), "how far is it")

    assert len(digest.entries) == 4
    assert (digest.recalled, digest.is_partial) == (False, False)


async def test_above_the_ceiling_a_turn_sharing_no_word_gets_the_nearest_by_meaning(recalling: Provider) -> None:
    await seed(recalling, [KILOMETRES, *OTHERS])

    digest = await offer_memories(MemoryConfig(provider=recalling, max_memories=5), ctx(), "how far away is the depot")

    keys = [entry.record.key for entry in digest.entries]
    assert "distance-units" in keys
    assert len(keys) == 5
    assert (digest.recalled, digest.omitted, digest.is_partial) == (True, 26, True)


async def test_a_turn_whose_words_match_still_ranks_that_memory_first(recalling: Provider) -> None:
    await seed(recalling, [KILOMETRES, *OTHERS])

    found = await recalling.recall(scopes=ADA_SCOPES, query="cello rehearsal", limit=3, ctx=ctx())

    assert keys_in_order(found.records)[0] == "note-13"
    assert found.ranked


async def test_the_block_is_always_filled_to_the_limit(recalling: Provider) -> None:
    await seed(recalling, [KILOMETRES, *OTHERS])

    found = await recalling.recall(scopes=ADA_SCOPES, query="zzzz qqqq", limit=7, ctx=ctx())

    assert len(keys_in_order(found.records)) == 7


async def test_another_tenants_nearest_neighbour_never_takes_a_place(recalling: Provider) -> None:
    theirs = make_record("distance-units", "they report distances in kilometres", "tenant:hamburg")
    await seed(recalling, [theirs, make_record("how-far", "how far is it: ask the depot", "actor:bea"), *OTHERS])

    found = await recalling.recall(scopes=ADA_SCOPES, query="how far is it", limit=5, ctx=ctx())

    assert {record.scope for record in found.records} == {"actor:ada"}
    assert len(keys_in_order(found.records)) == 5


async def test_both_halves_of_a_chosen_key_and_every_pinned_key_come_back(recalling: Provider) -> None:
    wider = make_record("distance-units", "distances are in miles", "global")
    pinned = make_record("manifest", "never dispatch without a printed manifest", "tenant:berlin", pinned=True)
    await seed(recalling, [KILOMETRES, wider, pinned, *OTHERS])

    found = await recalling.recall(scopes=ADA_SCOPES, query="how far away is the depot", limit=3, ctx=ctx())

    scopes_of_key = [(r.key, r.scope) for r in found.records if r.key in {"distance-units", "manifest"}]
    assert ("distance-units", "actor:ada") in scopes_of_key
    assert ("distance-units", "global") in scopes_of_key
    assert ("manifest", "tenant:berlin") in scopes_of_key
    # within a key, the narrowest scope first
    keys = [r.key for r in found.records]
    assert keys.index("distance-units") == [r.scope for r in found.records].index("actor:ada")


async def test_a_turn_for_another_person_never_sees_ada(recalling: Provider) -> None:
    await seed(recalling, [KILOMETRES, *OTHERS])

    found = await recalling.recall(scopes=scopes_of(BEA), query="how far is it", limit=5, ctx=ctx(BEA))

    assert found.records == ()
    assert not found.ranked


class _Broken:
    name = "broken"

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        msg = "the embedding service is down"
        raise EmbedderError(msg)


async def _vectors(provider: SqlMemoryProvider) -> dict[str, tuple[str | None, int | None]]:
    async with provider.engine.connect() as connection:
        rows = (await connection.execute(text("SELECT key, embedder, length(embedding) FROM agent_memory"))).all()
    return {row[0]: (row[1], row[2]) for row in rows}


async def test_every_write_path_stores_the_memorys_vector_beside_it(database_url: str, clock: Clock) -> None:
    engine = open_engine(database_url)
    provider = SqlMemoryProvider(engine, clock=clock, embedder=UniversalSentenceEncoderEmbedder())
    try:
        written = await provider.write(
            key="units", text="kilometres", scope="actor:ada", origin=agent_origin(), ctx=ctx()
        )
        await provider.replace(key="tea", text="green tea", scope="actor:ada", origin=agent_origin(), ctx=ctx())
        await provider.add([make_record("fiscal", "October", "tenant:berlin")])
        before = await _vectors(provider)
        await provider.rewrite(written.id, scope="actor:ada", text="miles, since last week", origin=agent_origin())

        after = await _vectors(provider)
        async with engine.connect() as connection:
            query = text("SELECT embedding FROM agent_memory WHERE key = 'units'")
            kept = (await connection.execute(query)).scalar_one()
    finally:
        await engine.dispose()
    assert set(before) == {"units", "tea", "fiscal"}
    assert all(value == ("use-multilingual-v3-512", 512) for value in after.values())
    # the rewrite's vector is the new text's
    fresh = (await UniversalSentenceEncoderEmbedder().embed(["units: miles, since last week"]))[0]
    stored = np.frombuffer(kept, dtype=np.int8).astype(np.float32)
    assert np.dot(stored, fresh) / (np.linalg.norm(stored) * np.linalg.norm(fresh)) > 0.999


async def test_a_failing_embedder_stores_the_memory_without_a_vector_and_reembed_fills_it(
    database_url: str, clock: Clock
) -> None:
    engine = open_engine(database_url)
    try:
        broken = SqlMemoryProvider(engine, clock=clock, embedder=_Broken())
        await broken.write(key="units", text="kilometres", scope="actor:ada", origin=agent_origin(), ctx=ctx())
        await broken.add([make_record(f"k{n}", f"fact {n}", "actor:ada") for n in range(300)])
        assert (await _vectors(broken))["units"] == (None, None)
        # a turn is still answered, by words alone
        assert (await broken.recall(scopes=ADA_SCOPES, query="kilometres", limit=1, ctx=ctx())).ranked

        working = SqlMemoryProvider(engine, clock=clock, embedder=UniversalSentenceEncoderEmbedder())
        seen: list[tuple[int, int]] = []
        filled = await working.reembed(progress=lambda done, total: seen.append((done, total)))
        again = await working.reembed()
        rebuilt = await working.reembed(everything=True)
        vectors = await _vectors(working)
    finally:
        await engine.dispose()
    assert (filled, again, rebuilt) == (301, 0, 301)
    assert seen == [(256, 301), (301, 301)]
    assert set(vectors.values()) == {("use-multilingual-v3-512", 512)}


async def test_a_forgotten_memory_leaves_no_vector_anywhere_in_the_database(database_url: str, clock: Clock) -> None:
    engine = open_engine(database_url)
    try:
        provider = SqlMemoryProvider(engine, clock=clock, embedder=UniversalSentenceEncoderEmbedder())
        record = await provider.write(
            key="units", text="kilometres", scope="actor:ada", origin=agent_origin(), ctx=ctx()
        )
        async with engine.connect() as connection:
            vector = (await connection.execute(text("SELECT embedding FROM agent_memory"))).scalar_one()
        assert await _tables_holding(provider, vector) == ["agent_memory"]

        assert await provider.forget(id=record.id, ctx=ctx())

        assert await _tables_holding(provider, vector) == []
    finally:
        await engine.dispose()


async def _tables_holding(provider: SqlMemoryProvider, needle: bytes) -> list[str]:
    found = []
    async with provider.engine.connect() as connection:
        if connection.dialect.name == "sqlite":
            listing = "SELECT name FROM sqlite_master WHERE type = 'table'"
        else:
            listing = "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
        for (name,) in (await connection.execute(text(listing))).all():
            for row in (await connection.execute(text(f'SELECT * FROM "{name}"'))).all():  # noqa: S608 - catalog names
                if any(isinstance(value, bytes) and needle in value for value in row):
                    found.append(name)
    return sorted(set(found))
