"""The peer benchmark's memories, built once in bulk into OnFile's store and into LangGraph's.

Each applicable size has one person, in an organisation of their own, reading their own memories, the
organisation's and the global ones: half of the person's count at the person, a quarter at the
organisation under keys the person also holds (the narrower scope must win them), the rest at the
organisation under keys of its own, and `GLOBAL_MEMORIES` global ones every person shares. Other
people fill the store to its size, 100 memories each. Both stores get the same texts, keys, times and
pins (`bench.storage_data.rows`): OnFile's through `bench.storage_data.load`, LangGraph's as the rows
its own `put` writes (a JSON value per item, the namespace joined by dots), inserted in bulk.

A SQLite store of a million memories takes minutes to build, so both stores are kept, per size, in a
cache folder (`cache_folder()`) and reused by the next run; a file is only kept once complete.
PostgreSQL's are built afresh on each run's throwaway server.
"""

from __future__ import annotations

import importlib
import json
import os
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path
from typing import Any

from bench.storage_data import MemorySpec, load, rows
from store.persistence import upgrade

__all__ = (
    "GLOBAL_MEMORIES",
    "Person",
    "build_langgraph",
    "build_onfile",
    "cache_folder",
    "namespace_of",
    "people",
    "specs",
)

GLOBAL_MEMORIES = 4
PER_FILLER = 100


@dataclass(frozen=True, slots=True)
class Person:
    """The reader of `applicable` memories: `actor:<id>`, `tenant:<organisation>`, `global`."""

    id: str
    organisation: str
    applicable: int


def people(sizes: tuple[int, ...]) -> list[Person]:
    return [Person(f"p{size}", f"o{size}", size) for size in sizes]


def specs(stored: int, readers: list[Person]) -> list[MemorySpec]:
    """Every memory of a store of `stored`: the readers', the global ones, and the fillers'."""
    made = [MemorySpec("global", GLOBAL_MEMORIES, "g")]
    for person in readers:
        own, overridden = person.applicable // 2, person.applicable // 4
        rest = person.applicable - own - overridden - GLOBAL_MEMORIES
        made += [
            MemorySpec(f"actor:{person.id}", own, person.id),
            MemorySpec(f"tenant:{person.organisation}", overridden, person.id),
            MemorySpec(f"tenant:{person.organisation}", rest, person.organisation),
        ]
    left = stored - sum(spec.count for spec in made)
    for n in range(0, left, PER_FILLER):
        made.append(MemorySpec(f"actor:f{n}", min(PER_FILLER, left - n), f"f{n}"))
    return made


def namespace_of(scope: str) -> tuple[str, ...]:
    """OnFile's scope as LangGraph's namespace: person, organisation, global."""
    kind, _, name = scope.partition(":")
    return {"actor": ("person", name), "tenant": ("organisation", name)}.get(kind, (scope,))


def cache_folder() -> Path:
    """Where built SQLite stores are kept between runs (`ONFILE_BENCH_CACHE`, else the temp folder)."""
    folder = Path(os.environ.get("ONFILE_BENCH_CACHE") or Path(tempfile.gettempdir()) / "onfile-bench-cache")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


async def build_onfile(url: str, memory_specs: list[MemorySpec]) -> None:
    """OnFile's store at `url` (a migrated, empty database), loaded in bulk."""
    await upgrade(url)
    await load(url, memory_specs)


def _langgraph_rows(memory_specs: list[MemorySpec]) -> Iterator[tuple[str, str, str, str, str]]:
    """(prefix, key, value, created_at, updated_at) as LangGraph's `put` stores them."""
    for row in rows(memory_specs):
        _id, scope, key, text, author, thread_id, run_id, actor_ref, pinned, created, updated, _terms = row
        value = {
            "text": text,
            "author": author,
            "thread_id": thread_id,
            "run_id": run_id,
            "actor_ref": actor_ref,
            "pinned": pinned,
        }
        stamps = [stamp.astimezone(UTC).isoformat() for stamp in (created, updated)]  # type: ignore[attr-defined]
        yield ".".join(namespace_of(str(scope))), str(key), json.dumps(value), stamps[0], stamps[1]


def build_langgraph_sqlite(path: Path, memory_specs: list[MemorySpec]) -> None:
    """LangGraph's SQLite store at `path`: its own schema (`SqliteStore.setup`), rows in bulk."""
    sqlite_store: Any = importlib.import_module("langgraph.store.sqlite")
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        sqlite_store.SqliteStore(connection).setup()
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("BEGIN")
        connection.executemany(
            "INSERT INTO store (prefix, key, value, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
            _langgraph_rows(memory_specs),
        )
        connection.execute("COMMIT")
        connection.execute("ANALYZE")
    finally:
        connection.close()


def build_langgraph_postgres(dsn: str, memory_specs: list[MemorySpec]) -> None:
    """LangGraph's PostgreSQL store at `dsn`: its own schema (`PostgresStore.setup`), rows by COPY."""
    postgres_store: Any = importlib.import_module("langgraph.store.postgres")
    with postgres_store.PostgresStore.from_conn_string(dsn) as store:
        store.setup()
        with store.conn.cursor() as cursor:
            copy_sql = "COPY store (prefix, key, value, created_at, updated_at) FROM STDIN"
            with cursor.copy(copy_sql) as copy:
                for row in _langgraph_rows(memory_specs):
                    copy.write_row(row)
            cursor.execute("ANALYZE store")


async def build_langgraph(url: str, memory_specs: list[MemorySpec]) -> None:
    """LangGraph's store at `url`, a SQLite file (`sqlite:///…`) or a PostgreSQL database."""
    if url.startswith("sqlite"):
        build_langgraph_sqlite(Path(url.split("///", 1)[1]), memory_specs)
    else:
        build_langgraph_postgres(url, memory_specs)
