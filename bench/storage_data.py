"""Synthetic memories for the storage benchmark, and the fastest honest way to load them.

Texts are ten words drawn from a 2,000-word vocabulary, so a query word matches about half a percent
of the rows, joined by "the" and "and", which every row holds — as every real store holds its
language's commonest words, and as every turn's text does too. Loading bypasses the provider (it
would take minutes at a million rows) but writes the very rows and search entries the provider would,
each row's `search_terms` computed as the provider computes them: on SQLite through the table's own
triggers, on PostgreSQL through COPY and the migration's own GIN index.

On SQLite every row goes through the table's own triggers, so the search index's postings and
totals are exactly those single `remember` calls would leave (a B-tree's content and shape do not
depend on how its writes were grouped into transactions). The loader's connection gets a page cache
that holds the whole index (1 GiB; the postings of a million memories take about 340 MB): each row
adds a dozen postings at places spread over the postings B-tree, and with SQLite's default 2 MB
cache most of them first read their page back from the file (300,000 memories loaded in 35 s
instead of 25).
"""

from __future__ import annotations

import importlib
import random
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import asyncpg
import numpy as np
from sqlalchemy.engine import make_url

from store.embedding import vector_bytes
from store.persistence.terms import index_terms

__all__ = ("VOCABULARY", "MemorySpec", "load", "query_text", "rows")

VECTOR_COLUMNS = ("embedding", "embedder")
_DIMENSIONS = 256

VOCABULARY = [f"w{n:04d}{'abcdefghij'[n % 10]}" for n in range(2_000)]
COLUMNS = (
    "id",
    "scope",
    "key",
    "text",
    "origin_author",
    "origin_thread_id",
    "origin_run_id",
    "origin_actor_ref",
    "pinned",
    "created_at",
    "updated_at",
    "search_terms",
)
START = datetime(2026, 1, 1, tzinfo=UTC)
_LOAD_CACHE_KIB = 1 << 20
# The migration's own statement, so the benchmark's index is the one production builds.
_GIN: str = importlib.import_module("store.persistence.migrations.versions.0002_search_terms").SEARCH_VECTOR[1]


@dataclass(frozen=True, slots=True)
class MemorySpec:
    """`count` memories at `scope`, keys `<prefix>-<n>`; one in fifty pinned."""

    scope: str
    count: int
    prefix: str


def query_text(seed: int) -> str:
    """A turn's text: a sentence of six vocabulary words among ordinary ones."""
    chooser = random.Random(seed)
    words = chooser.sample(VOCABULARY, 6)
    return f"Can you check {words[0]} and {words[1]} — also {words[2]}, {words[3]}? ({words[4]} {words[5]})"


def _random_vectors(seed: int) -> Iterator[bytes]:
    """Unit vectors as the provider stores them, drawn at random: ranking by them costs what ranking by
    a model's vectors costs (the same bytes read, the same products), and a million are drawn in
    seconds where embedding a million texts would take minutes."""
    generator = np.random.default_rng(seed)
    while True:
        yield from vector_bytes(generator.standard_normal((10_000, _DIMENSIONS), dtype=np.float32))


def rows(specs: list[MemorySpec], seed: int = 7, *, embedder: str | None = None) -> Iterator[tuple[object, ...]]:
    """The rows of `specs`; with `embedder`, each also carries a vector and that embedder's name."""
    chooser = random.Random(seed)
    vectors = _random_vectors(seed) if embedder is not None else None
    serial = 0
    for spec in specs:
        for n in range(spec.count):
            serial += 1
            picked = chooser.choices(VOCABULARY, k=10)
            text = f"the {' '.join(picked[:5])} and {' '.join(picked[5:])}"
            stamp = START + timedelta(seconds=serial)
            row = (
                f"mem_{spec.prefix}_{n:07d}_{serial:08d}",
                spec.scope,
                f"{spec.prefix}-{n}",
                text,
                "agent" if n % 3 else "human",
                f"thr_{n % 50}",
                f"run_{n}",
                spec.scope.removeprefix("actor:"),
                n % 50 == 0,
                stamp,
                stamp,
                index_terms(spec.scope, f"{spec.prefix}-{n}", text),
            )
            yield row if vectors is None else (*row, next(vectors), embedder)


async def load(database_url: str, specs: list[MemorySpec], *, embedder: str | None = None) -> None:
    """Bulk-load `specs` into a migrated database (empty, or loaded before with other scopes); with
    `embedder`, every row with a vector made (as far as ranking can tell) by that embedder."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        _load_sqlite(str(url.database), specs, embedder)
    else:
        await _load_postgresql(url.render_as_string(hide_password=False).replace("+asyncpg", ""), specs, embedder)


def _sqlite_time(stamp: datetime) -> str:
    # The text SQLAlchemy's SQLite DATETIME stores: UTC wall time, microseconds always present.
    return stamp.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


def _load_sqlite(path: str, specs: list[MemorySpec], embedder: str | None) -> None:
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA synchronous = OFF")
        connection.execute(f"PRAGMA cache_size = {-_LOAD_CACHE_KIB}")
        connection.execute("BEGIN IMMEDIATE")
        names = COLUMNS if embedder is None else COLUMNS + VECTOR_COLUMNS
        columns, marks = ", ".join(names), ", ".join("?" * len(names))
        statement = f"INSERT INTO agent_memory ({columns}) VALUES ({marks})"  # noqa: S608 - our constant columns
        batch: list[tuple[object, ...]] = []
        for row in rows(specs, embedder=embedder):
            batch.append((*row[:9], _sqlite_time(row[9]), _sqlite_time(row[10]), *row[11:]))  # type: ignore[arg-type]
            if len(batch) == 50_000:
                connection.executemany(statement, batch)
                batch.clear()
        connection.executemany(statement, batch)
        connection.execute("COMMIT")
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()


async def _load_postgresql(dsn: str, specs: list[MemorySpec], embedder: str | None) -> None:
    connection = await asyncpg.connect(dsn)
    try:
        # The GIN index is built once after the load rather than row by row: same index, minutes faster.
        await connection.execute("DROP INDEX ix_agent_memory_search_vector")
        names = COLUMNS if embedder is None else COLUMNS + VECTOR_COLUMNS
        records = list(rows(specs, embedder=embedder))
        await connection.copy_records_to_table("agent_memory", records=records, columns=list(names))
        await connection.execute(_GIN)
        await connection.execute("ANALYZE agent_memory")
    finally:
        await connection.close()
