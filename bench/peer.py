"""The peer benchmark: a turn's memory from LangGraph's store beside OnFile's digest, on both backends.

    pip install -e '.[bench]'
    python -m bench.peer [--stored 10000,1000000] [--backends sqlite,postgres]

The same memories (`bench.peer_data`) are built in LangGraph's `SqliteStore` and `PostgresStore` and in
OnFile's store, for people with 20, 200 and 2,000 applicable memories among 10,000 and 1,000,000
stored. Per person, median wall time of one turn, in milliseconds:

- LangGraph: its own search of each namespace (person, organisation, global), one after another, and
  the same three searches as one `batch`; each then merged (the narrower namespace wins a key),
  selected (20 entries) and rendered by OnFile's own rules — the same Python work OnFile's digest does,
  so the columns differ only in how the memories are stored and read.
- OnFile: the digest (`store.memory.memory_for_turn`: resolve scopes, read, precedence, selection,
  block), as a turn runs it: the person's turns in a row, whose memories have not changed, so the
  rows read are compared with the last turn's, and neither the records nor the rules are made again
  (`store.persistence.shortlist.RecentReads`, `store.memory.RecentTurns`); and, beside it, the same
  digest with both made every turn (`recent_reads=0`, `recent_turns=0`), what the first turn after a
  change costs.
- Floors: the statements the digest runs, raw — on OnFile's driver (aiosqlite in one trip to its
  thread, on the connection the provider keeps; asyncpg), and bare and synchronous (the sqlite3
  module; psycopg), the least a read of the same rows can cost in Python.

Targets: the digest ≤ 0.7× LangGraph's faster variant at 20 applicable and ≤ 0.33× at 2,000; at 20
applicable ≤ 1.25× the driver's raw read and ≤ 3× the bare synchronous read. A SQLite store is built
once and kept for later runs (`bench.peer_data.cache_folder`); PostgreSQL's are built on a throwaway
server each run. Needs the `bench` extra (LangGraph's stores and psycopg).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import platform
import random
import re
import sqlite3
import statistics
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC
from importlib.metadata import version
from pathlib import Path
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from bench.peer_data import (
    Person,
    build_langgraph,
    build_onfile,
    cache_folder,
    namespace_of,
    people,
    specs,
)
from bench.storage import RawReader, _listed_floor, compiled
from store import Actor, MemoryConfig, MemoryOrigin, MemoryRecord, ScopeContext, memory_for_turn
from store.domain.block import build_memory_block
from store.domain.precedence import resolve_digest
from store.persistence import open_engine
from store.persistence.memories import up_to_read_sql
from store.persistence.provider import SqlMemoryProvider
from store.persistence.shortlist import WHOLE_LIST_AT_MOST, shortlist_statement
from tests.postgres_server import PostgresServer, missing_binaries

APPLICABLE = (20, 200, 2_000)
STORED = (10_000, 1_000_000)
CEILING = 20
SEARCH_LIMIT = 10_000
"""LangGraph's search returns at most `limit` items (10 by default): enough for everything that applies."""
TARGETS = {20: 0.7, 2_000: 0.33}
RAW_TARGET, BARE_TARGET = 1.25, 3.0

