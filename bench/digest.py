"""How long the pure core takes to turn applicable records into a turn's block.

Times `resolve_digest` + `build_memory_block` in-process for 20, 2,000 and 20,000 applicable records
(the prompt's ceiling of 20, and the read-back with no ceiling), beside a floor measured in the same
run: one pass that formats every record into a line and sorts the lines, which any renderer must at
least do. Absolute times differ between machines and runs; the ratio to the floor is what to compare.

    python -m bench.digest [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from store import Author, MemoryOrigin, MemoryRecord, build_memory_block, resolve_digest

SCOPES = ("actor:ada", "tenant:berlin", "global")
SIZES = (20, 2_000, 20_000)


def make_records(count: int) -> list[MemoryRecord]:
    """`count` records over three scopes; about a third of the keys are held at two scopes (conflicts)
    and one record in fifty is pinned."""
    start = datetime(2026, 1, 1, tzinfo=UTC)
    records = []
    for i in range(count):
        scope = SCOPES[i % 3]
        key = f"key-{i // 2 if i % 3 else i:06d}"
        author: Author = "human" if i % 4 == 0 else "agent"
        records.append(
            MemoryRecord(
                id=f"mem_{i:07d}",
                key=key,
                text=f"fact number {i} about how this person likes their reports laid out",
                scope=scope,
                origin=MemoryOrigin(author=author, thread_id=f"thr_{i % 97}", run_id=f"run_{i}", actor_ref="ada"),
                updated_at=start + timedelta(minutes=i),
                pinned=i % 50 == 0,
            )
        )
    return records


def floor(records: list[MemoryRecord]) -> str:
    """The least any renderer does: one formatted line per record, sorted."""
    return "\n".join(sorted(f"- [{r.scope}] {r.key}: {r.text}" for r in records))


def time_call(fn: Callable[[], object], repeat: int) -> float:
    """Median seconds per call over `repeat` timed rounds, each long enough to be measurable."""
    calls = 1
    while True:
        started = time.perf_counter()
        for _ in range(calls):
            fn()
        if time.perf_counter() - started > 0.05:
            break
        calls *= 2
    rounds = []
    for _ in range(repeat):
        started = time.perf_counter()
        for _ in range(calls):
            fn()
        rounds.append((time.perf_counter() - started) / calls)
    return statistics.median(rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=7, help="timed rounds per figure (the median is shown)")
    args = parser.parse_args()

    columns = ("records", "ceiling", "entries", "floor µs", "digest+block µs", "µs/record", "× floor")
    widths = (8, 8, 8, 10, 16, 10, 8)
    header = " ".join(f"{name:>{width}}" for name, width in zip(columns, widths, strict=True))
    print(header)
    print("-" * len(header))
    for size in SIZES:
        for line in measure(make_records(size), args.repeat):
            print(line)


def measure(records: list[MemoryRecord], repeat: int) -> list[str]:
    """One table row per ceiling (the prompt's 20, and none for the read-back) over `records`."""
    floor_s = time_call(lambda: floor(records), repeat)
    rows = []
    for ceiling in (20, None):

        def digest_and_block(ceiling: int | None = ceiling) -> str:
            digest = resolve_digest(records, scopes=SCOPES, max_memories=ceiling)
            return build_memory_block(digest, writable=True)

        entries = len(resolve_digest(records, scopes=SCOPES, max_memories=ceiling).entries)
        took = time_call(digest_and_block, repeat)
        rows.append(
            f"{len(records):>8} {ceiling if ceiling else 'none':>8} {entries:>8} {floor_s * 1e6:>10.1f} "
            f"{took * 1e6:>16.1f} {took * 1e6 / len(records):>10.2f} {took / floor_s:>8.2f}"
        )
    return rows


if __name__ == "__main__":
    main()
