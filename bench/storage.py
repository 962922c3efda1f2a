"""The storage benchmark: SQLite and PostgreSQL side by side, each figure beside its floor.

    python -m bench.storage [--quick] [--backends sqlite,postgres] [--stores-only]

Rows measured, per backend (median wall time of one call, in milliseconds):

- the per-turn digest (`store.memory.memory_for_turn`: resolve scopes → read → precedence → selection
  → block) over 20 and 2,000 applicable memories (no search text: the shortlist, see
  `store.persistence.shortlist`), and over 20,000 ranked by the turn's words with a block of 20 (a
  provider without an embedder: `bench.hybrid` sets the ranking by meaning beside it). Beside each, the
  floor: the statements the digest runs, run raw on the driver (aiosqlite in one trip to its thread,
  as the provider runs them; asyncpg), no SQLAlchemy, no records, no rules — on the connection the
  provider's reads use (`RawReader`). Target: digest ≤ 1.5× its floor. The listed digests are also
  set beside the raw read of every applicable row, which is what a turn without the shortlist reads;
  and, as a yardstick for the target, the floor's read followed by nothing but the Python work no
  storage can take away (a record per row, the rules, the block).
- the same actor's digest (list and search) in a store of 1,000,000 memories over 10,000 actors
  against a store of 10,000 memories. Target: ≤ 1.2× — cost grows with what applies, not with what
  is stored.

PostgreSQL runs on a throwaway local server (fsync off; reads are what is measured). Where its binaries
are missing, only SQLite runs. `--quick` shrinks the sizes for a smoke run; its figures are not the
ones to quote.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from bench.storage_data import MemorySpec, load, query_text
from store import (
    Actor,
    MemoryConfig,
    MemoryDigest,
    ScopeContext,
    Shortlist,
    build_memory_block,
    memory_for_turn,
    resolve_digest,
    resolve_shortlist,
)
from store.domain.recall import RANKING_WINDOW, content_words
from store.persistence import is_sqlite, open_engine, upgrade
from store.persistence.driver import borrowed_reading, kept_readers
from store.persistence.memories import (
    MEMORY_COLUMNS,
    memory,
    records_from_rows,
    records_from_sqlite_rows,
    up_to_read_sql,
)
from store.persistence.provider import SqlMemoryProvider
from store.persistence.recall import candidates_statement, of_keys_statement
from store.persistence.search import keys_statement, query_words
from store.persistence.search_index import index_totals, postings_of
from store.persistence.shortlist import WHOLE_LIST_AT_MOST, shortlist_statement
from store.persistence.terms import query_terms
from tests.postgres_server import PostgresServer, missing_binaries


@dataclass(frozen=True, slots=True)
class Sizes:
    digest_small: int = 20
    digest_large: int = 2_000
    search_applicable: int = 20_000
    store_small: int = 10_000
    store_large: int = 1_000_000
    per_actor: int = 100


BACKENDS = ("sqlite", "postgres")
QUICK = Sizes(store_large=100_000, search_applicable=5_000)


@dataclass(frozen=True, slots=True)
class Figure:
    backend: str
    case: str
    measured: float
    floor: float
    target: float | None
    """None: a figure for reference, beside a read of other rows than the ones measured."""
    label: str = "raw read"
    note: str = ""
    """Printed under the table: what a reader needs to judge the figure."""


async def paired_medians(
    first: Callable[[], Awaitable[Any]], second: Callable[[], Awaitable[Any]], *, budget: float = 3.0, least: int = 21
) -> tuple[float, float]:
    """Median milliseconds of each call, timed in alternation so that drift (another process, a cache
    warming) lands on both sides of the ratio alike."""
    for _ in range(3):
        await first()
        await second()
    times: tuple[list[float], list[float]] = ([], [])
    started = time.perf_counter()
    while len(times[0]) < least or (time.perf_counter() - started < budget and len(times[0]) < 500):
        for call, kept in ((first, times[0]), (second, times[1])):
            begin = time.perf_counter()
            await call()
            kept.append(time.perf_counter() - begin)
    return statistics.median(times[0]) * 1000, statistics.median(times[1]) * 1000


class RawReader:
    """The floor: the driver alone, reading the same rows the provider reads — on the very connection
    the provider's reads then use (the one its engine keeps between reads), so that both sides of a
    ratio share one aiosqlite thread, or one PostgreSQL backend. On a connection of its own, the
    floor's SQLite trip moved between 0.09 and 0.19 ms within one run, as the scheduler placed its
    thread beside the event loop's or not, and the ratio with it (1.5× to 3.8× for one digest)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._sqlite: aiosqlite.Connection | None = None
        self._pg: Any = None

    async def __aenter__(self) -> RawReader:
        async with borrowed_reading(self._engine) as connection:
            driver = (await connection.get_raw_connection()).driver_connection
        if kept_readers(self._engine) != 1:
            msg = "the engine keeps no read connection: the floor would not share the provider's"
            raise RuntimeError(msg)
        if is_sqlite(self._engine):
            self._sqlite = driver
        else:
            self._pg = driver
        return self

    async def __aexit__(self, *_exc: object) -> None:
        self._sqlite = self._pg = None

    async def fetch(self, sql: str, params: list[Any], *, custom_plan: bool = False) -> list[Any]:
        """The rows of `sql` (on aiosqlite in one trip to its thread). `custom_plan`: on PostgreSQL,
        planned for these parameters, as the provider plans its search (SET and RESET around it, the
        same round trips)."""
        if self._sqlite is not None:
            return list(await self._sqlite.execute_fetchall(sql, params))
        if not custom_plan:
            return list(await self._pg.fetch(sql, *params))
        await self._pg.execute("SET plan_cache_mode = force_custom_plan")
        try:
            return list(await self._pg.fetch(sql, *params))
        finally:
            await self._pg.execute("RESET plan_cache_mode")


