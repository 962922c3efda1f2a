"""`SqlMemoryProvider`: memories in `agent_memory`, on SQLite or PostgreSQL, behaving exactly as the
in-memory reference provider does (the contract suite runs the same tests over all three)."""

from __future__ import annotations

import builtins
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncEngine

from store.domain.scopes import own_scope
from store.domain.types import MemoryOrigin, MemoryRecord, ScopeContext, Shortlist
from store.persistence.driver import borrowed_reading
from store.persistence.engine import joined_writes, reading, writing
from store.persistence.memories import (
    delete_record,
    delete_record_at_scope,
    delete_record_returning,
    delete_records_at_scope,
    insert_records,
    record_at,
    record_by_id,
    record_created_at,
    record_locked,
    records_at_scopes,
    records_narrowest_newest_first,
    rewrite_record,
    set_pinned,
    set_pinned_returning,
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
        _refuse_agent_beyond_own_scope(scope, origin, ctx)
        async with writing(self._engine) as connection:
            return await upsert_record(connection, key=key, text=text, scope=scope, origin=origin, now=self._clock())

    @asynccontextmanager
    async def together(self) -> AsyncIterator[None]:
        """One write transaction for the block: the provider's writes inside it, and those of any
        repository on the same engine (the audit trail), commit together or not at all."""
        async with joined_writes(self._engine):
            yield

    async def replace(
        self, *, key: str, text: str, scope: str, origin: MemoryOrigin, ctx: ScopeContext
    ) -> tuple[MemoryRecord | None, MemoryRecord]:
        """`write`, answering also the record it replaced (None for a new key), read under the row's
        lock in the same transaction, so what a trail records as before is what was replaced."""
        _refuse_agent_beyond_own_scope(scope, origin, ctx)
        async with writing(self._engine) as connection:
            before = await record_locked(connection, scope=scope, key=key)
            now = self._clock()
            return before, await upsert_record(connection, key=key, text=text, scope=scope, origin=origin, now=now)

    async def rewrite(
        self, id: str, *, scope: str, text: str, origin: MemoryOrigin
    ) -> tuple[MemoryRecord, MemoryRecord] | None:
        """A new text for the existing record `id` at `scope`, by id, never an insert: (before, after),
        or None when it is not there (deleted meanwhile)."""
        async with writing(self._engine) as connection:
            return await rewrite_record(connection, id=id, scope=scope, text=text, origin=origin, now=self._clock())

    async def repin(self, id: str, *, scope: str, pinned: bool) -> tuple[MemoryRecord, MemoryRecord] | None:
        """Pin or unpin the existing record `id` at `scope`: (before, after), or None when it is not there."""
        async with writing(self._engine) as connection:
            return await set_pinned_returning(connection, id=id, scope=scope, pinned=pinned)

    async def retire_at(self, id: str, *, scope: str) -> MemoryRecord | None:
        """The administrative delete of `id` held at `scope`: the record as it was, or None."""
        async with writing(self._engine) as connection:
            return await delete_record_returning(connection, id=id, scope=scope)

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


def _refuse_agent_beyond_own_scope(scope: str, origin: MemoryOrigin, ctx: ScopeContext) -> None:
    if origin.author != "human" and scope != own_scope(ctx.actor):
        msg = f"The assistant may write only at {own_scope(ctx.actor)}, not at {scope}."
        raise WriteRefusedError(msg)
