"""The contract of write, forget and pin, on the reference provider and the SQL provider alike."""

from __future__ import annotations

from datetime import UTC

import pytest

from store.domain.types import MemoryOrigin
from store.provider import MemoryProvider, SearchableMemoryProvider, WritableMemoryProvider, WriteRefusedError
from tests.conftest import Clock
from tests.integration.builders import ADA, ADMIN, BEA, Provider, agent_origin, created_at, ctx, make_record, seed


async def test_every_provider_is_readable_writable_and_searchable(provider: Provider) -> None:
    assert isinstance(provider, MemoryProvider)
    assert isinstance(provider, WritableMemoryProvider)
    assert isinstance(provider, SearchableMemoryProvider)


async def test_a_rewrite_keeps_the_id_the_pin_and_the_creation_time(provider: Provider, clock: Clock) -> None:
    first = await provider.write(key="units", text="km", scope="actor:ada", origin=agent_origin(), ctx=ctx())
    assert await provider.pin(first.id, True)
    first_written = clock.now
    clock.advance(hours=3)

    again = await provider.write(key="units", text="miles", scope="actor:ada", origin=agent_origin(), ctx=ctx())

    assert again.id == first.id
    assert again.pinned, "a rewrite never unpins"
    assert again.text == "miles"
    assert again.updated_at == clock.now
    assert await created_at(provider, first.id) == first_written
    listed = await provider.list(scopes=["actor:ada"], ctx=ctx())
    assert [(r.id, r.text, r.pinned) for r in listed] == [(first.id, "miles", True)]


async def test_a_rewrite_replaces_the_origin(provider: Provider) -> None:
    await provider.write(key="units", text="km", scope="actor:ada", origin=agent_origin(), ctx=ctx())
    mine = MemoryOrigin(author="human", actor_ref="ada")

    again = await provider.write(key="units", text="miles", scope="actor:ada", origin=mine, ctx=ctx())

    assert again.origin == mine


async def test_the_same_key_at_two_scopes_is_two_records(provider: Provider) -> None:
    own = await provider.write(key="units", text="miles", scope="actor:ada", origin=agent_origin(), ctx=ctx())
    wide = await provider.write(key="units", text="km", scope="global", origin=ADMIN, ctx=ctx())

    assert own.id != wide.id
    listed = await provider.list(scopes=["actor:ada", "global"], ctx=ctx())
    assert sorted((r.scope, r.text) for r in listed) == [("actor:ada", "miles"), ("global", "km")]


async def test_a_written_record_carries_a_timezone_aware_time(provider: Provider) -> None:
    record = await provider.write(key="units", text="km", scope="actor:ada", origin=agent_origin(), ctx=ctx())
    listed = await provider.list(scopes=["actor:ada"], ctx=ctx())

    for stamp in (record.updated_at, listed[0].updated_at):
        assert stamp.utcoffset() is not None
        assert stamp.astimezone(UTC) == stamp


@pytest.mark.parametrize("scope", ["tenant:berlin", "global", "actor:bea"])
async def test_an_agent_write_above_its_own_scope_is_refused(provider: Provider, scope: str) -> None:
    with pytest.raises(WriteRefusedError):
        await provider.write(key="units", text="km", scope=scope, origin=agent_origin(), ctx=ctx())

    assert await provider.list(scopes=[scope], ctx=ctx()) == ()


async def test_a_person_may_write_at_a_wider_scope(provider: Provider) -> None:
    record = await provider.write(key="units", text="km", scope="tenant:berlin", origin=ADMIN, ctx=ctx())

    assert record.scope == "tenant:berlin"
    assert record.origin.author == "human"


async def test_forgetting_your_own_record_deletes_it(provider: Provider) -> None:
    record = await provider.write(key="units", text="km", scope="actor:ada", origin=agent_origin(), ctx=ctx())

    assert await provider.forget(id=record.id, ctx=ctx())
    assert await provider.list(scopes=["actor:ada"], ctx=ctx()) == ()
    assert not await provider.forget(id=record.id, ctx=ctx()), "a second forget finds nothing"


async def test_forgetting_a_record_at_a_wider_scope_answers_false_and_keeps_it(provider: Provider) -> None:
    record = await provider.write(key="units", text="km", scope="tenant:berlin", origin=ADMIN, ctx=ctx())

    assert not await provider.forget(id=record.id, ctx=ctx())
    assert [r.id for r in await provider.list(scopes=["tenant:berlin"], ctx=ctx())] == [record.id]


async def test_forgetting_another_persons_record_answers_false_and_keeps_it(provider: Provider) -> None:
    theirs = await provider.write(key="units", text="km", scope="actor:bea", origin=agent_origin(BEA), ctx=ctx(BEA))

    assert not await provider.forget(id=theirs.id, ctx=ctx(ADA))
    assert [r.id for r in await provider.list(scopes=["actor:bea"], ctx=ctx(BEA))] == [theirs.id]


async def test_forgetting_an_unknown_id_answers_false(provider: Provider) -> None:
    assert not await provider.forget(id="mem_does_not_exist", ctx=ctx())


async def test_pinning_marks_a_record_always_on_and_unpinning_clears_it(provider: Provider) -> None:
    await seed(provider, [make_record("manifest", "print a manifest", "tenant:berlin", id="mem_pin")])

    assert await provider.pin("mem_pin", True)
    assert [r.pinned for r in await provider.list(scopes=["tenant:berlin"], ctx=ctx())] == [True]
    assert await provider.pin("mem_pin", False)
    assert [r.pinned for r in await provider.list(scopes=["tenant:berlin"], ctx=ctx())] == [False]


async def test_pinning_an_unknown_id_answers_false(provider: Provider) -> None:
    assert not await provider.pin("mem_does_not_exist", True)


async def test_pinning_leaves_the_text_and_time_alone(provider: Provider) -> None:
    seeded = make_record("manifest", "print a manifest", "tenant:berlin", id="mem_pin")
    await seed(provider, [seeded])

    await provider.pin("mem_pin", True)

    (record,) = await provider.list(scopes=["tenant:berlin"], ctx=ctx())
    assert (record.text, record.updated_at, record.origin) == (seeded.text, seeded.updated_at, seeded.origin)
