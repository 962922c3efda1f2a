"""SQLite's full-text index stays a few segments deep however many writes it takes, without growing
levels, and merging it changes no search answer (migration 0003, `store.persistence.search_index`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from store import MemoryOrigin, MemoryRecord, ScopeContext
from store.domain.types import Actor
from store.persistence import SqlMemoryProvider, open_engine, upgrade
from store.persistence.search_index import IndexShape, index_shape
from tests.builders import T0

WORDS = ["invoice", "report", "depot", "route", "driver", "shift", "metric", "budget", "forecast", "pallet"]
PEOPLE = [Actor(f"p{n}", f"t{n % 3}") for n in range(12)]


def records(count: int, *, start: int = 0) -> list[MemoryRecord]:
    """`count` memories spread over 12 people, 3 organisations and global, each text nine of the words."""
    scopes = ["global", *(f"tenant:t{n}" for n in range(3)), *(f"actor:{p.id}" for p in PEOPLE)]
    return [
        MemoryRecord(
            id=f"mem_{n}",
            key=f"{WORDS[n % 10]}-{n}",
            text=" ".join(WORDS[(n * 7 + k * 3) % 10] for k in range(9)) + f" w{n}x",
            scope=scopes[n % len(scopes)],
            origin=MemoryOrigin("human"),
            updated_at=T0,
        )
        for n in range(start, start + count)
    ]


def size_classes(shape: IndexShape) -> int:
    """How many segments a leveled index of this size holds at most: one per power of two of its
    pages, and the two inputs of a merge in progress."""
    return shape.pages.bit_length() + 2


async def shape_of(engine: AsyncEngine) -> IndexShape:
    async with engine.connect() as connection:
        return await index_shape(connection)


async def test_many_writes_keep_the_index_one_segment_per_size_class(sqlite_database_url: str) -> None:
    engine = open_engine(sqlite_database_url)
    provider = SqlMemoryProvider(engine)
    worst: list[tuple[int, IndexShape]] = []
    try:
        for batch in range(60):
            await provider.add(records(50, start=batch * 50))
            shape = await shape_of(engine)
            worst.append((shape.segments - size_classes(shape), shape))
        for n in range(200):  # rewrites: the update trigger's path
            person = PEOPLE[n % len(PEOPLE)]
            await provider.write(
                key=f"{WORDS[n % 10]}-{n}",
                text=f"rewritten {n}",
                scope=f"actor:{person.id}",
                origin=MemoryOrigin("human"),
                ctx=ScopeContext(person),
            )
        shape = await shape_of(engine)
        worst.append((shape.segments - size_classes(shape), shape))
    finally:
        await engine.dispose()

    over, fullest = max(worst, key=lambda found: found[0])
    assert over <= 0, f"{fullest.segments} segments in {fullest.pages} pages: {fullest.levels}"
    assert shape.pages > 32, "enough writes to need several size classes"


async def test_write_and_forget_churn_keeps_segments_and_levels_bounded(sqlite_database_url: str) -> None:
    """A store of constant size under churn. An `optimize` after each forget (as once shipped) adds
    two levels every time, and the record is refused at 2,000: this fails after a few cycles."""
    engine = open_engine(sqlite_database_url)
    provider = SqlMemoryProvider(engine)
    person = PEOPLE[0]
    shapes: list[IndexShape] = []
    try:
        await provider.add(records(400))
        for n in range(800):
            record = await provider.write(
                key=f"churn-{n}",
                text=f"noted while churning, cycle w{n}x",
                scope=f"actor:{person.id}",
                origin=MemoryOrigin("agent", actor_ref=person.id),
                ctx=ScopeContext(person),
            )
            assert await provider.forget(id=record.id, ctx=ScopeContext(person))
            if n % 20 == 0:
                shapes.append(await shape_of(engine))
        async with engine.connect() as connection:
            await connection.execute(text("INSERT INTO memory_fts (memory_fts) VALUES ('integrity-check')"))
    finally:
        await engine.dispose()

    assert max(shape.level_count for shape in shapes) <= 16, [shape.level_count for shape in shapes]
    assert all(shape.segments <= size_classes(shape) for shape in shapes), [shape.levels for shape in shapes]


QUERIES = ["invoice report", "pallet pallet depot", "forecast w17x budget", "driver", "nothing matches this"]


Answers = dict[tuple[str, str, int], list[str]]


async def answers(provider: SqlMemoryProvider, limits: Sequence[int] = (3, 20)) -> Answers:
    """Every person's search for every query, as the ids in the order returned."""
    found: Answers = {}
    for person in PEOPLE:
        scopes = [f"actor:{person.id}", f"tenant:{person.tenant_ref}", "global"]
        for query in QUERIES:
            for limit in limits:
                hits = await provider.search(scopes=scopes, query=query, limit=limit, ctx=ScopeContext(person))
                found[person.id, query, limit] = [r.id for r in hits]
    return found


