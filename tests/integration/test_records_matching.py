"""All that match a view, and one memory with its key's records, asked of the database: the same
answers as the rules give over every record on file, on SQLite and PostgreSQL alike, without reading
the rest."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from store import resolve_digest
from store.domain.forgetting import Choice, matching_reach
from store.persistence import SqlMemoryProvider
from store.persistence.registry import Origin
from tests.integration.test_records_page import (
    ADA,
    QUERIES,
    QUERY_IDS,
    RECORDS,
    SCOPES,
    record,
    resolving_origins,
    store_records,
)
from web.me.listing import MemoryQuery, records_ask, select_entries
from web.me.on_file import OnFile


@pytest.fixture
async def stored(engine: AsyncEngine) -> SqlMemoryProvider:
    return await store_records(engine)


def by_rules(query: MemoryQuery, resolving: frozenset[Origin]) -> Choice:
    """All that match over every record on file: the visible groups' matches that apply go or stay, and
    the ones a narrower record overrides stay."""
    everything = OnFile(SCOPES, tuple(RECORDS))
    selection = select_entries(everything, ADA, query, resolving=resolving)
    matching = [r for group in selection.visible for r in group.matching]
    applying = [e for r in matching if (e := everything.entry_of(r)).record.id == r.id]
    return matching_reach(ADA, applying, shared=len(matching) - len(applying))


@pytest.mark.parametrize("params", QUERIES, ids=QUERY_IDS)
async def test_all_that_match_is_what_the_rules_choose_over_everything(
    stored: SqlMemoryProvider, engine: AsyncEngine, params: dict[str, str]
) -> None:
    query = MemoryQuery.from_params(params)
    expected = by_rules(query, await resolving_origins(engine))

    _, ask = records_ask(SCOPES, ADA, query)
    matching = await stored.records_matching(ask)
    contested = OnFile(SCOPES, matching.contested)
    choice = matching_reach(ADA, [contested.entry_of(r) for r in matching.own], shared=matching.shared)

    assert [e.record.id for e in choice.goes] == [e.record.id for e in expected.goes], "the same, in the list's order"
    assert [len(e.overrides) for e in choice.goes] == [len(e.overrides) for e in expected.goes]
    assert choice.stays == expected.stays


@pytest.mark.parametrize(
    ("params", "own", "shared"),
    [
        # her units apply; the organisation's and everyone's values of it match the word, are beaten, and stay
        ({"q": "kilom"}, ["mem_001"], 1),
        ({"q": "metric"}, ["mem_001"], 1),
        ({"q": "formal"}, [], 1),
        ({"author": "administrator", "group": "organisation"}, [], 2),
        ({"q": "units", "group": "everyone"}, [], 1),
    ],
)
async def test_a_wider_value_her_own_overrides_is_not_hers_and_is_counted_as_staying(
    stored: SqlMemoryProvider, params: dict[str, str], own: list[str], shared: int
) -> None:
    _, ask = records_ask(SCOPES, ADA, MemoryQuery.from_params(params))

    matching = await stored.records_matching(ask)

    assert [r.id for r in matching.own] == own
    assert matching.shared == shared


async def test_nobody_with_no_scopes_matches_anything(stored: SqlMemoryProvider) -> None:
    _, ask = records_ask((), ADA, MemoryQuery())

    matching = await stored.records_matching(ask)

    assert (matching.own, matching.shared, matching.contested) == ((), 0, ())


@pytest.mark.parametrize(
    ("ids", "scopes", "found"),
    [
        (["mem_001"], SCOPES, ["mem_001", "mem_002", "mem_003"]),
        (["mem_003"], SCOPES, ["mem_001", "mem_002", "mem_003"]),
        (["mem_007"], SCOPES, ["mem_007"]),
        (["mem_007", "mem_010", "mem_010"], SCOPES, ["mem_007", "mem_010"]),
        (["mem_001"], ("actor:ada",), ["mem_001"]),
        (["mem_007"], ("actor:bob", "tenant:hamburg"), []),
        (["nothing-like-this"], SCOPES, []),
        ([], SCOPES, []),
        (["mem_001"], (), []),
    ],
)
async def test_one_memory_is_read_with_its_keys_records_at_the_scopes_given_and_nothing_else(
    stored: SqlMemoryProvider, ids: list[str], scopes: tuple[str, ...], found: list[str]
) -> None:
    assert sorted(r.id for r in await stored.records_of_ids(scopes, ids)) == found


async def test_ids_beyond_one_statement_are_all_read(stored: SqlMemoryProvider) -> None:
    ids = [f"mem_{n:03d}" for n in range(11, 131)] + [f"unknown-{n}" for n in range(1_000)]

    found = await stored.records_of_ids(SCOPES, ids)

    assert sorted(r.id for r in found) == [f"mem_{n:03d}" for n in range(11, 131)]


async def test_an_entry_read_by_id_resolves_as_over_everything(stored: SqlMemoryProvider) -> None:
    everything = {e.record.id: e for e in resolve_digest(RECORDS, scopes=SCOPES, max_memories=None).entries}

    few = await stored.records_of_ids(SCOPES, ["mem_001", "mem_007"])

    assert {e.record.id: e for e in resolve_digest(few, scopes=SCOPES, max_memories=None).entries} == {
        id: everything[id] for id in ("mem_001", "mem_007")
    }


async def test_records_of_keys_are_read_expired_ones_included(stored: SqlMemoryProvider, engine: AsyncEngine) -> None:
    await stored.add([record(200, "parking", "bay 4")])
    async with engine.begin() as connection:
        expired = text("UPDATE agent_memory SET expires_at = :at WHERE id = 'mem_200'")
        await connection.execute(expired, {"at": datetime.now(UTC) - timedelta(days=1)})
    keys = ["parking", "units", "nothing-like-this"] + [f"unknown-{n}" for n in range(600)]

    held = await stored.records_holding(["actor:ada"], keys)

    assert sorted(r.id for r in held) == ["mem_001", "mem_200"]
    assert await stored.records_holding([], keys) == []
