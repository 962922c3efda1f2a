"""The conversation registry: which threads and runs OnFile has seen, and which are gone.

A memory's origin points at a thread and a run. The registry answers whether that pointer still
resolves, so the read-back can mark a dangling one; it never deletes a memory.

Resolution rules:
- an origin without a thread (a person's own write) always resolves;
- a thread OnFile never heard of resolves: OnFile cannot know it is gone, and "unknown" must not read
  as "deleted";
- a deleted thread does not resolve, nor does any run in it;
- a run the history ceiling dropped does not resolve; a run never registered, on a live thread, does.

Deleting a thread or dropping a run leaves a tombstone, so it stays gone; registering a run on a
deleted thread later does not bring the thread back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from itertools import zip_longest
from typing import Any

from sqlalchemy import BindParameter, Column, Insert, Table, bindparam, delete, literal, or_, select, union_all, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from store.persistence.driver import Selecting, run_statement
from store.persistence.engine import writing
from store.persistence.keyed import KeyedStatement, key_chunks
from store.persistence.tables import ConversationRunRow, ConversationThreadRow, table_of
from store.persistence.types import utc_now

__all__ = ("ConversationRegistry", "Origin", "RunsOnAnotherThreadError")

threads = table_of(ConversationThreadRow)
runs = table_of(ConversationRunRow)


@dataclass(frozen=True, slots=True)
class Origin:
    """The conversation pointer of a memory's origin: a thread, and the run within it."""

    thread_id: str | None
    run_id: str | None = None


class RunsOnAnotherThreadError(ValueError):
    """Runs named as dropped from one thread's history were registered on another thread."""

    def __init__(self, thread_id: str, run_ids: Iterable[str]) -> None:
        self.run_ids = tuple(run_ids)
        named = ", ".join(f"“{run_id}”" for run_id in self.run_ids[:10])
        if len(self.run_ids) > 10:
            named += f" and {len(self.run_ids) - 10} more"
        super().__init__(
            f"Nothing was marked: these runs belong to another thread than “{thread_id}”, so they cannot have "
            f"been dropped from its history: {named}."
        )


class ConversationRegistry:
    def __init__(self, engine: AsyncEngine, *, clock: Callable[[], datetime] = utc_now) -> None:
        self._engine = engine
        self._clock = clock

    async def register_run(self, run_id: str, thread_id: str, actor_id: str) -> None:
        """Record that `run_id` ran in `thread_id` for `actor_id`. Registering twice changes nothing."""
        values = {"run_id": run_id, "thread_id": thread_id, "actor": actor_id, "registered_at": self._clock()}
        async with writing(self._engine) as connection:
            await _ensure_thread(connection, thread_id, actor_id)
            await run_statement(connection, _insert_or_ignore(connection, runs), values, deferrable=True)

    async def delete_thread(self, thread_id: str) -> None:
        """Mark the thread deleted (a tombstone, known or not): its origins stop resolving."""
        now = self._clock()
        async with writing(self._engine) as connection:
            await _ensure_thread(connection, thread_id, None)
            await connection.execute(
                update(threads).where(threads.c.id == thread_id, threads.c.deleted_at.is_(None)).values(deleted_at=now)
            )

    async def drop_runs(self, thread_id: str, run_ids: Iterable[str]) -> None:
        """Mark runs dropped from `thread_id`'s history (registering the ones never seen). A run
        registered on another thread was not in this one's history: `RunsOnAnotherThreadError`, and
        nothing is marked (one wrong id in a list is the runtime's mistake, not a partial success)."""
        wanted = list(dict.fromkeys(run_ids))
        if not wanted:
            return
        now = self._clock()
        async with writing(self._engine) as connection:
            elsewhere = await connection.execute(
                select(runs.c.run_id).where(runs.c.run_id.in_(wanted), runs.c.thread_id != thread_id)
            )
            strangers = sorted(elsewhere.scalars())
            if strangers:
                raise RunsOnAnotherThreadError(thread_id, strangers)
            await _ensure_thread(connection, thread_id, None)
            rows = [{"run_id": r, "thread_id": thread_id, "actor": None, "registered_at": now} for r in wanted]
            await connection.execute(_insert_or_ignore(connection, runs), rows)
            await connection.execute(
                update(runs)
                .where(runs.c.run_id.in_(wanted), runs.c.thread_id == thread_id, runs.c.dropped_at.is_(None))
                .values(dropped_at=now)
            )

    async def erase_actor(self, actor_id: str) -> int:
        """Forget the conversations of `actor_id` (their erasure): their runs, and their threads with every
        run in them. Their memories' origins then resolve as unknown threads do. How many rows went."""
        async with writing(self._engine) as connection:
            own_threads = select(threads.c.id).where(threads.c.actor == actor_id)
            gone_runs = await connection.execute(
                delete(runs).where(or_(runs.c.actor == actor_id, runs.c.thread_id.in_(own_threads)))
            )
            gone_threads = await connection.execute(delete(threads).where(threads.c.actor == actor_id))
        return gone_runs.rowcount + gone_threads.rowcount

    async def origins_resolve(self, origins: Iterable[Origin]) -> frozenset[Origin]:
        """Which of `origins` still resolve (see the module's rules), asking the database once."""
        given = set(origins)
        thread_ids = sorted({o.thread_id for o in given if o.thread_id is not None})
        run_ids = sorted({o.run_id for o in given if o.thread_id is not None and o.run_id is not None})
        if not thread_ids:
            return frozenset(given)
        gone: set[tuple[str, str]] = set()
        for in_threads, in_runs in zip_longest(key_chunks(thread_ids), key_chunks(run_ids), fillvalue=()):
            gone.update((kind, ref) for kind, ref in await _GONE.rows(self._engine, in_threads, in_runs))
        return frozenset(o for o in given if _resolves(o, gone))


