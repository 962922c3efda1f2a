"""The cost of recall by meaning: each hybrid figure beside the same work by words alone, in one run.

    python -m bench.hybrid [--quick] [--backends sqlite,postgres]

Rows, per backend (median wall time of one call, in milliseconds, timed in alternation with its
baseline so that drift lands on both sides):

- the per-turn digest (`store.memory.memory_for_turn` with the turn's text) at 20, 2,000 and 20,000
  applicable memories, with the default embedder, beside the same digest by a provider that has no
  embedder (the lexical digest). Target ≤ 1.5×. At 20 applicable everything fits under the ceiling
  of 20, so neither ranks anything: both read the memories and carry them all.
- the same actor's hybrid digest in a store of 1,000,000 memories over 10,000 actors beside a store
  of 10,000. Target ≤ 1.2×: cost follows what applies, not what is stored.
- a `remember` write (`provider.write`) with its vector beside one without. Target ≤ 1.5×.

The stored vectors are random unit vectors in the stored format (see `bench.storage_data`): ranking
by them costs exactly what ranking by the model's costs. The turn itself is embedded by the real
model, on every call. Before the table: the embedder, how long the model took to load, and how much
the process grew by loading it.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import time
from dataclasses import dataclass
from functools import partial

from bench.storage import Figure, NewDatabase, on_backends, paired_medians, render, two_stores
from bench.storage_data import MemorySpec, load, query_text
from store import Actor, MemoryConfig, MemoryOrigin, ScopeContext, memory_for_turn
from store.embedding import UniversalSentenceEncoderEmbedder
from store.persistence import open_engine
from store.persistence.provider import SqlMemoryProvider

BACKENDS = ("sqlite", "postgres")


@dataclass(frozen=True, slots=True)
class Sizes:
    applicable: tuple[int, ...] = (20, 2_000, 20_000)
    store_small: int = 10_000
    store_large: int = 1_000_000
    per_actor: int = 100


QUICK = Sizes(applicable=(20, 2_000, 5_000), store_large=100_000)
EMBEDDER = UniversalSentenceEncoderEmbedder()


def model_footprint() -> tuple[float, float]:
    """Seconds to load the default model, and how many MiB the process's peak memory grew by it."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    EMBEDDER.load()
    seconds = time.perf_counter() - started
    return seconds, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024


async def digest_figures(backend: str, url: str, sizes: Sizes) -> list[Figure]:
    people = [(Actor(f"p{count}", f"t{count}"), count) for count in sizes.applicable]
    specs = []
    for actor, count in people:
        specs += [MemorySpec(f"actor:{actor.id}", count // 2, f"{actor.id}-own")]
        specs += [MemorySpec(f"tenant:{actor.tenant_ref}", count - count // 2, f"{actor.id}-org")]
    await load(url, specs, embedder=EMBEDDER.name)
    engine = open_engine(url)
    figures = []
    try:
        hybrid_provider = SqlMemoryProvider(engine, embedder=EMBEDDER)
        lexical_provider = SqlMemoryProvider(engine)
        hybrid = MemoryConfig(provider=hybrid_provider, max_memories=20)
        lexical = MemoryConfig(provider=lexical_provider, max_memories=20)
        query = query_text(1)
        for actor, count in people:
            ctx = ScopeContext(actor=actor)
            turn = await memory_for_turn(hybrid, ctx, run_id=None, query=query)
            if turn.digest.offered + turn.digest.omitted != count:
                msg = f"{count} applicable: the digest saw {turn.digest.offered + turn.digest.omitted}"
                raise RuntimeError(msg)
            measured, baseline = await paired_medians(
                partial(memory_for_turn, hybrid, ctx, run_id=None, query=query),
                partial(memory_for_turn, lexical, ctx, run_id=None, query=query),
            )
            figures.append(Figure(backend, f"hybrid digest, {count:,} applicable", measured, baseline, 1.5, "lexical"))
        ada = ScopeContext(actor=Actor("writer", "t_writer"), thread_id="thr_1")
        origin = MemoryOrigin(author="agent", thread_id="thr_1", run_id="run_1", actor_ref="writer")
        serial = iter(range(10**9))

        async def write(provider: SqlMemoryProvider) -> None:
            n = next(serial)
            await provider.write(
                key=f"note-{n % 500}", text=f"they prefer option {n}", scope="actor:writer", origin=origin, ctx=ada
            )

        with_vector, without = await paired_medians(partial(write, hybrid_provider), partial(write, lexical_provider))
        figures.append(Figure(backend, "remember write, with its vector", with_vector, without, 1.5, "no vector"))
    finally:
        await engine.dispose()
    return figures


async def store_figures(backend: str, new_database: NewDatabase, sizes: Sizes) -> list[Figure]:
    stores = two_stores(new_database, sizes.store_small, sizes.store_large, sizes.per_actor, embedder=EMBEDDER.name)
    async with stores as engines:
        small, large = (
            MemoryConfig(provider=SqlMemoryProvider(engine, embedder=EMBEDDER), max_memories=20) for engine in engines
        )
        ctx = ScopeContext(actor=Actor("a0", "t0"))
        query = query_text(2)
        in_large, in_small = await paired_medians(
            partial(memory_for_turn, large, ctx, run_id=None, query=query),
            partial(memory_for_turn, small, ctx, run_id=None, query=query),
        )
    compared = f"{sizes.store_large:,} stored vs {sizes.store_small:,}"
    return [Figure(backend, f"hybrid digest, {compared}", in_large, in_small, 1.2, f"{sizes.store_small:,} store")]


async def backend_figures(backend: str, new_database: NewDatabase, *, sizes: Sizes) -> list[Figure]:
    figures = await digest_figures(backend, await new_database("digest"), sizes)
    return figures + await store_figures(backend, new_database, sizes)


async def run(sizes: Sizes, backends: tuple[str, ...]) -> list[Figure]:
    return await on_backends(backends, partial(backend_figures, sizes=sizes))


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.hybrid", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    parser.add_argument("--backends", default="sqlite,postgres", help="comma-separated: sqlite, postgres")
    args = parser.parse_args()
    sizes = QUICK if args.quick else Sizes()
    started = time.perf_counter()
    seconds, grown = model_footprint()
    print(f"embedder: {EMBEDDER.name}; loaded in {seconds:.2f} s; the process grew by {grown:.0f} MiB loading it")
    figures = asyncio.run(run(sizes, tuple(args.backends.split(","))))
    print(render(figures))
    print(f"\n(ran in {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
