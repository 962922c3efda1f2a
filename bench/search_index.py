"""What SQLite's postings index costs and buys against an FTS5 index: revision 0003 against head.

    python -m bench.search_index [--quick]

Two SQLite stores of the same memories (the storage benchmark's, `bench.storage_data`), each loaded
through the table's own triggers: one migrated to revision 0003 (FTS5, merging each pair of segments),
one to head (migration 0004: postings in an ordinary B-tree, BM25 in SQL). At 10,000 and 1,000,000
memories (`--quick`: 100,000), measured in alternation between the two stores, in milliseconds:

- the search statement for the storage benchmark's turn (actor `a0`, its 100 memories among all the
  others), each revision's own, run raw on a plain `sqlite3` connection (revision 0003's is kept
  below as it compiled), at five sizes on the way to the full store (60%, 70%, … 100%): FTS5's
  segments rise and fall with its size (one per populated size class), so one size alone can
  flatter or wrong it. Median and range over the five;
- then writes through the provider (`Writes`): new keys, the same keys with new text (the upsert's
  update), and forgetting each; median and 99th percentile of each.

Then each database file's size (write-ahead log checkpointed into it) and how long each full store
took to load. Ratios are head over 0003: below 1 is faster, or smaller.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.dialects import sqlite

from bench.storage import compiled, paired_medians
from bench.storage_data import MemorySpec, load, query_text
from store import Actor, MemoryOrigin, ScopeContext
from store.persistence import SqlMemoryProvider, open_engine, upgrade
from store.persistence.search import query_words, relevance_statement
from store.persistence.terms import query_terms

REVISIONS = ("0003", "head")
WRITES = 1_000
PER_ACTOR = 100
ACTOR = Actor("a0", "t0")
STEPS = 10
MEASURED_STEPS = 5
SCOPES = ("actor:a0", "tenant:t0", "global")

FTS5_SEARCH = """
SELECT agent_memory.id, agent_memory."key", agent_memory.text, agent_memory.scope, agent_memory.origin_author,
       agent_memory.origin_thread_id, agent_memory.origin_run_id, agent_memory.origin_actor_ref,
       agent_memory.updated_at, agent_memory.pinned, agent_memory.origin_promoted_from
FROM agent_memory LEFT OUTER JOIN (
    SELECT per_key."key" AS "key", row_number() OVER (
        ORDER BY per_key.score, per_key.scope_rank, per_key.updated_at DESC, per_key."key") AS position
    FROM (
        SELECT matched."key" AS "key", matched.score AS score, matched.scope_rank AS scope_rank,
               matched.updated_at AS updated_at, row_number() OVER (
                   PARTITION BY matched."key" ORDER BY matched.score, matched.scope_rank, matched.updated_at DESC
               ) AS nth
        FROM (
            SELECT agent_memory."key" AS "key",
                   CASE WHEN (agent_memory.scope = :scope_0) THEN 0 WHEN (agent_memory.scope = :scope_1) THEN 1
                        WHEN (agent_memory.scope = :scope_2) THEN 2 ELSE 3 END AS scope_rank,
                   bm25(memory_fts) AS score, agent_memory.updated_at AS updated_at
            FROM memory_fts JOIN agent_memory ON agent_memory.seq = memory_fts.rowid
            WHERE (memory_fts MATCH :match) AND agent_memory.scope IN (:scope_0, :scope_1, :scope_2)
            ORDER BY score, scope_rank, agent_memory.updated_at DESC, agent_memory."key"
            LIMIT :limit * 3 OFFSET 0
        ) AS matched
    ) AS per_key
    WHERE per_key.nth = 1 ORDER BY per_key.score, per_key.scope_rank, per_key.updated_at DESC, per_key."key"
    LIMIT :limit OFFSET 0
) AS top_keys ON top_keys."key" = agent_memory."key"
WHERE agent_memory.scope IN (:scope_0, :scope_1, :scope_2) AND (top_keys."key" IS NOT NULL OR agent_memory."key" IN (
    SELECT agent_memory."key" FROM agent_memory
    WHERE agent_memory.scope IN (:scope_0, :scope_1, :scope_2) AND agent_memory.pinned = 1))
ORDER BY coalesce(top_keys.position, :limit + 1),
         CASE WHEN (agent_memory.scope = :scope_0) THEN 0 WHEN (agent_memory.scope = :scope_1) THEN 1
              WHEN (agent_memory.scope = :scope_2) THEN 2 ELSE 3 END, agent_memory."key"
"""
"""Revision 0003's search for three scopes, as `store.persistence.search` compiled it then."""


@dataclass(frozen=True, slots=True)
class Row:
    case: str
    before: float
    after: float
    unit: str = "ms"


async def alternating(calls: tuple[Callable[[int], Awaitable[object]], ...], count: int) -> list[list[float]]:
    """Each call's times in ms, calls taken in turn, `count` times each."""
    times: list[list[float]] = [[] for _ in calls]
    for n in range(count):
        for call, kept in zip(calls, times, strict=True):
            begin = time.perf_counter()
            await call(n)
            kept.append((time.perf_counter() - begin) * 1000)
    return times


def p99(values: list[float]) -> float:
    return sorted(values)[int(len(values) * 0.99)]


def searches() -> list[tuple[str, dict[str, Any] | list[Any]]]:
    """Each revision's search statement for the turn, with its parameters: 0003's, then head's."""
    words = query_words(query_text(2))
    fts5: dict[str, Any] = {f"scope_{n}": scope for n, scope in enumerate(SCOPES)}
    fts5.update(match=" OR ".join(f'"{term}"' for term in query_terms(SCOPES, words)), limit=20)
    statement, params = relevance_statement("sqlite", SCOPES, words, 20)
    return [(FTS5_SEARCH, fts5), compiled(statement.params(params), sqlite.dialect())]