def _gone(thread_ids: list[BindParameter[Any]], run_ids: list[BindParameter[Any]]) -> Selecting:
    """Which of the threads named were deleted and which of the runs named were dropped, as (kind, id):
    for at least one of the two lists."""
    parts = []
    if thread_ids:
        parts.append(
            select(literal("thread").label("kind"), threads.c.id.label("ref")).where(
                threads.c.id.in_(thread_ids), threads.c.deleted_at.is_not(None)
            )
        )
    if run_ids:
        parts.append(
            select(literal("run").label("kind"), runs.c.run_id.label("ref")).where(
                runs.c.run_id.in_(run_ids), runs.c.dropped_at.is_not(None)
            )
        )
    return union_all(*parts) if len(parts) > 1 else parts[0]


_GONE = KeyedStatement(_gone)


def _resolves(origin: Origin, gone: set[tuple[str, str]]) -> bool:
    if origin.thread_id is None:
        return True
    if ("thread", origin.thread_id) in gone:
        return False
    return origin.run_id is None or ("run", origin.run_id) not in gone


async def _ensure_thread(connection: AsyncConnection, thread_id: str, actor_id: str | None) -> None:
    values = {"id": thread_id, "actor": actor_id, "deleted_at": None}
    await run_statement(connection, _insert_or_ignore(connection, threads), values, deferrable=True)


# Built once, every value a named parameter: every new run registers itself, and building an insert
# costs more than SQLite running it.
_registered: dict[str, tuple[Column[object], ...]] = {
    threads.name: (threads.c.id, threads.c.actor, threads.c.deleted_at),
    runs.name: (runs.c.run_id, runs.c.thread_id, runs.c.actor, runs.c.registered_at),
}
_IGNORING: dict[tuple[str, str], Insert] = {
    (name, table.name): insert(table)
    .values({c.name: bindparam(c.name) for c in _registered[table.name]})
    .on_conflict_do_nothing()
    for name, insert in (("postgresql", postgresql.insert), ("sqlite", sqlite.insert))
    for table in (threads, runs)
}


def _insert_or_ignore(connection: AsyncConnection, table: Table) -> Insert:
    """An insert that leaves an existing row (same primary key) as it is; the values go with the execution."""
    return _IGNORING[connection.dialect.name, table.name]
