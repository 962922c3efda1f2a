"""What merging SQLite's full-text index sooner costs and buys: revision 0002 against head.

    python -m bench.index_merges [--quick]

Two SQLite stores of the same memories (the storage benchmark's, `bench.storage_data`), each loaded
through the table's triggers: one migrated to revision 0002 (FTS5's default merging: a size class
merges at four segments, the newest at sixteen), one to head (migration 0003: at two, the newest at
four; one segment per size class). At 10,000 and 1,000,000 memories (`--quick`: 100,000), measured
in alternation between the two stores, in milliseconds:

- the storage benchmark's search digest (actor `a0`, its 100 memories among all the others) at five
  sizes on the way to the full store (60%, 70%, … 100%): an index's segments rise and fall with its
  size (one segment per populated size class, as the binary digits of a count), so one size alone
  can flatter or wrong either revision. Median and range over the five, with the segments;
- then a write through the provider (`SqlMemoryProvider.write`: remember's write, one upsert in its
  own `BEGIN IMMEDIATE` transaction; new keys), median and 99th percentile;
- and forgetting each of those again (`forget`: a delete).

Ratios are head over 0002: below 1 is faster.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from bench.storage import paired_medians
from bench.storage_data import MemorySpec, load, query_text
from store import Actor, MemoryConfig, MemoryOrigin, ScopeContext, memory_for_turn
from store.persistence import SqlMemoryProvider, open_engine, upgrade
from store.persistence.search_index import index_shape

REVISIONS = ("0002", "head")
WRITES = 1_000
PER_ACTOR = 100
ACTOR = Actor("a0", "t0")


@dataclass(frozen=True, slots=True)
class Row:
    case: str
    before: float
    after: float


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


STEPS = 10
MEASURED_STEPS = 5


async def rows_for(stored: int, folder: Path) -> tuple[list[Row], list[str]]:
    """The rows for one store size, and what the two indexes' segments were at the sizes searched."""
    urls = []
    for revision in REVISIONS:
        url = f"sqlite+aiosqlite:///{folder / f'{revision}_{stored}'}.sqlite3"
        await upgrade(url, revision)
        urls.append(url)
    engines = [open_engine(url) for url in urls]
    ctx = ScopeContext(actor=ACTOR)
    query = query_text(2)
    actors = stored // PER_ACTOR
    searches: list[tuple[float, float]] = []
    segments: list[list[int]] = [[], []]
    try:
        providers = [SqlMemoryProvider(engine) for engine in engines]
        configs = [MemoryConfig(provider=provider, max_memories=20) for provider in providers]
        for step in range(STEPS):
            part = range(actors * step // STEPS, actors * (step + 1) // STEPS)
            for url in urls:
                await load(url, [MemorySpec(f"actor:a{n}", PER_ACTOR, f"a{n}") for n in part])
            if step < STEPS - MEASURED_STEPS:
                continue
            for kept, engine in zip(segments, engines, strict=True):
                async with engine.connect() as connection:
                    kept.append((await index_shape(connection)).segments)
            searches.append(
                await paired_medians(
                    lambda: memory_for_turn(configs[0], ctx, run_id=None, query=query),
                    lambda: memory_for_turn(configs[1], ctx, run_id=None, query=query),
                    budget=2.0,
                )
            )
        written: list[list[str]] = [[], []]

        def writer(n: int) -> Callable[[int], Awaitable[object]]:
            async def write(i: int) -> None:
                record = await providers[n].write(
                    key=f"bench-{i}",
                    text=f"the w{i:04d}x note and w{i % 2000:04d}{'abcdefghij'[i % 10]} again",
                    scope="actor:a0",
                    origin=MemoryOrigin("agent", actor_ref="a0"),
                    ctx=ctx,
                )
                written[n].append(record.id)

            return write

        def forgetter(n: int) -> Callable[[int], Awaitable[object]]:
            return lambda i: providers[n].forget(id=written[n][i], ctx=ctx)

        writes = await alternating((writer(0), writer(1)), WRITES)
        forgets = await alternating((forgetter(0), forgetter(1)), WRITES)
    finally:
        for engine in engines:
            await engine.dispose()
    label = f"{stored * (STEPS - MEASURED_STEPS + 1) // STEPS:,}–{stored:,} stored"
    before, after = ([pair[n] for pair in searches] for n in (0, 1))
    rows = [
        Row(f"search digest, median, {label}", statistics.median(before), statistics.median(after)),
        Row(f"search digest, fastest, {label}", min(before), min(after)),
        Row(f"search digest, slowest, {label}", max(before), max(after)),
    ]
    label = f"{stored:,} stored"
    rows += [
        Row(f"write, median, {label}", statistics.median(writes[0]), statistics.median(writes[1])),
        Row(f"write, p99, {label}", p99(writes[0]), p99(writes[1])),
        Row(f"forget, median, {label}", statistics.median(forgets[0]), statistics.median(forgets[1])),
        Row(f"forget, p99, {label}", p99(forgets[0]), p99(forgets[1])),
    ]
    shapes = [
        f"{stored:,} stored, segments at the sizes searched: {revision} {', '.join(map(str, counts))}"
        for revision, counts in zip(REVISIONS, segments, strict=True)
    ]
    return rows, shapes


def render(rows: list[Row], shapes: list[str]) -> str:
    header = f"| {'case':<50} | {'0002 ms':>8} | {'head ms':>8} | {'head/0002':>9} |"
    lines = [header, "|" + "|".join("-" * len(cell) for cell in header.split("|")[1:-1]) + "|"]
    lines += [f"| {r.case:<50} | {r.before:>8.2f} | {r.after:>8.2f} | {r.after / r.before:>9.2f} |" for r in rows]
    return "\n".join([*lines, "", *shapes])


async def run(sizes: tuple[int, ...]) -> str:
    rows: list[Row] = []
    shapes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="onfile-bench-") as folder:
        for stored in sizes:
            found, seen = await rows_for(stored, Path(folder))
            rows += found
            shapes += seen
    return render(rows, shapes)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.index_merges", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="100,000 memories instead of 1,000,000")
    args = parser.parse_args()
    started = time.perf_counter()
    print(asyncio.run(run((10_000, 100_000 if args.quick else 1_000_000))))
    print(f"\n(ran in {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
