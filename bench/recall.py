"""Recall by meaning, measured: how often a turn finds the memory it needs when they share no word.

    python -m bench.recall [--quick] [--backends sqlite,postgresql] [--misses]

The store holds every memory of the recall set (`bench.recall_set`: hand-written memories in English,
German and French, each with a turn or two that share no content word with it) among 3,300
distractors, at the scopes of three tenants' people, their tenants and `global`, written through
`SqlMemoryProvider.add` by a provider with the default embedder, so every record has its vector. Each
pair's turn is then asked at its actor's scopes (own, tenant, global) with limit 5 and limit 20,
twice: by a provider without an embedder (words only) and by one with it (words and meaning, fused).
A hit is the pair's key among the first `limit` distinct keys returned.

The table has a row per backend, kind and language, and one for all languages of a kind:

- `topical` rows carry the target: the turn asks about, or asks to act on, the memory's own subject in
  other words ("they report distances in kilometres" for "how far is the depot from the station?"),
  which is what ranking by nearness of meaning promises to find. The target, for each language and
  for all: hybrid recall@20 ≥ 0.9 and at least twice lexical recall@20.
- `inferential` rows are printed for reference (target column "reference"): the turn is about
  something else and only a further fact links it to the memory ("he uses a wheelchair" for "which
  museum in Rome can we visit on Saturday?"); no similarity model is expected to find those.

Both providers fill `limit` keys: the keys no ranking holds follow in listed order (narrowest scope,
then newest). Record times are drawn at random over a year, so that fill is no kinder to a pair than
to a distractor. The embedder's load time and the process's resident memory growth from loading it
are printed above the table. PostgreSQL runs on a throwaway local server (as the tests start one);
where its binaries are missing, only SQLite runs. `--quick` stores 500 distractors: a smoke run, not
figures to quote.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from random import Random

from bench.recall_set import DISTRACTORS, KINDS, LANGUAGES, Case, Memory, RecallSet, build_recall_set
from store.domain.scopes import GLOBAL_SCOPE, own_scope
from store.domain.types import MemoryOrigin, MemoryRecord, ScopeContext
from store.embedding import UniversalSentenceEncoderEmbedder
from store.persistence import SqlMemoryProvider, open_engine, upgrade_engine
from tests.postgres_server import PostgresServer, missing_binaries

LIMITS = (5, 20)
BACKENDS = ("sqlite", "postgresql")
TARGETED = "topical"
"""The kind of pair the target applies to; the other kind's rows are printed for reference."""
TARGET_RECALL = 0.9
TARGET_TIMES_LEXICAL = 2.0
_ADDED_AT_ONCE = 500
_NOW = datetime(2026, 9, 1, 9, 0, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Outcome:
    """One pair's turn, asked on one backend: whether each ranking found the pair's key at each limit."""

    backend: str
    case: Case
    lexical: dict[int, bool]
    hybrid: dict[int, bool]


@dataclass(frozen=True, slots=True)
class ModelLoad:
    name: str
    dimensions: int
    seconds: float
    rss_growth_mib: float


def resident_mib() -> float:
    """The process's resident memory now (VmRSS), or its peak where /proc is missing."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


LocalEmbedder = UniversalSentenceEncoderEmbedder


async def load_model(embedder: LocalEmbedder) -> ModelLoad:
    """Load the model and embed one text: what the first turn of a process pays."""
    before, started = resident_mib(), time.perf_counter()
    embedder.load()
    vectors = await embedder.embed(["warm-up"])
    return ModelLoad(embedder.name, vectors.shape[1], time.perf_counter() - started, resident_mib() - before)


def records_of(memories: Sequence[Memory], seed: int = 7) -> list[MemoryRecord]:
    """A record per memory, each written a random time within the last year (see the module's note)."""
    chooser = Random(seed)
    made = []
    for n, memory in enumerate(memories):
        personal = memory.scope.startswith("actor:")
        origin = MemoryOrigin(
            author="agent" if personal else "human",
            actor_ref=memory.scope.removeprefix("actor:") if personal else "admin",
        )
        written = _NOW - timedelta(minutes=chooser.randrange(365 * 24 * 60))
        made.append(MemoryRecord(f"mem_{n:06d}", memory.key, memory.fact, memory.scope, origin, written))
    return made


async def found(provider: SqlMemoryProvider, case: Case, limit: int) -> bool:
    actor = case.actor
    scopes = [own_scope(actor), f"tenant:{actor.tenant_ref}", GLOBAL_SCOPE]
    recall = await provider.recall(scopes=scopes, query=case.pair.turn, limit=limit, ctx=ScopeContext(actor=actor))
    return case.pair.key in list(dict.fromkeys(record.key for record in recall.records))[:limit]


async def measure(backend: str, url: str, recall_set: RecallSet, embedder: LocalEmbedder) -> list[Outcome]:
    engine = open_engine(url)
    try:
        await upgrade_engine(engine)
        hybrid = SqlMemoryProvider(engine, embedder=embedder)
        lexical = SqlMemoryProvider(engine, embedder=None)
        records = records_of(recall_set.memories)
        for start in range(0, len(records), _ADDED_AT_ONCE):
            await hybrid.add(records[start : start + _ADDED_AT_ONCE])
        outcomes = []
        for case in recall_set.cases:
            outcomes.append(
                Outcome(
                    backend,
                    case,
                    {limit: await found(lexical, case, limit) for limit in LIMITS},
                    {limit: await found(hybrid, case, limit) for limit in LIMITS},
                )
            )
        return outcomes
    finally:
        await engine.dispose()


@asynccontextmanager
async def databases(backends: Sequence[str]) -> AsyncIterator[list[tuple[str, str]]]:
    """(backend, URL) of an empty database on each backend that can run here."""
    with tempfile.TemporaryDirectory(prefix="onfile-recall-") as folder:
        urls = [("SQLite", f"sqlite+aiosqlite:///{Path(folder) / 'recall.sqlite3'}")] if "sqlite" in backends else []
        if not {"postgres", "postgresql"} & set(backends):
            yield urls
            return
        reason = missing_binaries()
        if reason is not None:
            print(f"PostgreSQL skipped: {reason}")
            yield urls
            return
        server = PostgresServer().start()
        try:
            yield [*urls, ("PostgreSQL", await asyncio.to_thread(server.create_database, "recall"))]
        finally:
            server.stop()


def rate(outcomes: Sequence[Outcome], ranking: str, limit: int) -> float:
    return statistics.fmean(getattr(outcome, ranking)[limit] for outcome in outcomes)


def verdict(kind: str, lexical: float, hybrid: float) -> str:
    """The target column: "reference" for a kind the target does not apply to; otherwise whether hybrid
    recall@20 reached `TARGET_RECALL` and `TARGET_TIMES_LEXICAL` times lexical recall@20 (a lexical
    recall of 0 counts as infinitely many times)."""
    if kind != TARGETED:
        return "reference"
    met = hybrid >= TARGET_RECALL and (lexical == 0 or hybrid / lexical >= TARGET_TIMES_LEXICAL)
    return f"≥{TARGET_RECALL:g}, ≥{TARGET_TIMES_LEXICAL:g}× {'ok' if met else 'MISSED'}"


def render(outcomes: Sequence[Outcome]) -> str:
    """A row per backend, kind and language, then one for all of the kind's languages; a combination
    without pairs has no row."""
    header = (
        f"| {'backend':<10} | {'kind':<11} | {'language':<8} | {'pairs':>5} | {'lexical @5':>10} | "
        f"{'lexical @20':>11} | {'hybrid @5':>9} | {'hybrid @20':>10} | {'× lexical @20':>13} | {'target':<16} |"
    )
    lines = [header, "|" + "|".join("-" * len(cell) for cell in header.split("|")[1:-1]) + "|"]
    for backend in dict.fromkeys(outcome.backend for outcome in outcomes):
        for kind in KINDS:
            mine = [o for o in outcomes if o.backend == backend and o.case.pair.kind == kind]
            for language in (*LANGUAGES, "all"):
                rows = [o for o in mine if language in ("all", o.case.pair.language)]
                if not rows:
                    continue
                lexical, hybrid = rate(rows, "lexical", 20), rate(rows, "hybrid", 20)
                times = hybrid / lexical if lexical else float("inf")
                lines.append(
                    f"| {backend:<10} | {kind:<11} | {language:<8} | {len(rows):>5} | "
                    f"{rate(rows, 'lexical', 5):>10.2f} | {lexical:>11.2f} | {rate(rows, 'hybrid', 5):>9.2f} | "
                    f"{hybrid:>10.2f} | {times:>13.2f} | {verdict(kind, lexical, hybrid):<16} |"
                )
    return "\n".join(lines)


def misses(outcomes: Sequence[Outcome]) -> str:
    """The pairs hybrid recall@20 did not find, the targeted kind first: backend, kind, language, key,
    scope, memory and turn."""
    missed = sorted((o for o in outcomes if not o.hybrid[20]), key=lambda o: KINDS.index(o.case.pair.kind))
    counts = ", ".join(f"{sum(o.case.pair.kind == kind for o in missed)} {kind}" for kind in KINDS)
    lines = [
        f"- {o.backend} {o.case.pair.kind} {o.case.pair.language} `{o.case.pair.key}` ({o.case.memory.scope}): "
        f"{o.case.pair.fact!r} ← {o.case.pair.turn!r}"
        for o in missed
    ]
    return "\n".join([f"hybrid misses at @20 ({counts}):", *lines])


async def run(backends: Sequence[str], distractors: int) -> tuple[ModelLoad, RecallSet, list[Outcome]]:
    embedder = UniversalSentenceEncoderEmbedder()
    model = await load_model(embedder)
    recall_set = build_recall_set(distractors=distractors)
    outcomes: list[Outcome] = []
    async with databases(backends) as urls:
        for backend, url in urls:
            outcomes += await measure(backend, url, recall_set, embedder)
    return model, recall_set, outcomes


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.recall", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="500 distractors, for a smoke run")
    parser.add_argument("--backends", default=",".join(BACKENDS), help="comma-separated: sqlite, postgresql")
    parser.add_argument("--misses", action="store_true", help="list the pairs hybrid recall@20 missed, by kind")
    args = parser.parse_args()
    started = time.perf_counter()
    distractors = 500 if args.quick else DISTRACTORS
    model, recall_set, outcomes = asyncio.run(run(args.backends.split(","), distractors))
    print(
        f"embedder: {model.name} ({model.dimensions} dimensions), loaded in {model.seconds:.2f} s, "
        f"resident memory +{model.rss_growth_mib:.1f} MiB from loading the model"
    )
    kinds = ", ".join(f"{sum(case.pair.kind == kind for case in recall_set.cases)} {kind}" for kind in KINDS)
    memories = len(recall_set.memories) - len(recall_set.distractors)
    print(f"store: {memories} pair memories + {len(recall_set.distractors):,} distractors; pairs: {kinds}\n")
    print(render(outcomes))
    if args.misses:
        print(f"\n{misses(outcomes)}")
    print(f"\n(ran in {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
