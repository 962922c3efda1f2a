"""`SqlMemoryProvider`: memories in `agent_memory`, on SQLite or PostgreSQL, behaving exactly as the
in-memory reference provider does (the contract suite runs the same tests over all three).

Given an embedder, every write stores the record's vector in its row (computed before the write
transaction, so a slow embedding service never holds the writer), and `recall` ranks by meaning as
well as by words. An embedder that fails does not fail the write: the record is stored without a
vector (a warning is logged) and `onfile db reembed` fills it later; a turn whose text cannot be
embedded is ranked by its words alone.
"""

from __future__ import annotations

import builtins
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from store.domain.expiry import concluded_expiry, expiry_basis
from store.domain.paging import RecordsAsk, RecordsMatching, RecordsPage
from store.domain.recall import RANKING_WINDOW, content_words, fuse_rankings, listed_keys, listed_rows, meaning_text
from store.domain.recent import Recent
from store.domain.scopes import own_scope, scope_ranks
from store.domain.types import Actor, MemoryOrigin, MemoryRecord, ScopeContext, Shortlist
from store.embedding import Embedder, EmbedderError, embedding_text, nearest_keys, vector_bytes
from store.persistence.controls import LIFETIME_OF, concluded_lifetime_of, scopes_of_people_in
from store.persistence.driver import borrowed_reading, rows_beside
from store.persistence.engine import joined_writes, reading, writing
from store.persistence.listing import records_holding, records_matching, records_of_ids, records_page
from store.persistence.memories import (
    Meaning,
    Removed,
    delete_expired_records,
    delete_record,
    delete_record_at_scope,
    delete_record_returning,
    delete_records_at_scope,
    delete_records_returning,
    expiries_at_scope,
    expiring_at_scopes,
    insert_records,
    insert_records_where_free,
    keep_record,
    meanings_at_scope,
    record_at,
    record_by_id,
    record_created_at,
    record_locked,
    records_at_scopes,
    records_at_scopes_up_to,
    records_narrowest_newest_first,
    removal_at_scope,
    reset_expiry_at_scopes,
    rewrite_record,
    set_pinned,
    set_pinned_returning,
    upsert_record,
)
from store.persistence.recall import recall_candidates, records_of_keys, store_vectors, texts_to_embed, vectors_to_make
from store.persistence.search import keys_by_relevance, query_words, records_by_relevance
from store.persistence.shortlist import RECENT_READS, WHOLE_LIST_AT_MOST, RecentReads, records_shortlisted
from store.persistence.types import utc_now
from store.provider import Recall, WriteRefusedError

_log = logging.getLogger(__name__)
_EMBEDDED_AT_ONCE = 256
_PREPARED_AT_MOST = 256

__all__ = ("SqlMemoryProvider",)


