"""The contract of forgetting many at once and putting them back, on the reference provider and the SQL
provider alike."""

from __future__ import annotations

from tests.integration.builders import ADA, BEA, Provider, created_at, ctx, make_record, seed


async def test_forgetting_many_deletes_only_the_actors_own_records_and_returns_each_as_it_was(
    provider: Provider,
) -> None:
    mine = [make_record(f"own-{n}", f"fact {n}", "actor:ada", id=f"mem_own_{n}") for n in range(3)]
    wider = make_record("units", "km", "tenant:berlin", id="mem_wide")
    theirs = make_record("units", "miles", "actor:bea", id="mem_bea")
    await seed(provider, [*mine, wider, theirs])
    asked = ["mem_own_0", "mem_own_2", "mem_own_0", "mem_wide", "mem_bea", "mem_unknown"]

    gone = await provider.forget_many(ids=asked, ctx=ctx(ADA))

    assert sorted(record.id for record, _ in gone) == ["mem_own_0", "mem_own_2"]
    for record, created in gone:
        seeded = next(r for r in mine if r.id == record.id)
        assert (record.key, record.text, record.updated_at, record.origin) == (
            seeded.key,
            seeded.text,
            seeded.updated_at,
            seeded.origin,
        )
        assert created == seeded.updated_at
    left = await provider.list(scopes=["actor:ada", "tenant:berlin", "actor:bea"], ctx=ctx(ADA))
    assert sorted(r.id for r in left) == ["mem_bea", "mem_own_1", "mem_wide"]


async def test_forgetting_many_of_nothing_on_file_returns_nothing(provider: Provider) -> None:
    await seed(provider, [make_record("units", "km", "actor:bea", id="mem_bea")])

    assert await provider.forget_many(ids=["mem_bea", "mem_unknown"], ctx=ctx(ADA)) == []


async def test_what_was_forgotten_is_put_back_with_its_id_times_and_pin(provider: Provider) -> None:
    seeded = make_record("depot", "works at Spandau", "actor:ada", id="mem_depot", pinned=True, days_ago=30)
    await seed(provider, [seeded])
    gone = await provider.forget_many(ids=["mem_depot"], ctx=ctx(ADA))

    assert await provider.put_back(gone, ctx=ctx(ADA)) == ["mem_depot"]

    (back,) = await provider.list(scopes=["actor:ada"], ctx=ctx(ADA))
    assert back == seeded
    assert await created_at(provider, "mem_depot") == seeded.updated_at


async def test_putting_back_never_overwrites_a_key_written_since_nor_reaches_another_scope(
    provider: Provider,
) -> None:
    depot = make_record("depot", "works at Spandau", "actor:ada", id="mem_depot")
    units = make_record("units", "miles", "actor:ada", id="mem_units")
    await seed(provider, [depot, units])
    gone = await provider.forget_many(ids=["mem_depot", "mem_units"], ctx=ctx(ADA))
    newer = make_record("depot", "works at Tegel", "actor:ada", id="mem_newer", days_ago=1)
    await seed(provider, [newer])
    foreign = make_record("notes", "from elsewhere", "actor:bea", id="mem_foreign")

    back = await provider.put_back([*gone, (foreign, foreign.updated_at)], ctx=ctx(ADA))

    assert back == ["mem_units"]
    listed = await provider.list(scopes=["actor:ada", "actor:bea"], ctx=ctx(ADA))
    assert sorted((r.id, r.text) for r in listed) == [("mem_newer", "works at Tegel"), ("mem_units", "miles")]
    assert await provider.list(scopes=["actor:bea"], ctx=ctx(BEA)) == ()
