"""`SqlMemoryProvider`: memories in `agent_memory`, on SQLite or PostgreSQL, behaving exactly as the
in-memory reference provider does (the contract suite runs the same tests over all three)."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncEngine

from store.domain.scopes import own_scope
from store.domain.types import MemoryOrigin, MemoryRecord, ScopeContext, Shortlist
from store.persistence.driver import borrowed_reading
from store.persistence.engine import reading, writing
from store.persistence.memories import (
    delete_record,
    delete_record_at_scope,
    delete_records_at_scope,
    insert_records,
    record_at,
    record_by_id,
    record_created_at,
    records_at_scopes,
    records_narrowest_newest_first,
    set_pinned,
    upsert_record,
)
from store.persistence.search import query_words, records_by_relevance
from store.persistence.shortlist import records_shortlisted
from store.persistence.types import utc_now
from store.provider import WriteRefusedError

__all__ = ("SqlMemoryProvider",)


class SqlMemoryProvider:
    """A `MemoryProvider`, `WritableMemoryProvider`, `SearchableMemoryProvider` and
    `ShortlistingMemoryProvider` over one engine.

    The engine belongs to the caller (who disposes of it); the schema must be migrated first."""

    def __init__(self, engine: AsyncEngine, *, clock: Callable[[], datetime] = utc_now) -> None:
        self._engine = engine
        self._clock = clock

    @property
    def engine(self) -> AsyncEngine:
        """The engine the provider reads and writes through (the caller's, who disposes of it)."""
        return self._engine

    async def list(self, *, scopes: Sequence[str], ctx: ScopeContext) -> Sequence[MemoryRecord]:
        """Every record at one of `scopes`; no scopes asks the database nothing."""
        if not scopes:
            return ()
        async with borrowed_reading(self._engine) as connection:
            return tuple(await records_at_scopes(connection, scopes))

    async def shortlist(self, *, scopes: Sequence[str], limit: int, ctx: ScopeContext) -> Shortlist:
        """A listed turn's records cut to the `limit` keys its block holds, in one statement (see
        `store.persistence.shortlist`); no scopes asks the database nothing."""
        if not scopes:
            return Shortlist(records=(), keys=0, pinned_keys=0)
        async with borrowed_reading(self._engine) as connection:
            return await records_shortlisted(connection, scopes=scopes, limit=limit)

    async def write(self, *, key: str, text: str, scope: str, origin: MemoryOrigin, ctx: ScopeContext) -> MemoryRecord:
        """One upsert on (scope, key) keeping id, pin and creation time. Refuses an agent-authored
        record at any scope but the actor's own — the backstop behind the write verdict."""
        if origin.author != "human" and scope != own_scope(ctx.actor):
            msg = f"The assistant may write only at {own_scope(ctx.actor)}, not at {scope}."
            raise WriteRefusedError(msg)
        async with writing(self._engine) as connection:
            return await upsert_record(connection, key=key, text=text, scope=scope, origin=origin, now=self._clock())

    async def forget(self, *, id: str, ctx: ScopeContext) -> bool:
        """Delete `id` only when it is held at the actor's own scope; "no such id" and "not yours"
        both answer False."""
        async with writing(self._engine) as connection:
            return await delete_record_at_scope(connection, id=id, scope=own_scope(ctx.actor))

    async def forget_all(self, *, ctx: ScopeContext) -> int:
        """Delete everything held at the actor's own scope, at once; how many records went."""
        async with writing(self._engine) as connection:
            return await delete_records_at_scope(connection, scope=own_scope(ctx.actor))

    async def retire_scope(self, scope: str) -> int:
        """The administrative delete of a whole scope (a person's erasure); how many records went."""
        async with writing(self._engine) as connection:
            return await delete_records_at_scope(connection, scope=scope)

    async def pin(self, id: str, pinned: bool) -> bool:
        """Mark a record always-on (or not): the console's act, which no agent path reaches."""
        async with writing(self._engine) as connection:
            return await set_pinned(connection, id=id, pinned=pinned)

    async def search(
        self, *, scopes: Sequence[str], query: str, limit: int, ctx: ScopeContext
    ) -> Sequence[MemoryRecord]:
        """Relevance selection in one statement (see `store.persistence.search`). A query with no
        words is a list read: every record at the scopes, narrowest scope first, newest first."""
        if not scopes:
            return ()
        words = query_words(query)
        async with borrowed_reading(self._engine) as connection:
            if not words:
                return tuple(await records_narrowest_newest_first(connection, scopes))
            return tuple(await records_by_relevance(connection, scopes=scopes, words=words, limit=limit))

    async def get(self, id: str) -> MemoryRecord | None:
        """The record `id`, whoever holds it: for the console, which checks visibility itself."""
        async with reading(self._engine) as connection:
            return await record_by_id(connection, id)

    async def at_scope_key(self, scope: str, key: str) -> MemoryRecord | None:
        """The record held at (scope, key), if any."""
        async with reading(self._engine) as connection:
            return await record_at(connection, scope=scope, key=key)

    async def retire(self, id: str) -> bool:
        """The administrative delete: remove `id` whatever its scope. Only the elevated area calls it,
        after its own checks; no agent path and no personal page reaches it."""
        async with writing(self._engine) as connection:
            return await delete_record(connection, id=id)

    async def created_at(self, id: str) -> datetime | None:
        """When the record `id` was first written (an upsert never changes it)."""
        async with reading(self._engine) as connection:
            return await record_created_at(connection, id)

    async def add(self, records: Iterable[MemoryRecord]) -> None:
        """Store records as they are (ids, times, pins), replacing any at the same (scope, key)."""
        batch: builtins.list[MemoryRecord] = builtins.list(records)
        async with writing(self._engine) as connection:
            await insert_records(connection, batch)