class SqlMemoryProvider:
    """A `MemoryProvider`, `WritableMemoryProvider`, `SearchableMemoryProvider`,
    `ShortlistingMemoryProvider` and `RecallingMemoryProvider` over one engine.

    The engine belongs to the caller (who disposes of it); the schema must be migrated first. Without
    an embedder, nothing is embedded and `recall` ranks by words alone. A listed turn whose rows equal
    the last turn's at its scopes is given the last turn's shortlist, for the last `recent_reads` sets
    of scopes (`store.domain.recent.Recent`; 0 keeps none)."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        clock: Callable[[], datetime] = utc_now,
        embedder: Embedder | None = None,
        recent_reads: int = RECENT_READS,
    ) -> None:
        self._engine = engine
        self._clock = clock
        self._embedder = embedder
        self._recent: RecentReads = Recent(recent_reads, setting="recent_reads")
        self._prepared: OrderedDict[tuple[str, str], Meaning | None] = OrderedDict()

    @property
    def embedder(self) -> Embedder | None:
        """What the provider embeds with (None: it ranks by words alone)."""
        return self._embedder

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
            return await records_shortlisted(connection, scopes=scopes, limit=limit, recent=self._recent)

    async def write(self, *, key: str, text: str, scope: str, origin: MemoryOrigin, ctx: ScopeContext) -> MemoryRecord:
        """One upsert on (scope, key) keeping id, pin and creation time. Refuses an agent-authored
        record at any scope but the actor's own — the backstop behind the write verdict."""
        _refuse_agent_beyond_own_scope(scope, origin, ctx)
        meaning = await self._meaning(key, text)
        async with writing(self._engine) as connection:
            return await self._upsert(
                connection, key=key, text=text, scope=scope, origin=origin, ctx=ctx, meaning=meaning
            )

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
        meaning = await self._meaning(key, text)
        async with writing(self._engine) as connection:
            before = await record_locked(connection, scope=scope, key=key)
            after = await self._upsert(
                connection, key=key, text=text, scope=scope, origin=origin, ctx=ctx, meaning=meaning
            )
            return before, after

    async def _upsert(
        self,
        connection: AsyncConnection,
        *,
        key: str,
        text: str,
        scope: str,
        origin: MemoryOrigin,
        ctx: ScopeContext,
        meaning: Meaning | None,
    ) -> MemoryRecord:
        """The upsert `write` and `replace` share: now, and what the assistant concludes expires under
        its organisation's lifetime."""
        now = self._clock()
        expires_at = concluded_expiry(origin.author, now, await self._lifetime(connection, origin, ctx))
        return await upsert_record(
            connection, key=key, text=text, scope=scope, origin=origin, now=now, meaning=meaning, expires_at=expires_at
        )

    async def _lifetime(self, connection: AsyncConnection, origin: MemoryOrigin, ctx: ScopeContext) -> int | None:
        """The lifetime, in days, of a record the write makes: only what the assistant concludes about a
        person of an organisation has one, read beside the write's transaction (`rows_beside`)."""
        if origin.author != "agent" or ctx.actor.tenant_ref is None:
            return None
        rows = await rows_beside(self._engine, connection, LIFETIME_OF, {"tenant_ref": ctx.actor.tenant_ref})
        return None if not rows else rows[0][0]

    async def rewrite(
        self, id: str, *, scope: str, text: str, origin: MemoryOrigin
    ) -> tuple[MemoryRecord, MemoryRecord] | None:
        """A new text for the existing record `id` at `scope`, by id, never an insert: (before, after),
        or None when it is not there (deleted meanwhile)."""
        current = await self.get(id) if self._embedder is not None else None
        meaning = None if current is None else await self._meaning(current.key, text)
        async with writing(self._engine) as connection:
            now = self._clock()
            return await rewrite_record(
                connection, id=id, scope=scope, text=text, origin=origin, now=now, meaning=meaning
            )

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

    async def removal(self, scope: str, ids: Sequence[str] | None = None) -> Removed:
        """What deleting the records at `scope` (only `ids`, when given) would remove now: inside
        `together()`, counted in the transaction that deletes them."""
        async with writing(self._engine) as connection:
            return await removal_at_scope(connection, scope=scope, ids=ids)

    async def forget_many(
        self, *, ids: Sequence[str], ctx: ScopeContext
    ) -> builtins.list[tuple[MemoryRecord, datetime]]:
        """Delete, in one transaction, each of `ids` held at the actor's own scope (any other id is left
        alone); each record as it went, with its creation time, so that it can be put back as it was."""
        async with writing(self._engine) as connection:
            return await delete_records_returning(connection, ids=ids, scope=own_scope(ctx.actor))

    async def meanings_before_forgetting(self, ids: Sequence[str], *, ctx: ScopeContext) -> dict[str, Meaning]:
        """The vectors of the actor's own records `ids`, by id, read in the write transaction of the
        `together()` block that forgets them: what their undo puts back with them."""
        async with writing(self._engine) as connection:
            return await meanings_at_scope(connection, ids=ids, scope=own_scope(ctx.actor))

    async def put_back(
        self,
        records: Sequence[tuple[MemoryRecord, datetime]],
        *,
        ctx: ScopeContext,
        meanings: Mapping[str, Meaning] | None = None,
    ) -> builtins.list[str]:
        """Insert forgotten records again exactly as they were (id, text, origin, creation and update
        times, pin), each with its vector, in one transaction: only at the actor's own scope, and never
        over a record holding the id or the (scope, key) now; what the assistant concluded expires as
        its organisation's lifetime says, counted from its last write. A vector kept from before (in
        `meanings`, by id) is put back as it was, when the embedder that made it is still the one in
        use; the others are made again. The ids put back."""
        own = own_scope(ctx.actor)
        mine = [(record, created) for record, created in records if record.scope == own]
        kept = meanings or {}
        current = None if self._embedder is None else self._embedder.name
        ready = {id: m for id, m in kept.items() if m.embedder == current}
        missing = [record for record, _ in mine if record.id not in ready]
        made: builtins.list[Meaning | None] = []
        for start in range(0, len(missing), _EMBEDDED_AT_ONCE):
            made.extend(await self._meanings(missing[start : start + _EMBEDDED_AT_ONCE]))
        remade = {record.id: meaning for record, meaning in zip(missing, made, strict=True)}
        meanings_in_order = [ready.get(record.id) or remade.get(record.id) for record, _ in mine]
        async with writing(self._engine) as connection:
            inserted = await insert_records_where_free(connection, mine, meanings_in_order)
            lifetime = await concluded_lifetime_of(connection, ctx.actor.tenant_ref)
            if inserted and lifetime is not None:  # what the assistant concluded comes back under its lifetime

                def expiry(updated_at: datetime, confirmed_at: datetime | None) -> datetime | None:
                    return concluded_expiry("agent", expiry_basis(updated_at, confirmed_at), lifetime)

                await reset_expiry_at_scopes(connection, [own], expiry, ids=inserted)
            return inserted

    async def keep(self, id: str, *, ctx: ScopeContext) -> bool:
        """The person keeps `id`, something the assistant concluded about them at their own scope: its
        clock starts again now, under their organisation's lifetime. False for any other id."""
        async with writing(self._engine) as connection:
            now = self._clock()
            lifetime = await concluded_lifetime_of(connection, ctx.actor.tenant_ref)
            expires_at = concluded_expiry("agent", now, lifetime)
            return await keep_record(connection, id=id, scope=own_scope(ctx.actor), now=now, expires_at=expires_at)

    async def expiries(self, ids: Sequence[str], *, ctx: ScopeContext) -> dict[str, datetime]:
        """When each of the actor's own memories `ids` that has an expiry expires (or expired), by id."""
        return await expiries_at_scope(self._engine, own_scope(ctx.actor), ids)

    async def reset_expiry(self, tenant_ref: str, lifetime_days: int | None) -> int:
        """Give what the assistant concluded about each person OnFile knows in `tenant_ref` the expiry
        `lifetime_days` sets, from its last write or keep; how many now expire."""

        def expiry(updated_at: datetime, confirmed_at: datetime | None) -> datetime | None:
            return concluded_expiry("agent", expiry_basis(updated_at, confirmed_at), lifetime_days)

        async with writing(self._engine) as connection:
            return await reset_expiry_at_scopes(connection, scopes_of_people_in(tenant_ref), expiry)

    async def expiring_at_once(self, tenant_ref: str, lifetime_days: int | None, *, now: datetime) -> tuple[int, int]:
        """How many of what the assistant concluded about the people of `tenant_ref` the lifetime
        `lifetime_days` would expire at once (by `now`), and about how many people: nothing is changed."""

        def expiry(updated_at: datetime, confirmed_at: datetime | None) -> datetime | None:
            return concluded_expiry("agent", expiry_basis(updated_at, confirmed_at), lifetime_days)

        async with reading(self._engine) as connection:
            return await expiring_at_scopes(connection, scopes_of_people_in(tenant_ref), expiry, now=now)

    async def reset_expiry_of(self, person: Actor) -> int:
        """Give what the assistant concluded about `person` the expiry their organisation now sets (none
        for a person of no organisation, or of one that set no lifetime): after they moved between
        organisations. How many of theirs now expire."""
        async with writing(self._engine) as connection:
            lifetime = await concluded_lifetime_of(connection, person.tenant_ref)

            def expiry(updated_at: datetime, confirmed_at: datetime | None) -> datetime | None:
                return concluded_expiry("agent", expiry_basis(updated_at, confirmed_at), lifetime)

            return await reset_expiry_at_scopes(connection, [own_scope(person)], expiry)

    async def drop_expired(self, *, now: datetime) -> builtins.list[tuple[str, str]]:
        """Delete every memory that expired by `now` (its vector and search index entries go with its
        row); `(id, scope)` of each."""
        async with writing(self._engine) as connection:
            return await delete_expired_records(connection, now=now)

    async def retire_scope(self, scope: str) -> int:
        """The administrative delete of a whole scope (a person's erasure); how many records went."""
        async with writing(self._engine) as connection:
            return await delete_records_at_scope(connection, scope=scope)

    async def pin(self, id: str, pinned: bool) -> bool:
        """Mark a record always-on (or not): the console's act, which no agent path reaches."""
        async with writing(self._engine) as connection:
            return await set_pinned(connection, id=id, pinned=pinned)

    async def records_page(self, ask: RecordsAsk) -> RecordsPage:
        """A page of the records on file for a person, searched, filtered, counted, ordered and paged
        by the database (`store.persistence.listing`)."""
        async with borrowed_reading(self._engine) as connection:
            return await records_page(connection, ask)

    async def records_matching(self, ask: RecordsAsk) -> RecordsMatching:
        """Every record on file for a person that passes `ask`'s filters, with no page: their own read,
        the others counted (`store.persistence.listing`), for acting on all that match."""
        async with borrowed_reading(self._engine) as connection:
            return await records_matching(connection, ask)

    async def records_holding(self, scopes: Sequence[str], keys: Sequence[str]) -> builtins.list[MemoryRecord]:
        """Every record at `scopes` of one of `keys`, expired ones included, as the read-back lists them."""
        async with reading(self._engine) as connection:
            return await records_holding(connection, scopes, keys)

    async def records_of_ids(self, scopes: Sequence[str], ids: Sequence[str]) -> builtins.list[MemoryRecord]:
        """The records `ids` held at one of `scopes`, with every record of their keys there: enough to
        resolve those keys' entries without reading anything else on file."""
        async with reading(self._engine) as connection:
            return await records_of_ids(connection, scopes, ids)

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
        meanings: builtins.list[Meaning | None] = []
        for start in range(0, len(batch), _EMBEDDED_AT_ONCE):
            meanings.extend(await self._meanings(batch[start : start + _EMBEDDED_AT_ONCE]))
        async with writing(self._engine) as connection:
            await insert_records(connection, batch, meanings)

    async def recall(self, *, scopes: Sequence[str], query: str, limit: int, ctx: ScopeContext) -> Recall:
        """Everything at `scopes` when its keys fit under `limit` (read in one statement that stops
        past `limit` keys' worth of rows, or `WHOLE_LIST_AT_MOST`); otherwise the hybrid ranking of
        `RecallingMemoryProvider`: the candidates' keys, pins and vectors, the lexical ranking, fused,
        then the chosen keys' records — best key first, narrowest scope first within a key. When that
        first read held every record, the candidates' keys and pins and the chosen records are taken
        from it (only the search and, with an embedder, the vectors are read again), and on a SQLite
        file those reads run inline (`store.persistence.driver.searched_rows`)."""
        distinct = tuple(dict.fromkeys(scopes))
        if not distinct:
            return Recall(records=(), ranked=False)
        most = max(max(limit, 0) * len(distinct), WHOLE_LIST_AT_MOST)
        async with borrowed_reading(self._engine) as connection:
            few = await records_at_scopes_up_to(connection, distinct, most)
        if few is not None and len({record.key for record in few}) <= limit:
            return Recall(records=tuple(few), ranked=False)
        chosen, pinned, keys = await self._ranking(distinct, query, limit, every=few)
        order = {key: n for n, key in enumerate(dict.fromkeys([*chosen, *pinned]))}
        if few is not None:
            found = [record for record in few if record.key in order]
        else:
            async with borrowed_reading(self._engine) as connection:
                found = await records_of_keys(connection, distinct, builtins.list(order))
        ranks = scope_ranks(distinct)
        found.sort(key=lambda record: (order[record.key], ranks[record.scope]))
        return Recall(records=tuple(found), ranked=True, keys=keys, pinned_keys=len(pinned))

    async def rank_keys(
        self, *, scopes: Sequence[str], query: str, limit: int, ctx: ScopeContext
    ) -> builtins.list[str]:
        """The best `limit` keys at `scopes` for `query` by the hybrid ranking `recall` uses, best
        first, however few keys there are: for a person asking their own page for related memories."""
        distinct = tuple(dict.fromkeys(scopes))
        return (await self._ranking(distinct, query, limit))[0] if distinct else []

    async def _ranking(
        self, scopes: tuple[str, ...], query: str, limit: int, *, every: Sequence[MemoryRecord] | None = None
    ) -> tuple[builtins.list[str], builtins.list[str], int]:
        """The fused ranking's best `limit` keys at `scopes`, the keys pinned there, and how many keys
        apply. `every`, when given, is every record at `scopes`: with no vector to compare, the
        candidates are taken from it instead of read."""
        words = content_words(query_words(query))
        wanted = await self._query_vector(query)
        window = max(RANKING_WINDOW, limit)
        embedder = None if wanted is None or self._embedder is None else self._embedder.name
        async with borrowed_reading(self._engine) as connection:
            rows: builtins.list[tuple[str, bool]]
            vector_keys: builtins.list[str] = []
            vectors: builtins.list[bytes] = []
            few = every is not None
            if few and embedder is None:
                rows = listed_rows(every or (), scopes)
            else:
                rows, vector_keys, vectors = await recall_candidates(connection, scopes, embedder, few=few)
            lexical = await keys_by_relevance(connection, scopes=scopes, words=words, limit=window, few=few)
        listed, pinned = listed_keys(rows)
        semantic = [] if wanted is None else nearest_keys(wanted, vector_keys, vectors, window)
        return fuse_rankings((lexical, semantic), listed, limit), pinned, len(listed)

    async def reembed(self, *, everything: bool = False, progress: Callable[[int, int], None] | None = None) -> int:
        """Give every record without a vector of the provider's embedder one (`everything`: rebuild
        them all), a batch at a time, each batch its own short write; `progress(done, total)` after
        each. How many records got a vector. Raises `EmbedderError` when the embedder fails."""
        embedder = self._embedder
        if embedder is None:
            return 0
        async with reading(self._engine) as connection:
            total = await vectors_to_make(connection, embedder=embedder.name, everything=everything)
        done = stored = last = 0
        while True:
            async with reading(self._engine) as connection:
                batch = await texts_to_embed(
                    connection, embedder=embedder.name, everything=everything, after=last, most=_EMBEDDED_AT_ONCE
                )
            if not batch:
                return stored
            vectors = vector_bytes(await embedder.embed([embedding_text(key, text) for _, key, text in batch]))
            rows = [(seq, text, vector) for (seq, _, text), vector in zip(batch, vectors, strict=True)]
            async with writing(self._engine) as connection:
                stored += await store_vectors(connection, rows, embedder.name)
            done, last = done + len(batch), batch[-1][0]
            if progress is not None:
                progress(min(done, total), total)

    async def _query_vector(self, query: str) -> Any:
        """The turn's text as a vector, or None (no embedder, no text, or the embedder failed)."""
        if self._embedder is None or not query.strip():
            return None
        try:
            return (await self._embedder.embed([meaning_text(query)]))[0]
        except EmbedderError as error:
            _log.warning("a turn is ranked by its words alone: %s", error)
            return None

    async def prepare_write(self, *, key: str, text: str) -> None:
        """Embed (key, text) now, outside any transaction, for the write that follows: a journaled
        `remember` and an administrator's publish or edit write inside a transaction that holds the
        writer, which an embedding (a millisecond here, a network call for a service) must not lengthen.
        At most `_PREPARED_AT_MOST` are kept for writes that never come (a refused write)."""
        if self._embedder is None:
            return
        self._prepared[(key, text)] = (await self._meanings([(key, text)]))[0]
        while len(self._prepared) > _PREPARED_AT_MOST:
            self._prepared.popitem(last=False)

    async def _meaning(self, key: str, text: str) -> Meaning | None:
        if (key, text) in self._prepared:  # the same text always embeds alike: whichever write takes it
            return self._prepared.pop((key, text))
        return (await self._meanings([(key, text)]))[0]

    async def _meanings(self, items: Sequence[MemoryRecord | tuple[str, str]]) -> builtins.list[Meaning | None]:
        """Each record's (or `(key, text)`'s) vector, or None for all of them when the embedder fails."""
        pairs = [(item.key, item.text) if isinstance(item, MemoryRecord) else item for item in items]
        embedder = self._embedder
        if embedder is None or not pairs:
            return [None] * len(pairs)
        try:
            vectors = await embedder.embed([embedding_text(key, text) for key, text in pairs])
        except EmbedderError as error:
            _log.warning("%d memories stored without a vector (onfile db reembed fills them): %s", len(pairs), error)
            return [None] * len(pairs)
        return [Meaning(embedder.name, vector) for vector in vector_bytes(vectors)]


def _refuse_agent_beyond_own_scope(scope: str, origin: MemoryOrigin, ctx: ScopeContext) -> None:
    if origin.author != "human" and scope != own_scope(ctx.actor):
        msg = f"The assistant may write only at {own_scope(ctx.actor)}, not at {scope}."
        raise WriteRefusedError(msg)