Call = Callable[[], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class Row:
    backend: str
    stored: int
    applicable: int
    langgraph_search: float
    langgraph_batch: float
    onfile: float
    rules_run: float
    raw: float
    bare: float


async def medians(calls: Sequence[Call], *, budget: float = 2.0, least: int = 21) -> list[float]:
    """Median milliseconds of each call, each timed once a round so that drift lands on every column
    alike, in an order shuffled each round so that every call follows every other alike: the call
    after LangGraph's (another driver, another PostgreSQL backend woken) pays for the switch, and in a
    fixed order one call would always pay it (up to 0.9 ms of 3 at 2,000 applicable)."""
    for _ in range(3):
        for call in calls:
            await call()
    times: list[list[float]] = [[] for _ in calls]
    order = list(range(len(calls)))
    shuffled = random.Random(len(calls))
    started = time.perf_counter()
    while len(times[0]) < least or (time.perf_counter() - started < budget and len(times[0]) < 1_000):
        shuffled.shuffle(order)
        for n in order:
            begin = time.perf_counter()
            await calls[n]()
            times[n].append(time.perf_counter() - begin)
    return [statistics.median(kept) * 1000 for kept in times]


def scopes_of(person: Person) -> tuple[str, ...]:
    return (f"actor:{person.id}", f"tenant:{person.organisation}", "global")


def _scope_of(namespace: tuple[str, ...]) -> str:
    return {"person": "actor", "organisation": "tenant"}[namespace[0]] + ":" + namespace[1]


def record_of(item: Any) -> MemoryRecord:
    """A LangGraph item as the record OnFile's rules take (its namespace and key are its identity)."""
    value, namespace = item.value, item.namespace
    scope = "global" if namespace == ("global",) else _scope_of(namespace)
    updated = item.updated_at if item.updated_at.tzinfo else item.updated_at.replace(tzinfo=UTC)
    origin = MemoryOrigin(value["author"], value["thread_id"], value["run_id"], value["actor_ref"])
    return MemoryRecord(f"{scope}/{item.key}", item.key, value["text"], scope, origin, updated, value["pinned"])


class LangGraphTurn:
    """A turn's memory from LangGraph's store: read, then OnFile's merge, selection and block."""

    def __init__(self, store: Any, person: Person) -> None:
        base: Any = importlib.import_module("langgraph.store.base")
        self._store = store
        self._scopes = scopes_of(person)
        self._namespaces = [namespace_of(scope) for scope in self._scopes]
        self._ops = [base.SearchOp(namespace, None, SEARCH_LIMIT, 0) for namespace in self._namespaces]

    def _block(self, found: Sequence[Sequence[Any]]) -> str:
        records = [record_of(item) for items in found for item in items]
        return build_memory_block(resolve_digest(records, scopes=self._scopes, max_memories=CEILING), writable=True)

    async def searched(self) -> str:
        return self._block([self._store.search(ns, limit=SEARCH_LIMIT) for ns in self._namespaces])

    async def batched(self) -> str:
        return self._block(self._store.batch(self._ops))

    def chosen(self) -> tuple[int, int, list[str]]:
        """How many items the searches read, how many keys they hold, and the keys the turn chose."""
        records = [record_of(item) for items in self._store.batch(self._ops) for item in items]
        digest = resolve_digest(records, scopes=self._scopes, max_memories=CEILING)
        return len(records), len({record.key for record in records}), [entry.key for entry in digest.entries]


class BareReader:
    """The floor below the driver: OnFile's statements on a synchronous connection (sqlite3, psycopg)."""

    def __init__(self, engine: AsyncEngine, connection: Any, person: Person) -> None:
        scopes = scopes_of(person)
        self._sqlite = engine.dialect.name == "sqlite"
        self._connection = connection
        self._up_to = self._native(*up_to_read_sql(engine.dialect, scopes, WHOLE_LIST_AT_MOST))
        statement, bound = shortlist_statement(engine.dialect.name, scopes, CEILING)
        self._chosen = self._native(*compiled(statement.params(bound), engine.dialect))

    def _native(self, sql: str, params: list[Any]) -> tuple[str, Any]:
        """asyncpg's `$n` (a parameter used twice keeps its number) as psycopg's named `%(pn)s`."""
        if self._sqlite:
            return sql, params
        return re.sub(r"\$(\d+)", r"%(p\1)s", sql), {f"p{n}": value for n, value in enumerate(params, 1)}

    async def read(self) -> list[Any]:
        rows = self._connection.execute(*self._up_to).fetchall()
        if len(rows) <= WHOLE_LIST_AT_MOST:
            return list(rows)
        return list(self._connection.execute(*self._chosen).fetchall())


async def person_row(backend: str, stored: int, person: Person, engine: AsyncEngine, langgraph: Any, bare: Any) -> Row:
    provider = SqlMemoryProvider(engine)
    config = MemoryConfig(provider=provider, max_memories=CEILING)
    every_time = MemoryConfig(provider=SqlMemoryProvider(engine, recent_reads=0), max_memories=CEILING, recent_turns=0)
    ctx = ScopeContext(actor=Actor(person.id, person.organisation))
    turn = await memory_for_turn(config, ctx, run_id=None)
    peer = LangGraphTurn(langgraph, person)
    read, keys, chosen = peer.chosen()
    if read != person.applicable or turn.digest.offered + turn.digest.omitted != keys:
        msg = f"{backend}, {person.applicable:,} applicable: the two stores hold other memories"
        raise RuntimeError(msg)
    if chosen != [entry.key for entry in turn.digest.entries]:
        msg = f"{backend}, {person.applicable:,} applicable: LangGraph's turn chose other keys than OnFile's"
        raise RuntimeError(msg)
    async with RawReader(engine) as raw:
        floor = _listed_floor(raw, engine.dialect, turn.digest.scopes)
        sync = BareReader(engine, bare, person)
        measured = await medians(
            [
                peer.searched,
                peer.batched,
                lambda: memory_for_turn(config, ctx, run_id=None),
                lambda: memory_for_turn(every_time, ctx, run_id=None),
                floor,
                sync.read,
            ]
        )
    return Row(backend, stored, person.applicable, *measured)


@contextlib.contextmanager
def _sqlite_langgraph(path: Path) -> Iterator[tuple[Any, Any]]:
    sqlite_store: Any = importlib.import_module("langgraph.store.sqlite")
    connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    bare = sqlite3.connect(path.with_name(path.name.replace("langgraph", "onfile")), isolation_level=None)
    try:
        yield sqlite_store.SqliteStore(connection), bare
    finally:
        connection.close()
        bare.close()


async def sqlite_rows(stored: int, readers: list[Person]) -> list[Row]:
    folder = cache_folder()
    onfile, langgraph = (folder / f"peer-{stored}-{name}.sqlite3" for name in ("onfile", "langgraph"))
    memory_specs = specs(stored, readers)
    for path, build in ((onfile, build_onfile), (langgraph, build_langgraph)):
        if not path.exists():
            print(f"building {path} ({stored:,} memories; kept for later runs)", flush=True)
            partial_path = path.with_suffix(".partial")
            partial_path.unlink(missing_ok=True)
            await build(f"sqlite+aiosqlite:///{partial_path}", memory_specs)
            partial_path.rename(path)
    engine = open_engine(f"sqlite+aiosqlite:///{onfile}")
    try:
        with _sqlite_langgraph(langgraph) as (store, bare):
            return [await person_row("SQLite", stored, person, engine, store, bare) for person in readers]
    finally:
        await engine.dispose()


async def postgres_rows(server: PostgresServer, stored: int, readers: list[Person]) -> list[Row]:
    postgres_store: Any = importlib.import_module("langgraph.store.postgres")
    psycopg: Any = importlib.import_module("psycopg")
    memory_specs = specs(stored, readers)
    urls = [await asyncio.to_thread(server.create_database, f"peer_{stored}_{name}") for name in ("onfile", "lg")]
    dsns = [url.replace("+asyncpg", "") for url in urls]
    print(f"building PostgreSQL stores of {stored:,} memories", flush=True)
    await build_onfile(urls[0], memory_specs)
    await build_langgraph(dsns[1], memory_specs)
    engine = open_engine(urls[0])
    try:
        with (
            postgres_store.PostgresStore.from_conn_string(dsns[1]) as store,
            psycopg.connect(dsns[0], autocommit=True) as bare,
        ):
            return [await person_row("PostgreSQL", stored, person, engine, store, bare) for person in readers]
    finally:
        await engine.dispose()
        for url in urls:
            await asyncio.to_thread(server.drop_database, url.rsplit("/", 1)[1])


async def run(stored: Sequence[int], backends: Sequence[str], rows: list[Row]) -> list[Row]:
    """The rows of every backend and size, appended to `rows` as each is measured."""
    readers = people(APPLICABLE)
    if "sqlite" in backends:
        for size in stored:
            rows += await sqlite_rows(size, readers)
    if "postgres" in backends:
        reason = missing_binaries()
        if reason is not None:
            print(f"PostgreSQL skipped: {reason}")
            return rows
        server = PostgresServer().start()
        try:
            for size in stored:
                rows += await postgres_rows(server, size, readers)
        finally:
            server.stop()
    return rows


def _verdict(ratio: float, target: float | None) -> str:
    return "" if target is None else f" ≤{target:g} {'ok' if ratio <= target else 'MISSED'}"


def render(rows: list[Row]) -> str:
    header = (
        "| backend    |    stored | applicable | LangGraph search ×3 | LangGraph batch | OnFile digest "
        "| rules re-run | driver raw | bare sync | OnFile ÷ LangGraph | ÷ driver raw | ÷ bare sync |"
    )
    lines = [header, "|" + "|".join("-" * len(cell) for cell in header.split("|")[1:-1]) + "|"]
    for r in rows:
        faster = min(r.langgraph_search, r.langgraph_batch)
        small = r.applicable == min(APPLICABLE)
        peer = f"{r.onfile / faster:.2f}{_verdict(r.onfile / faster, TARGETS.get(r.applicable))}"
        raw = f"{r.onfile / r.raw:.2f}{_verdict(r.onfile / r.raw, RAW_TARGET if small else None)}"
        bare = f"{r.onfile / r.bare:.2f}{_verdict(r.onfile / r.bare, BARE_TARGET if small else None)}"
        lines.append(
            f"| {r.backend:<10} | {r.stored:>9,} | {r.applicable:>10,} | {r.langgraph_search:>19.3f} "
            f"| {r.langgraph_batch:>15.3f} | {r.onfile:>13.3f} | {r.rules_run:>12.3f} "
            f"| {r.raw:>10.3f} | {r.bare:>9.3f} | {peer:>18} | {raw:>12} | {bare:>11} |"
        )
    return "\n".join(lines)


def versions() -> str:
    names = ("langgraph-checkpoint-sqlite", "langgraph-checkpoint-postgres", "psycopg", "sqlalchemy", "aiosqlite")
    found = ", ".join(f"{name} {version(name)}" for name in (*names, "asyncpg"))
    return f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, {found}"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.peer", description=__doc__.split("\n\n")[0])
    parser.add_argument("--stored", default=",".join(map(str, STORED)), help="comma-separated store sizes")
    parser.add_argument("--backends", default="sqlite,postgres", help="comma-separated: sqlite, postgres")
    args = parser.parse_args()
    started = time.perf_counter()
    stored = [int(size) for size in args.stored.split(",") if size]
    rows: list[Row] = []
    try:
        asyncio.run(run(stored, tuple(args.backends.split(",")), rows))
    finally:
        print(render(rows))
    print(f"\n{versions()}")
    print(f"(ran in {time.perf_counter() - started:.0f} s; median ms of one turn; ratios are OnFile's digest's)")


if __name__ == "__main__":
    main()