def compiled(statement: Any, dialect: Any) -> tuple[str, list[Any]]:
    done = statement.compile(dialect=dialect, compile_kwargs={"render_postcompile": True})
    return done.string, [done.params[name] for name in done.positiontup]


async def digest_figures(backend: str, url: str, sizes: Sizes) -> list[Figure]:
    people = {
        "small": (Actor("small", "t_small"), sizes.digest_small),
        "large": (Actor("large", "t_large"), sizes.digest_large),
        "search": (Actor("search", "t_search"), sizes.search_applicable),
    }
    specs = []
    for actor, count in people.values():
        specs += [MemorySpec(f"actor:{actor.id}", count // 2, f"{actor.id}-own")]
        specs += [MemorySpec(f"tenant:{actor.tenant_ref}", count - count // 2, f"{actor.id}-org")]
    await load(url, specs)
    engine = open_engine(url)
    figures = []
    try:
        provider = SqlMemoryProvider(engine)
        config = MemoryConfig(provider=provider, max_memories=20)
        async with RawReader(engine) as raw:
            for name, case in [
                ("small", f"digest, {sizes.digest_small:,} applicable"),
                ("large", f"digest, {sizes.digest_large:,} applicable"),
            ]:
                actor, count = people[name]
                ctx = ScopeContext(actor=actor)
                turn = await memory_for_turn(config, ctx, run_id=None)
                if turn.digest.offered + turn.digest.omitted != count:
                    msg = f"{case}: expected {count} applicable memories, the digest saw another number"
                    raise RuntimeError(msg)
                floor = _listed_floor(raw, engine.dialect, turn.digest.scopes)
                measured, floored = await paired_medians(partial(memory_for_turn, config, ctx, run_id=None), floor)
                figures.append(Figure(backend, case, measured, floored, 1.5))
                read, floored = await paired_medians(
                    partial(provider.shortlist, scopes=turn.digest.scopes, limit=20, ctx=ctx), floor
                )
                figures.append(Figure(backend, f"  of which provider.shortlist, {count:,}", read, floored, 1.5))
                rules = _rules_on_raw_rows(floor, engine.dialect, turn.digest.scopes, writable=config.writable)
                if await rules() != turn.block:
                    msg = f"{case}: the rules over the raw rows rendered another block than the digest"
                    raise RuntimeError(msg)
                alone, floored = await paired_medians(rules, floor)
                figures.append(Figure(backend, f"  raw read + records, rules, block, {count:,}", alone, floored, 1.5))
                sql, params = compiled(_list_statement(turn.digest.scopes), engine.dialect)
                measured, every_row = await paired_medians(
                    partial(memory_for_turn, config, ctx, run_id=None), partial(raw.fetch, sql, params)
                )
                # the same rows as the digest's only while it reads them all; past that, for reference
                same_rows = 1.5 if count <= WHOLE_LIST_AT_MOST else None
                figures.append(Figure(backend, f"  {case}", measured, every_row, same_rows, "every row raw"))
            actor, count = people["search"]
            ctx = ScopeContext(actor=actor)
            query = query_text(1)
            turn = await memory_for_turn(config, ctx, run_id=None, query=query)
            floor = _recall_floor(raw, engine.dialect, turn.digest.scopes, query, turn.digest)
            measured, floored = await paired_medians(
                partial(memory_for_turn, config, ctx, run_id=None, query=query), floor
            )
            figures.append(Figure(backend, f"digest via search, {count:,} applicable", measured, floored, 1.5))
    finally:
        await engine.dispose()
    return figures


def _recall_floor(
    raw: RawReader, dialect: Any, scopes: tuple[str, ...], query: str, digest: MemoryDigest
) -> Callable[[], Awaitable[Any]]:
    """What a turn ranked by its words costs the driver alone: the statements `recall` runs, raw —
    the read that stops past the ceiling's worth of rows, the candidates' keys and pins, the search's
    ranked keys (planned as the provider plans it), and the chosen keys' records."""
    up_to, up_to_params = up_to_read_sql(dialect, scopes, 20 * len(scopes))
    statements = [
        compiled(statement.params(bound), dialect)
        for statement, bound in (
            candidates_statement(dialect.name, scopes, None),
            keys_statement(dialect.name, scopes, content_words(query_words(query)), RANKING_WINDOW),
            of_keys_statement(dialect.name, scopes, [entry.key for entry in digest.entries]),
        )
    ]

    async def floor() -> list[Any]:
        rows = await raw.fetch(up_to, up_to_params)
        for n, (sql, params) in enumerate(statements):
            rows = await raw.fetch(sql, params, custom_plan=n == 1)
        return rows

    return floor


def _listed_floor(raw: RawReader, dialect: Any, scopes: tuple[str, ...]) -> Callable[[], Awaitable[Any]]:
    """What a listed turn's read costs the driver alone: the read of at most `WHOLE_LIST_AT_MOST`
    records, and past that the shortlist's statement — the statements the provider runs, raw."""
    up_to, up_to_params = up_to_read_sql(dialect, scopes, WHOLE_LIST_AT_MOST)
    statement, bound = shortlist_statement(dialect.name, scopes, 20)
    chosen, chosen_params = compiled(statement.params(bound), dialect)

    async def floor() -> list[Any]:
        rows = await raw.fetch(up_to, up_to_params)
        if len(rows) <= WHOLE_LIST_AT_MOST:
            return rows
        return await raw.fetch(chosen, chosen_params)

    return floor


def _rules_on_raw_rows(
    floor: Callable[[], Awaitable[list[Any]]], dialect: Any, scopes: tuple[str, ...], *, writable: bool
) -> Callable[[], Awaitable[str]]:
    """The floor's read, then only the per-turn work no storage can take away: a record per row, the
    rules, the block. No pool, no provider, no scope resolution, no diagnostics: the least a listed
    digest can cost in Python over its raw read."""
    from_rows = records_from_sqlite_rows if dialect.name == "sqlite" else records_from_rows

    async def rules() -> str:
        rows = await floor()
        if not rows or len(rows[0]) == len(MEMORY_COLUMNS):  # every record, not the shortlist's
            digest = resolve_digest(from_rows(rows), scopes=scopes, max_memories=20)
        else:
            shortlist = Shortlist(tuple(from_rows(row[2:] for row in rows)), int(rows[0][0]), int(rows[0][1]))
            digest = resolve_shortlist(shortlist, scopes=scopes, max_memories=20)
        return build_memory_block(digest, writable=writable)

    return rules


def _list_statement(scopes: tuple[str, ...]) -> Any:
    return select(*MEMORY_COLUMNS).where(memory.c.scope.in_(scopes))


@asynccontextmanager
async def two_stores(
    new_database: Callable[[str], Awaitable[str]],
    small: int,
    large: int,
    per_actor: int,
    *,
    embedder: str | None = None,
) -> AsyncIterator[tuple[AsyncEngine, AsyncEngine]]:
    """A store of `small` memories and one of `large`, `per_actor` for each of the actors `a0`, `a1`, …
    (with vectors of `embedder`, when named), loaded and opened; the engines are disposed after."""
    engines = []
    for name, stored in (("store_small", small), ("store_large", large)):
        url = await new_database(name)
        await load(
            url, [MemorySpec(f"actor:a{n}", per_actor, f"a{n}") for n in range(stored // per_actor)], embedder=embedder
        )
        engines.append(open_engine(url))
    try:
        yield engines[0], engines[1]
    finally:
        for engine in engines:
            await engine.dispose()


async def store_figures(backend: str, new_database: Callable[[str], Awaitable[str]], sizes: Sizes) -> list[Figure]:
    """Actor `a0`'s list and search digests in a small and a large store of `per_actor` memories each."""
    async with two_stores(new_database, sizes.store_small, sizes.store_large, sizes.per_actor) as engines:
        small, large = (MemoryConfig(provider=SqlMemoryProvider(engine), max_memories=20) for engine in engines)
        ctx = ScopeContext(actor=Actor("a0", "t0"))
        query = query_text(2)
        scopes = (await memory_for_turn(small, ctx, run_id=None)).digest.scopes
        walked = [await _postings_walked(engine, scopes, query) for engine in engines]
        stores = f"{sizes.store_large:,} stored vs {sizes.store_small:,}"
        label = f"{sizes.store_small:,} store"
        list_large, list_small = await paired_medians(
            lambda: memory_for_turn(large, ctx, run_id=None), lambda: memory_for_turn(small, ctx, run_id=None)
        )
        search_large, search_small = await paired_medians(
            lambda: memory_for_turn(large, ctx, run_id=None, query=query),
            lambda: memory_for_turn(small, ctx, run_id=None, query=query),
        )
    note = ""
    if walked[0] is not None and walked[1] is not None:
        note = (
            f"{backend} index: the search walks {walked[1][0]:,} of {walked[1][1]:,} postings in the "
            f"{sizes.store_large:,} store, {walked[0][0]:,} of {walked[0][1]:,} in the {sizes.store_small:,} store"
        )
    return [
        Figure(backend, f"list digest, {stores}", list_large, list_small, 1.2, label),
        Figure(backend, f"search digest, {stores}", search_large, search_small, 1.2, label, note),
    ]


async def _postings_walked(engine: AsyncEngine, scopes: Sequence[str], query: str) -> tuple[int, int] | None:
    """How many postings SQLite's search index holds for the query's terms at `scopes` (what the
    search walks), and how many it holds in all; None on PostgreSQL."""
    if not is_sqlite(engine):
        return None
    async with engine.connect() as connection:
        walked = await postings_of(connection, query_terms(scopes, query_words(query)))
        return walked, (await index_totals(connection)).postings


async def backend_figures(
    backend: str, new_database: Callable[[str], Awaitable[str]], *, sizes: Sizes, stores_only: bool = False
) -> list[Figure]:
    figures = [] if stores_only else await digest_figures(backend, await new_database("digest"), sizes)
    return figures + await store_figures(backend, new_database, sizes)


def render(figures: list[Figure]) -> str:
    header = f"| {'backend':<10} | {'case':<47} | {'ms':>8} | {'floor ms':>8} | {'floor':<13} | {'ratio':>5} | target |"
    lines = [header, "|" + "|".join("-" * (len(cell)) for cell in header.split("|")[1:-1]) + "|"]
    for f in figures:
        ratio = f.measured / f.floor
        verdict = "reference" if f.target is None else f"≤{f.target} {'ok' if ratio <= f.target else 'MISSED'}"
        lines.append(
            f"| {f.backend:<10} | {f.case:<47} | {f.measured:>8.2f} | {f.floor:>8.2f} | {f.label:<13} | "
            f"{ratio:>5.2f} | {verdict} |"
        )
    notes = [f.note for f in figures if f.note]
    return "\n".join([*lines, *(["", *notes] if notes else [])])


AnyFigure = TypeVar("AnyFigure")
NewDatabase = Callable[[str], Awaitable[str]]
"""Makes a migrated, empty database by name on one backend, and answers its URL."""


async def on_backends(
    backends: Sequence[str], figures_of: Callable[[str, NewDatabase], Awaitable[list[AnyFigure]]]
) -> list[AnyFigure]:
    """`figures_of(backend, new_database)` on each of `backends`: SQLite files in a folder of their own,
    PostgreSQL databases on a throwaway server (skipped, saying why, where its binaries are missing)."""
    figures: list[AnyFigure] = []
    if "sqlite" in backends:
        with tempfile.TemporaryDirectory(prefix="onfile-bench-") as folder:

            async def sqlite_database(name: str) -> str:
                url = f"sqlite+aiosqlite:///{Path(folder) / name}.sqlite3"
                await upgrade(url)
                return url

            figures += await figures_of("SQLite", sqlite_database)
    if "postgres" not in backends:
        return figures
    reason = missing_binaries()
    if reason is not None:
        print(f"PostgreSQL skipped: {reason}")
        return figures
    server = PostgresServer().start()
    try:

        async def postgres_database(name: str) -> str:
            url = await asyncio.to_thread(server.create_database, name)
            await upgrade(url)
            return url

        figures += await figures_of("PostgreSQL", postgres_database)
    finally:
        server.stop()
    return figures


async def run(sizes: Sizes, *, backends: tuple[str, ...] = BACKENDS, stores_only: bool = False) -> list[Figure]:
    return await on_backends(backends, partial(backend_figures, sizes=sizes, stores_only=stores_only))


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.storage", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    parser.add_argument("--backends", default="sqlite,postgres", help="comma-separated: sqlite, postgres")
    parser.add_argument("--stores-only", action="store_true", help="only the store-size rows")
    args = parser.parse_args()
    sizes = QUICK if args.quick else Sizes()
    started = time.perf_counter()
    figures = asyncio.run(run(sizes, backends=tuple(args.backends.split(",")), stores_only=args.stores_only))
    print(render(figures))
    print(f"\n(ran in {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
