"""The contract of search: the design's three clauses, on the reference provider and both databases.

1. filter to the scopes before ranking; 2. rank keys and keep the best `limit`; 3. return every
record of a returned key, plus every record of a key pinned at the scopes.
"""

from __future__ import annotations

from sqlalchemy import text

from store.domain.scopes import GLOBAL_SCOPE
from store.domain.types import MemoryOrigin
from store.persistence.provider import SqlMemoryProvider
from tests.integration.builders import (
    ADA,
    Provider,
    ctx,
    keys_in_order,
    make_record,
    scope_keys,
    scopes_of,
    seed,
)

ADA_SCOPES = scopes_of(ADA)


async def _search(provider: Provider, query: str, limit: int = 20) -> list[str]:
    found = await provider.search(scopes=ADA_SCOPES, query=query, limit=limit, ctx=ctx())
    return keys_in_order(found)


async def test_another_tenants_nearest_neighbour_is_never_returned(provider: Provider) -> None:
    await seed(
        provider,
        [
            make_record("pallet-labels", "pallet labels start with the customer number", "tenant:hamburg"),
            make_record("label-printer", "how we label a pallet: the depot code first", "actor:bea"),
            make_record("units", "report distances in kilometres", GLOBAL_SCOPE),
            make_record("tone", "short answers please", "actor:ada"),
        ],
    )

    found = await provider.search(scopes=ADA_SCOPES, query="how do we label a pallet", limit=5, ctx=ctx())

    assert found == () or all(r.scope in ADA_SCOPES for r in found)
    assert list(found) == []


async def test_other_scopes_never_take_a_place_in_the_limit(provider: Provider) -> None:
    await seed(
        provider,
        [
            *[make_record(f"pallet-{n}", "pallet pallet pallet labels", "tenant:hamburg") for n in range(5)],
            make_record("labels", "our pallet labels carry the depot code", "tenant:berlin"),
        ],
    )

    assert await _search(provider, "pallet labels", limit=1) == ["labels"]


async def test_both_halves_of_a_conflicting_key_come_back(provider: Provider) -> None:
    await seed(
        provider,
        [
            make_record("fiscal-year", "they report on the calendar year", "actor:ada", author="agent"),
            make_record("fiscal-year", "the fiscal year starts in October", GLOBAL_SCOPE),
            make_record("units", "report distances in kilometres", GLOBAL_SCOPE),
        ],
    )

    found = await provider.search(scopes=ADA_SCOPES, query="calendar", limit=1, ctx=ctx())

    assert scope_keys(found) == {("actor:ada", "fiscal-year"), ("global", "fiscal-year")}
    assert [r.scope for r in found] == ["actor:ada", "global"], "narrowest first within a key"


async def test_a_pinned_record_at_a_wider_scope_is_always_returned(provider: Provider) -> None:
    await seed(
        provider,
        [
            make_record("manifest-required", "never dispatch without printed manifests", "tenant:berlin", pinned=True),
            make_record("pallet-labels", "pallet labels carry the depot code first", "tenant:berlin"),
            make_record("units", "report distances in kilometres", GLOBAL_SCOPE),
        ],
    )

    assert await _search(provider, "how do we label a pallet", limit=1) == ["pallet-labels", "manifest-required"]
    assert await _search(provider, "weather tomorrow", limit=5) == ["manifest-required"]


async def test_a_personal_override_of_a_pinned_key_rides_along(provider: Provider) -> None:
    await seed(
        provider,
        [
            make_record("fiscal-year", "the fiscal year starts in October", GLOBAL_SCOPE, pinned=True),
            make_record("fiscal-year", "they report on the calendar year", "actor:ada", author="agent"),
            make_record("units", "report distances in kilometres", GLOBAL_SCOPE),
        ],
    )

    found = await provider.search(scopes=ADA_SCOPES, query="distances", limit=1, ctx=ctx())

    assert keys_in_order(found) == ["units", "fiscal-year"]
    assert scope_keys(found) == {("global", "units"), ("actor:ada", "fiscal-year"), ("global", "fiscal-year")}