async def test_merging_the_index_changes_no_search_answer(sqlite_database_url: str) -> None:
    engine = open_engine(sqlite_database_url)
    provider = SqlMemoryProvider(engine)
    try:
        for batch in range(12):
            await provider.add(records(50, start=batch * 50))
        for n in range(0, 600, 7):
            await provider.retire(f"mem_{n}")
        before, shape_before = await answers(provider), await shape_of(engine)
        async with engine.begin() as connection:  # one full merge: everything into one segment
            await connection.execute(text("INSERT INTO memory_fts (memory_fts) VALUES ('optimize')"))
        after, shape_after = await answers(provider), await shape_of(engine)
    finally:
        await engine.dispose()

    assert shape_before.segments > 1
    assert shape_after.segments == 1
    assert after == before
    assert all(hits for (_, query, _), hits in before.items() if query != QUERIES[-1]), "the queries find something"
    assert not {f"mem_{n}" for n in range(0, 600, 7)} & {id for hits in before.values() for id in hits}


async def test_the_merging_index_answers_as_the_unmerged_one_did(sqlite_database_url: str, tmp_path: Path) -> None:
    """The same writes and deletes in a database at revision 0002 (FTS5's default merging) and at head."""
    plain_url = f"sqlite+aiosqlite:///{tmp_path / 'plain.sqlite3'}"
    await upgrade(plain_url, "0002")
    engines = [open_engine(sqlite_database_url), open_engine(plain_url)]
    try:
        providers = [SqlMemoryProvider(engine) for engine in engines]
        for provider in providers:
            for batch in range(12):
                await provider.add(records(50, start=batch * 50))
            for n in range(0, 600, 11):
                await provider.retire(f"mem_{n}")
        merged, plain = [await answers(provider) for provider in providers]
        shapes = [await shape_of(engine) for engine in engines]
    finally:
        for engine in engines:
            await engine.dispose()

    assert merged == plain
    assert shapes[0].segments < shapes[1].segments, [shape.levels for shape in shapes]


async def test_one_transaction_of_many_rows_builds_the_index_one_transaction_per_row_does(
    sqlite_database_url: str, tmp_path: Path
) -> None:
    """FTS5 writes a segment per statement, not per transaction, and each row's trigger merges: so a
    bulk load in one transaction (an import, `add`, the storage benchmark's loader) leaves the index
    a store written one `remember` at a time would have."""
    per_row_url = f"sqlite+aiosqlite:///{tmp_path / 'per_row.sqlite3'}"
    await upgrade(per_row_url)
    engines = [open_engine(sqlite_database_url), open_engine(per_row_url)]
    try:
        bulk, per_row = (SqlMemoryProvider(engine) for engine in engines)
        written = records(1_000)
        await bulk.add(written)
        for record in written:
            await per_row.write(
                key=record.key, text=record.text, scope=record.scope, origin=record.origin, ctx=ScopeContext(PEOPLE[0])
            )
        shapes = [await shape_of(engine) for engine in engines]
    finally:
        for engine in engines:
            await engine.dispose()

    assert shapes[0].levels == shapes[1].levels
    assert shapes[0].segments > 1