def _runner(
    connection: sqlite3.Connection, sql: str, params: dict[str, Any] | list[Any]
) -> Callable[[], Awaitable[object]]:
    async def run() -> object:
        return connection.execute(sql, params).fetchall()

    return run


async def _load_in_steps(urls: list[str], stored: int, measure: Callable[[], Awaitable[None]]) -> list[float]:
    """Load each store a tenth at a time, `measure` after each of the last `MEASURED_STEPS` tenths;
    how long each store's loading took in all, in seconds."""
    actors = stored // PER_ACTOR
    loading = [0.0 for _ in urls]
    for step in range(STEPS):
        part = range(actors * step // STEPS, actors * (step + 1) // STEPS)
        for n, url in enumerate(urls):
            begin = time.perf_counter()
            await load(url, [MemorySpec(f"actor:a{actor}", PER_ACTOR, f"a{actor}") for actor in part])
            loading[n] += time.perf_counter() - begin
        if step >= STEPS - MEASURED_STEPS:
            await measure()
    return loading


def _megabytes(url: str) -> float:
    """The database file's size (the loader checkpoints its write-ahead log into it)."""
    return Path(url.removeprefix("sqlite+aiosqlite:///")).stat().st_size / 1e6


class Writes:
    """Writes, rewrites and forgets through each store's provider: remember's write (one upsert in its
    own `BEGIN IMMEDIATE` transaction) at new keys, again with new text, then forgetting each."""

    def __init__(self, providers: list[SqlMemoryProvider], ctx: ScopeContext) -> None:
        self._providers = providers
        self._ctx = ctx
        self._written: list[list[str]] = [[] for _ in providers]

    def write(self, n: int, *, rewrite: bool = False) -> Callable[[int], Awaitable[object]]:
        async def write(i: int) -> None:
            record = await self._providers[n].write(
                key=f"bench-{i}",
                text=f"the w{i:04d}x {'rewritten' if rewrite else 'note'} and w{i % 2000:04d}{'abcdefghij'[i % 10]}",
                scope="actor:a0",
                origin=MemoryOrigin("agent", actor_ref="a0"),
                ctx=self._ctx,
            )
            if not rewrite:
                self._written[n].append(record.id)

        return write

    def forget(self, n: int) -> Callable[[int], Awaitable[object]]:
        return lambda i: self._providers[n].forget(id=self._written[n][i], ctx=self._ctx)


async def rows_for(stored: int, folder: Path) -> list[Row]:
    """The rows for one store size."""
    urls = []
    for revision in REVISIONS:
        url = f"sqlite+aiosqlite:///{folder / f'{revision}_{stored}'}.sqlite3"
        await upgrade(url, revision)
        urls.append(url)
    engines = [open_engine(url) for url in urls]
    raw = [sqlite3.connect(url.removeprefix("sqlite+aiosqlite:///")) for url in urls]
    ctx = ScopeContext(actor=ACTOR)
    statements: list[tuple[float, float]] = []
    try:
        providers = [SqlMemoryProvider(engine) for engine in engines]
        runs = [_runner(connection, sql, params) for connection, (sql, params) in zip(raw, searches(), strict=True)]

        async def measure() -> None:
            statements.append(await paired_medians(runs[0], runs[1], budget=2.0))

        loading = await _load_in_steps(urls, stored, measure)
        sizes = [_megabytes(url) for url in urls]
        done = Writes(providers, ctx)
        writes = await alternating((done.write(0), done.write(1)), WRITES)
        rewrites = await alternating((done.write(0, rewrite=True), done.write(1, rewrite=True)), WRITES)
        forgets = await alternating((done.forget(0), done.forget(1)), WRITES)
    finally:
        for connection in raw:
            connection.close()
        for engine in engines:
            await engine.dispose()
    label = f"{stored * (STEPS - MEASURED_STEPS + 1) // STEPS:,}–{stored:,} stored"
    before, after = ([pair[n] for pair in statements] for n in (0, 1))
    rows = [
        Row(f"search statement, median, {label}", statistics.median(before), statistics.median(after)),
        Row(f"search statement, fastest, {label}", min(before), min(after)),
        Row(f"search statement, slowest, {label}", max(before), max(after)),
    ]
    label = f"{stored:,} stored"
    for name, times in (("write", writes), ("rewrite", rewrites), ("forget", forgets)):
        rows += [
            Row(f"{name}, median, {label}", statistics.median(times[0]), statistics.median(times[1])),
            Row(f"{name}, p99, {label}", p99(times[0]), p99(times[1])),
        ]
    rows += [
        Row(f"database file, {label}", sizes[0], sizes[1], "MB"),
        Row(f"loading the store, {label}", loading[0], loading[1], "s"),
    ]
    return rows


def render(rows: list[Row]) -> str:
    header = f"| {'case':<51} | {'0003':>10} | {'head':>10} | {'head/0003':>9} |"
    lines = [header, "|" + "|".join("-" * len(cell) for cell in header.split("|")[1:-1]) + "|"]
    lines += [
        f"| {r.case:<51} | {r.before:>7.2f} {r.unit:<2} | {r.after:>7.2f} {r.unit:<2} | {r.after / r.before:>9.2f} |"
        for r in rows
    ]
    return "\n".join(lines)


async def run(sizes: tuple[int, ...]) -> str:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="onfile-bench-") as folder:
        for stored in sizes:
            rows += await rows_for(stored, Path(folder))
    return render(rows)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.search_index", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="100,000 memories instead of 1,000,000")
    args = parser.parse_args()
    started = time.perf_counter()
    print(asyncio.run(run((10_000, 100_000 if args.quick else 1_000_000))))
    print(f"\n(ran in {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