async def test_a_pin_at_another_scope_does_not_pull_a_key_in(provider: Provider) -> None:
    await seed(
        provider,
        [
            make_record("fiscal-year", "the fiscal year starts in April", "tenant:hamburg", pinned=True),
            make_record("fiscal-year", "they report on the calendar year", "actor:ada", author="agent"),
            make_record("units", "report distances in kilometres", GLOBAL_SCOPE),
        ],
    )

    assert await _search(provider, "distances") == ["units"]


async def test_search_keeps_the_best_limit_keys_best_first(provider: Provider) -> None:
    await seed(
        provider,
        [
            make_record("manifest-printer", "the manifest printer is in hall two", "tenant:berlin"),
            make_record("manifest-copies", "keep two manifest copies", "tenant:berlin"),
            make_record("printer-toner", "order toner for the printer monthly", GLOBAL_SCOPE),
            make_record("units", "report distances in kilometres", GLOBAL_SCOPE),
            make_record("tone", "short answers please", "actor:ada"),
            make_record("greeting", "greet them by first name", "actor:ada"),
        ],
    )

    assert await _search(provider, "manifest printer", limit=1) == ["manifest-printer"]
    top_three = await _search(provider, "manifest printer", limit=3)
    assert top_three[0] == "manifest-printer"
    assert set(top_three) == {"manifest-printer", "manifest-copies", "printer-toner"}


async def test_ties_go_to_the_narrower_scope(provider: Provider) -> None:
    await seed(
        provider,
        [
            make_record("hall", "the forklift charger", GLOBAL_SCOPE),
            make_record("dock", "the forklift charger", "actor:ada"),
            make_record("units", "report distances in kilometres", GLOBAL_SCOPE),
            make_record("tone", "short answers please", "tenant:berlin"),
        ],
    )

    assert await _search(provider, "forklift", limit=1) == ["dock"]


async def test_search_matches_the_key_and_ignores_case(provider: Provider) -> None:
    await seed(
        provider,
        [
            make_record("fiscal-year", "starts in October", GLOBAL_SCOPE),
            make_record("units", "report distances in kilometres", GLOBAL_SCOPE),
        ],
    )

    assert await _search(provider, "FISCAL?") == ["fiscal-year"]
    assert await _search(provider, "Kilometres!") == ["units"]


async def test_a_query_with_no_words_is_a_list_read_narrowest_then_newest(provider: Provider) -> None:
    await seed(
        provider,
        [
            make_record("old-global", "a", GLOBAL_SCOPE, days_ago=30),
            make_record("new-global", "b", GLOBAL_SCOPE, days_ago=1),
            make_record("tenant-fact", "c", "tenant:berlin", days_ago=40),
            make_record("mine-old", "d", "actor:ada", days_ago=20),
            make_record("mine-new", "e", "actor:ada", days_ago=2),
            make_record("theirs", "f", "tenant:hamburg", days_ago=1),
        ],
    )

    for query in ["", "   ", "?! — …", "\"'*()-:^"]:
        assert await _search(provider, query, limit=1) == [
            "mine-new",
            "mine-old",
            "tenant-fact",
            "new-global",
            "old-global",
        ]


async def test_a_limit_of_zero_returns_only_the_pinned_keys(provider: Provider) -> None:
    await seed(
        provider,
        [
            make_record("manifest-required", "print the manifest", "tenant:berlin", pinned=True),
            make_record("units", "report distances in kilometres", GLOBAL_SCOPE),
        ],
    )

    assert await _search(provider, "distances", limit=0) == ["manifest-required"]


async def test_search_with_no_scopes_returns_nothing(provider: Provider) -> None:
    await seed(provider, [make_record("units", "report distances in kilometres", GLOBAL_SCOPE, pinned=True)])

    assert list(await provider.search(scopes=[], query="distances", limit=5, ctx=ctx())) == []


async def test_a_rewritten_record_is_found_by_its_new_words_only(provider: Provider) -> None:
    await provider.write(key="depot", text="works at Spandau", scope="actor:ada", origin=ctx_origin(), ctx=ctx())
    await provider.write(key="depot", text="works at Tegel", scope="actor:ada", origin=ctx_origin(), ctx=ctx())

    assert await _search(provider, "Tegel") == ["depot"]
    assert await _search(provider, "Spandau") == []


