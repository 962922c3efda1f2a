"""A provider that keeps memories in a dict: for tests, examples and the demo's first minutes.

It honours every rule a real provider must: upsert on (scope, key) keeping id, pin and creation
time; agent-authored writes only at the actor's own scope; forget only at the actor's own scope;
search in the design's three clauses, and recall by words and meaning as the SQL provider recalls.
Records are frozen values, so nothing a caller holds can change what is stored.
"""

from __future__ import annotations

import builtins
import itertools
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime

from msgspec.structs import replace

from store.domain.recall import RANKING_WINDOW, content_words, fuse_rankings, listed_keys, meaning_text
from store.domain.relevance import CorpusStats, bm25_score, query_words, record_words
from store.domain.scopes import own_scope, scope_ranks
from store.domain.types import Actor, MemoryOrigin, MemoryRecord, ScopeContext
from store.embedding import Embedder, EmbedderError, embedding_text, nearest_keys, vector_bytes
from store.provider import Recall, WriteRefusedError

__all__ = ("InMemoryMemoryProvider",)

_NOBODY = ScopeContext(actor=Actor(id=""))
"""The search asks its context nothing: ranking needs only the scopes."""


def _utc_now() -> datetime:
    return datetime.now(UTC)


class InMemoryMemoryProvider:
    """Memories in a dict, keyed by id, with a (scope, key) index for the upsert."""

    def __init__(
        self,
        records: Iterable[MemoryRecord] = (),
        *,
        clock: Callable[[], datetime] = _utc_now,
        id_factory: Callable[[], str] | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        counter = itertools.count(1)
        self._embedder = embedder
        self._vectors: dict[tuple[str, str], bytes] = {}
        self._clock = clock
        self._new_id = id_factory or (lambda: f"mem_{next(counter):06d}")
        self._by_id: dict[str, MemoryRecord] = {}
        self._by_scope_key: dict[tuple[str, str], str] = {}
        self._created_at: dict[str, datetime] = {}
        for record in records:
            self.add(record)

    def add(self, record: MemoryRecord) -> None:
        """Seed a record as it is (id, times and pin included), replacing any at its (scope, key)."""
        previous = self._by_scope_key.get((record.scope, record.key))
        if previous is not None:
            self._remove(previous)
        self._by_id[record.id] = record
        self._by_scope_key[(record.scope, record.key)] = record.id
        self._created_at[record.id] = record.updated_at

    def created_at(self, id: str) -> datetime | None:
        """When the record `id` was first written (an upsert never changes it)."""
        return self._created_at.get(id)

    async def list(self, *, scopes: Sequence[str], ctx: ScopeContext) -> Sequence[MemoryRecord]:
        wanted = set(scopes)
        return tuple(r for r in self._by_id.values() if r.scope in wanted)

    async def write(self, *, key: str, text: str, scope: str, origin: MemoryOrigin, ctx: ScopeContext) -> MemoryRecord:
        if origin.author != "human" and scope != own_scope(ctx.actor):
            msg = f"The assistant may write only at {own_scope(ctx.actor)}, not at {scope}."
            raise WriteRefusedError(msg)
        now = self._clock()
        existing_id = self._by_scope_key.get((scope, key))
        if existing_id is None:
            record = MemoryRecord(id=self._new_id(), key=key, text=text, scope=scope, origin=origin, updated_at=now)
            self._created_at[record.id] = now
        else:
            record = replace(self._by_id[existing_id], text=text, origin=origin, updated_at=now)
        self._by_id[record.id] = record
        self._by_scope_key[(scope, key)] = record.id
        return record

    async def forget(self, *, id: str, ctx: ScopeContext) -> bool:
        record = self._by_id.get(id)
        if record is None or record.scope != own_scope(ctx.actor):
            return False
        self._remove(id)
        return True

    async def forget_all(self, *, ctx: ScopeContext) -> int:
        """Delete everything held at the actor's own scope; how many records went."""
        mine = [r.id for r in self._by_id.values() if r.scope == own_scope(ctx.actor)]
        for id in mine:
            self._remove(id)
        return len(mine)

    async def forget_many(
        self, *, ids: Sequence[str], ctx: ScopeContext
    ) -> builtins.list[tuple[MemoryRecord, datetime]]:
        """Delete each of `ids` held at the actor's own scope (any other id is left alone, a repeated one
        counts once); each record as it went, with its creation time, so that it can be put back."""
        own = own_scope(ctx.actor)
        gone: builtins.list[tuple[MemoryRecord, datetime]] = []
        for id in dict.fromkeys(ids):
            record = self._by_id.get(id)
            if record is None or record.scope != own:
                continue
            gone.append((record, self._created_at.get(id, record.updated_at)))
            self._remove(id)
        return gone

    async def put_back(
        self, records: Sequence[tuple[MemoryRecord, datetime]], *, ctx: ScopeContext
    ) -> builtins.list[str]:
        """Insert forgotten records again exactly as they were (id, text, origin, times, pin): only at
        the actor's own scope, and never over a record holding the id or the (scope, key) now. The
        ids put back."""
        own = own_scope(ctx.actor)
        back: builtins.list[str] = []
        for record, created in records:
            if record.scope != own or record.id in self._by_id or (record.scope, record.key) in self._by_scope_key:
                continue
            self._by_id[record.id] = record
            self._by_scope_key[(record.scope, record.key)] = record.id
            self._created_at[record.id] = created
            back.append(record.id)
        return back

    async def pin(self, id: str, pinned: bool) -> bool:
        """Mark a record always-on (or not): the console's act, which no agent path reaches."""
        record = self._by_id.get(id)
        if record is None:
            return False
        self._by_id[id] = replace(record, pinned=pinned)
        return True

    async def search(
        self, *, scopes: Sequence[str], query: str, limit: int, ctx: ScopeContext
    ) -> Sequence[MemoryRecord]:
        """Okapi BM25 between the query's words and a record's key and text, each word's document count
        taken within the record's scope (`store.domain.relevance`, as SQLite's search ranks). A key
        scores its best record; ties go to the narrower scope, then the newest, then the key. A query
        with no words is a list read: every record at the scopes, narrowest scope first, newest first.

        A pinned key comes back with all its records, not only the pinned one: a pin belongs to the
        question, so a personal override of a pinned organisation fact must ride along with it."""
        ranks = scope_ranks(scopes)
        in_scope = [r for r in self._by_id.values() if r.scope in ranks]
        words = query_words(query)
        if not words:
            return tuple(sorted(in_scope, key=lambda r: (ranks[r.scope], -r.updated_at.timestamp(), r.key)))
        held = {r.id: record_words(r.key, r.text) for r in self._by_id.values()}
        stats = CorpusStats.of((r.scope, held[r.id]) for r in self._by_id.values())
        best: dict[str, tuple[int, int, float]] = {}
        for record in in_scope:
            if set(words).isdisjoint(held[record.id]):
                continue  # a record is a candidate when it holds a word, as a posting makes it one in SQL
            score = bm25_score(words, record.scope, held[record.id], stats)
            candidate = (-score, ranks[record.scope], -record.updated_at.timestamp())
            if record.key not in best or candidate < best[record.key]:
                best[record.key] = candidate
        top = sorted(best, key=lambda k: (best[k], k))[: max(limit, 0)]
        position = {key: i for i, key in enumerate(top)}
        pinned_keys = {r.key for r in in_scope if r.pinned}
        chosen: builtins.list[MemoryRecord] = [r for r in in_scope if r.key in position or r.key in pinned_keys]
        chosen.sort(key=lambda r: (position.get(r.key, len(position)), ranks[r.scope], r.key))
        return tuple(chosen)

    async def recall(self, *, scopes: Sequence[str], query: str, limit: int, ctx: ScopeContext) -> Recall:
        """As `SqlMemoryProvider.recall`: everything when its keys fit under `limit`; otherwise the
        lexical ranking (`search`'s) and the one by meaning, fused, filled to `limit` keys in listed
        order, with every record of the chosen and the pinned keys. Vectors are made when first needed
        and kept per (key, text)."""
        ranks = scope_ranks(scopes)
        in_scope = sorted(
            (r for r in self._by_id.values() if r.scope in ranks),
            key=lambda r: (ranks[r.scope], -r.updated_at.timestamp(), r.key),
        )
        if len({r.key for r in in_scope}) <= limit:
            return Recall(records=tuple(in_scope), ranked=False)
        chosen, pinned, keys = await self._ranking(scopes, in_scope, query, limit)
        order = {key: n for n, key in enumerate(dict.fromkeys([*chosen, *pinned]))}
        found = sorted((r for r in in_scope if r.key in order), key=lambda r: (order[r.key], ranks[r.scope]))
        return Recall(records=tuple(found), ranked=True, keys=keys, pinned_keys=len(pinned))

    async def rank_keys(
        self, *, scopes: Sequence[str], query: str, limit: int, ctx: ScopeContext
    ) -> builtins.list[str]:
        """As `SqlMemoryProvider.rank_keys`: the hybrid ranking's best `limit` keys, however few apply."""
        ranks = scope_ranks(scopes)
        in_scope = sorted(
            (r for r in self._by_id.values() if r.scope in ranks),
            key=lambda r: (ranks[r.scope], -r.updated_at.timestamp(), r.key),
        )
        return (await self._ranking(scopes, in_scope, query, limit))[0]

    async def _ranking(
        self, scopes: Sequence[str], in_scope: Sequence[MemoryRecord], query: str, limit: int
    ) -> tuple[builtins.list[str], builtins.list[str], int]:
        window = max(RANKING_WINDOW, limit)
        words = set(content_words(query_words(query)))
        lexical: builtins.list[str] = []
        if words:
            # the search's ranked keys, without the pinned keys it appends unranked
            ranked = await self.search(scopes=scopes, query=" ".join(words), limit=window, ctx=_NOBODY)
            matching = {r.key for r in in_scope if not words.isdisjoint(record_words(r.key, r.text))}
            lexical = [key for key in dict.fromkeys(r.key for r in ranked) if key in matching]
        semantic = await self._nearest(query, in_scope, window)
        listed, pinned = listed_keys((r.key, r.pinned) for r in in_scope)
        return fuse_rankings((lexical, semantic), listed, limit), pinned, len(listed)

    async def _nearest(self, query: str, records: Sequence[MemoryRecord], most: int) -> builtins.list[str]:
        if self._embedder is None or not query.strip():
            return []
        missing = list(dict.fromkeys((r.key, r.text) for r in records if (r.key, r.text) not in self._vectors))
        try:
            if missing:
                made = await self._embedder.embed([embedding_text(key, text) for key, text in missing])
                self._vectors.update(zip(missing, vector_bytes(made), strict=True))
            wanted = (await self._embedder.embed([meaning_text(query)]))[0]
        except EmbedderError:
            return []
        return nearest_keys(wanted, [r.key for r in records], [self._vectors[(r.key, r.text)] for r in records], most)

    def _remove(self, id: str) -> None:
        record = self._by_id.pop(id)
        del self._by_scope_key[(record.scope, record.key)]
        self._created_at.pop(id, None)
