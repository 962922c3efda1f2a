"""The personal page asked of the database answers as the rules answer over every record on file: for
each search, filter, order and page, the same groups, counts, page and entries, on SQLite and
PostgreSQL alike."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from store import Actor, MemoryOrigin, MemoryRecord
from store.persistence import SqlMemoryProvider
from store.persistence.registry import ConversationRegistry, Origin
from web.me.listing import PAGE_SIZE, MemoryQuery, Selection, records_ask, select_entries, selection_of
from web.me.on_file import OnFile

ADA = Actor(id="ada", tenant_ref="berlin")
SCOPES = ("actor:ada", "tenant:berlin", "global")
START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def record(n: int, key: str, text: str, scope: str = "actor:ada", **origin: str | None) -> MemoryRecord:
    given = origin or {"thread_id": "thr_here", "run_id": "run_here"}
    made = MemoryOrigin(**{"author": "agent", **given})  # type: ignore[arg-type]
    # Several records share one instant: the order's ties are part of what is compared.
    return MemoryRecord(f"mem_{n:03d}", key, text, scope, made, START + timedelta(hours=n // 3))


RECORDS = [
    record(1, "units", "miles, never kilometres"),
    record(2, "units", "kilometres", "tenant:berlin", author="human", actor_ref="lena"),
    record(3, "units", "metric units everywhere", "global", author="human"),
    record(4, "Ćevapi", "they report on Thursday", thread_id="thr_gone", run_id="run_x"),
    record(5, "depot", "works at Spandau; boxes go to Tegel", thread_id="thr_here", run_id="run_dropped"),
    record(6, "fiscal_year", "100% from April", author="human", actor_ref="ada"),
    record(7, "tone", "formal", "tenant:berlin", author="human", actor_ref="lena"),
    record(8, "Straße", "Unter den Linden", author="human"),
    record(9, "miles", "the mileage is logged", author="human", actor_ref="bob"),
    record(10, "notes", "no conversation at all", author="human", actor_ref="ada"),
    *(record(n, f"route-{n:03d}", f"route case {n} shipped by van", thread_id="thr_here") for n in range(11, 131)),
    record(131, "ℍ𝕠𝕥𝕖𝕝", "𝐁𝐨𝐥𝐝 letters have no case of their own", author="human"),
    record(132, "Søren", "the depot in Łódź opens at six", author="human"),
]

QUERIES = [
    {},
    {"q": "kilom"},
    {"q": "KILOMÈTRES"},
    {"q": "report Thursdays"},
    {"q": "cevapi"},
    {"q": "hotel"},
    {"q": "BOLD"},
    {"q": "𝐁𝐨𝐥𝐝 ℍ"},
    {"q": "strasse"},
    {"q": "lodz soren"},
    {"q": "ŁÓDŹ"},
    {"q": "boxes"},
    {"q": "miles"},
    {"q": "metric"},
    {"q": "fiscal_y"},
    {"q": "100%"},
    {"q": "route case", "sort": "oldest"},
    {"q": "route case", "group": "you", "page": "2"},
    {"q": "route case", "group": "you", "page": "9"},
    {"group": "you", "sort": "key", "page": "3"},
    {"group": "you", "sort": "oldest", "page": "2"},
    {"group": "organisation"},
    {"group": "nobody", "page": "2"},
    {"author": "you"},
    {"author": "assistant", "q": "route 12"},
    {"author": "administrator"},
    {"origin": "present", "group": "you", "page": "2"},
    {"origin": "gone"},
    {"origin": "gone", "author": "assistant"},
    {"q": "nothing-like-this"},
    {"group": "you", "on": "2026-03-02"},
    {"group": "you", "on": "2026-03-02", "page": "3"},
    {"group": "you", "sort": "oldest", "on": "2026-03-02"},
    {"group": "you", "sort": "oldest", "on": "2026-03-02", "q": "route"},
    {"group": "you", "sort": "key", "on": "2026-03-02", "page": "2"},
    {"group": "you", "on": "2030-01-01"},
    {"on": "2026-03-02"},
]


def as_compared(selection: Selection) -> list[tuple[object, ...]]:
    """Each group's counts, and for each group the page shows, its start and entries."""
    visible = {g.slug for g in selection.visible}
    return [
        (g.slug, g.held, g.matched)
        + ((g.start, [(e.record.id, e.overridden, len(e.overrides)) for e in g.shown]) if g.slug in visible else ())
        for g in selection.groups
    ]


QUERY_IDS = ["&".join(f"{k}={v}" for k, v in p.items()) or "all" for p in QUERIES]


async def resolving_origins(engine: AsyncEngine) -> frozenset[Origin]:
    """Which of `RECORDS`' conversations still resolve in the registry `store_records` filled."""
    return await ConversationRegistry(engine).origins_resolve(
        {Origin(r.origin.thread_id, r.origin.run_id) for r in RECORDS}
    )


async def store_records(engine: AsyncEngine) -> SqlMemoryProvider:
    """`RECORDS` stored, with their conversations: one still there, a run of it dropped, one deleted."""
    provider = SqlMemoryProvider(engine)
    await provider.add(RECORDS)
    registry = ConversationRegistry(engine)
    for thread, run in (("thr_here", "run_here"), ("thr_here", "run_dropped"), ("thr_gone", "run_x")):
        await registry.register_run(run, thread, "ada")
    await registry.drop_runs("thr_here", ["run_dropped"])
    await registry.delete_thread("thr_gone")
    return provider


@pytest.fixture
async def stored(engine: AsyncEngine) -> SqlMemoryProvider:
    return await store_records(engine)


@pytest.mark.parametrize("params", QUERIES, ids=QUERY_IDS)
async def test_the_database_pages_as_the_rules_do(
    stored: SqlMemoryProvider, engine: AsyncEngine, params: dict[str, str]
) -> None:
    query = MemoryQuery.from_params(params)
    resolving = await resolving_origins(engine)
    by_rules = select_entries(OnFile(SCOPES, tuple(RECORDS)), ADA, query, resolving=resolving)

    understood, ask = records_ask(SCOPES, ADA, query)
    by_database = selection_of(await stored.records_page(ask), ask, ADA, understood)

    assert understood == by_rules.query
    assert by_database.total == by_rules.total
    assert by_database.words == by_rules.words
    assert as_compared(by_database) == as_compared(by_rules)


async def test_a_page_is_at_most_a_page(stored: SqlMemoryProvider) -> None:
    _, ask = records_ask(SCOPES, ADA, MemoryQuery.from_params({"group": "you"}))

    page = await stored.records_page(ask)

    assert len(page.shown["actor:ada"]) == PAGE_SIZE
    assert page.held == {"actor:ada": 129, "tenant:berlin": 2, "global": 1}
    assert sorted(r.id for r in page.contested) == ["mem_001", "mem_002", "mem_003"]