async def test_a_forgotten_record_is_no_longer_found(provider: Provider) -> None:
    record = await provider.write(
        key="depot", text="works at Spandau", scope="actor:ada", origin=ctx_origin(), ctx=ctx()
    )
    await provider.forget(id=record.id, ctx=ctx())

    assert await _search(provider, "Spandau") == []


def ctx_origin() -> MemoryOrigin:
    return MemoryOrigin(author="agent", thread_id="thr_1", run_id="run_1", actor_ref="ada")


async def test_a_key_held_at_every_scope_does_not_crowd_out_the_next_keys(provider: Provider) -> None:
    """A key answers at most once per scope, so the best `limit × scopes` rows always hold the best
    `limit` keys: three keys come back even when the first two fill six rows between them."""
    await seed(
        provider,
        [
            *[make_record("forklift", "forklift forklift forklift", scope) for scope in ADA_SCOPES],
            *[make_record("charger", "forklift forklift charger", scope) for scope in ADA_SCOPES],
            make_record("dock", "the forklift dock is north", GLOBAL_SCOPE),
            *[
                make_record(f"note-{n}", f"a forklift note number {n} of many more words", GLOBAL_SCOPE)
                for n in range(9)
            ],
        ],
    )

    assert await _search(provider, "forklift", limit=3) == ["forklift", "charger", "dock"]


async def test_keys_that_tie_on_everything_else_come_in_code_point_order(provider: Provider) -> None:
    """The last tie-break is the key as Python orders strings, whatever the database's collation: on
    PostgreSQL the key column is given a linguistic one here (ICU's root locale, which puts "a" before
    "B" and "ä" beside "a"), as a database created with a language's locale would have."""
    if isinstance(provider, SqlMemoryProvider) and provider.engine.dialect.name == "postgresql":
        async with provider.engine.begin() as connection:
            await connection.execute(text('ALTER TABLE agent_memory ALTER COLUMN key TYPE text COLLATE "und-x-icu"'))
    keys = ["ä", "a", "B", "Z", "_x", "東京", "é", "e"]  # "_" alone is no word: its record would be shorter
    await seed(provider, [make_record(key, "pallet labels", "actor:ada", days_ago=1) for key in keys])

    assert await _search(provider, "pallet") == sorted(keys)
    assert await _search(provider, "pallet", limit=3) == sorted(keys)[:3]
    assert await _search(provider, "?!") == sorted(keys)  # no words: the list read, narrowest then newest


async def test_records_come_back_exactly_as_stored_best_key_first_then_pinned_keys_by_scope_and_code_point(
    provider: Provider,
) -> None:
    hostile = 'pallet "quoted", back\\slash \\u0041, 😀 emoji, \u00a0 no-break, ⁦isolate⁩, [1, {"a": null}]'
    stored = [
        make_record("labels", hostile, "actor:ada"),
        make_record("labels", "pallet labels at the depot", GLOBAL_SCOPE),
        make_record("pallet-height", "a pallet pallet is at most 1.8 m", "tenant:berlin"),
        *(make_record(key, "unrelated", "tenant:berlin", pinned=True) for key in ("émile", "Zulu", "apple")),
        *(make_record(key, "unrelated", GLOBAL_SCOPE, pinned=True) for key in ("😀", "Abc")),
    ]
    await seed(provider, stored)

    found = await provider.search(scopes=ADA_SCOPES, query="pallet", limit=5, ctx=ctx())

    assert [(r.key, r.scope) for r in found] == [
        ("pallet-height", "tenant:berlin"),
        ("labels", "actor:ada"),
        ("labels", GLOBAL_SCOPE),
        ("Zulu", "tenant:berlin"),
        ("apple", "tenant:berlin"),
        ("émile", "tenant:berlin"),
        ("Abc", GLOBAL_SCOPE),
        ("😀", GLOBAL_SCOPE),
    ]
    assert set(found) == set(stored), "every field exactly as stored, whatever the text holds"
