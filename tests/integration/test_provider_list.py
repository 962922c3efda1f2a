"""The contract of list: exactly the records at the scopes asked for, never another person's."""

from __future__ import annotations

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine

from store.domain.scopes import GLOBAL_SCOPE
from store.persistence.provider import SqlMemoryProvider
from tests.integration.builders import ADA, BEA, Provider, ctx, make_record, scope_keys, scopes_of, seed


async def _two_tenants(provider: Provider) -> None:
    await seed(
        provider,
        [
            make_record("units", "kilometres", GLOBAL_SCOPE),
            make_record("pallet-labels", "depot code first", "tenant:berlin"),
            make_record("pallet-labels", "customer number first", "tenant:hamburg"),
            make_record("tone", "short answers", "actor:ada", author="agent"),
            make_record("tone", "long answers", "actor:bea", author="agent"),
        ],
    )


async def test_list_returns_every_record_at_the_scopes(provider: Provider) -> None:
    await _two_tenants(provider)

    listed = await provider.list(scopes=scopes_of(ADA), ctx=ctx(ADA))

    assert scope_keys(listed) == {
        ("global", "units"),
        ("tenant:berlin", "pallet-labels"),
        ("actor:ada", "tone"),
    }


async def test_list_never_selects_another_tenants_or_persons_record(provider: Provider) -> None:
    await _two_tenants(provider)

    listed = await provider.list(scopes=scopes_of(BEA), ctx=ctx(BEA))

    assert {r.scope for r in listed} <= set(scopes_of(BEA))
    assert [r.text for r in listed if r.key == "pallet-labels"] == ["customer number first"]


async def test_list_with_no_scopes_returns_nothing(provider: Provider) -> None:
    await _two_tenants(provider)

    assert list(await provider.list(scopes=[], ctx=ctx())) == []


async def test_list_returns_records_exactly_as_stored(provider: Provider) -> None:
    seeded = make_record("tone", "short answers", "actor:ada", author="agent", pinned=True, days_ago=3.5)
    await seed(provider, [seeded])

    assert list(await provider.list(scopes=["actor:ada"], ctx=ctx())) == [seeded]


async def test_reading_no_scopes_asks_the_database_nothing(engine: AsyncEngine) -> None:
    provider = SqlMemoryProvider(engine)
    await seed(provider, [make_record("units", "kilometres", GLOBAL_SCOPE, pinned=True)])
    checkouts: list[object] = []  # every read takes a pooled connection, SQLAlchemy's way or borrowed
    event.listen(engine.sync_engine, "checkout", lambda *args: checkouts.append(args[0]))
    await provider.list(scopes=["actor:ada"], ctx=ctx())
    assert len(checkouts) == 1  # the probe sees a read

    assert list(await provider.list(scopes=[], ctx=ctx())) == []
    assert list(await provider.search(scopes=[], query="kilometres", limit=5, ctx=ctx())) == []
    assert list((await provider.shortlist(scopes=[], limit=5, ctx=ctx())).records) == []
    assert len(checkouts) == 1
