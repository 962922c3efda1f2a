"""The provider seam: where memories live. `list` and `forget` are required; `write` and `search`
are optional, and the product notices which a provider has.

A provider without `write` is never offered the `remember` tool; one without `search` serves every
turn from `list`, exactly as before. One with `shortlist` applies a listed turn's ceiling in its own
query, so a turn reads the keys its block can hold instead of everything that applies. One with
`recall` ranks by words and by meaning together and never leaves room in the block unused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from store.domain.types import MemoryOrigin, MemoryRecord, ScopeContext, Shortlist

__all__ = (
    "MemoryProvider",
    "PreparingMemoryProvider",
    "Recall",
    "RecallingMemoryProvider",
    "SearchableMemoryProvider",
    "ShortlistingMemoryProvider",
    "WritableMemoryProvider",
    "WriteRefusedError",
)


class WriteRefusedError(Exception):
    """A provider's own refusal of a write: the backstop behind the write verdict, never the boundary."""


@runtime_checkable
class MemoryProvider(Protocol):
    async def list(self, *, scopes: Sequence[str], ctx: ScopeContext) -> Sequence[MemoryRecord]:
        """Every record held at one of `scopes`. Asked on every turn: keep it cheap."""
        ...

    async def forget(self, *, id: str, ctx: ScopeContext) -> bool:
        """Delete the record `id` if it is held at the actor's own scope; whether a record went.

        "No such id" and "not yours" answer the same False."""
        ...


@runtime_checkable
class WritableMemoryProvider(MemoryProvider, Protocol):
    async def write(self, *, key: str, text: str, scope: str, origin: MemoryOrigin, ctx: ScopeContext) -> MemoryRecord:
        """Upsert on (scope, key): a rewrite keeps the record's id, pin and creation time.

        Raises `WriteRefusedError` for an agent-authored record at any scope but the actor's own."""
        ...


@runtime_checkable
class PreparingMemoryProvider(WritableMemoryProvider, Protocol):
    async def prepare_write(self, *, key: str, text: str) -> None:
        """Do now, outside any transaction, the work a coming write of (key, text) needs that touches
        no stored row — embedding it — so that the write, inside a transaction that holds the writer,
        does only the write. A write with nothing prepared does the work itself."""
        ...


@runtime_checkable
class SearchableMemoryProvider(MemoryProvider, Protocol):
    async def search(
        self, *, scopes: Sequence[str], query: str, limit: int, ctx: ScopeContext
    ) -> Sequence[MemoryRecord]:
        """Relevance selection, in three clauses: filter to `scopes` before ranking; rank keys and
        take the best `limit` of them; return every record sharing a returned key plus every pinned
        record at those scopes — and every record sharing a pinned key, because a pin belongs to the
        question and a personal override of it must ride along. Records come best key first: a key
        ranks where its first record is."""
        ...


@runtime_checkable
class ShortlistingMemoryProvider(MemoryProvider, Protocol):
    async def shortlist(self, *, scopes: Sequence[str], limit: int, ctx: ScopeContext) -> Shortlist:
        """What `list` would give a turn whose block holds `limit` keys (at least one), cut to them:
        every record at `scopes` of the best `limit` keys in the listed order (pinned keys first, then
        by the key's narrowest record: narrowest scope, then newest; then by key), with the totals of
        keys and pinned keys at `scopes`. It may hold other keys' records too — everything, where
        reading everything is cheaper than choosing. The digest is the one `list` would have made."""
        ...


@dataclass(frozen=True, slots=True)
class Recall:
    """What `recall` found for a turn. `ranked` False: every record at the scopes, because all their
    keys fit under the limit and nothing had to be chosen. `ranked` True: a selection, best key first
    (a key ranks where its first record is), then the pinned keys that did not rank; `keys` and
    `pinned_keys` then count the keys, and the pinned keys, that applied in all."""

    records: Sequence[MemoryRecord]
    ranked: bool
    keys: int = 0
    pinned_keys: int = 0


@runtime_checkable
class RecallingMemoryProvider(MemoryProvider, Protocol):
    async def recall(self, *, scopes: Sequence[str], query: str, limit: int, ctx: ScopeContext) -> Recall:
        """The records for a turn whose text is `query` and whose block holds `limit` keys. When every
        key at `scopes` fits, all of them, unranked. Otherwise the design's three clauses with a hybrid
        ranking: filter to `scopes` first; rank keys by words and by meaning, fused
        (`store.domain.recall`), and always fill `limit` keys — the keys neither ranking holds follow
        in listed order; return every record of those keys plus every record of a key pinned at
        `scopes`."""
        ...

    async def rank_keys(self, *, scopes: Sequence[str], query: str, limit: int, ctx: ScopeContext) -> list[str]:
        """The best `limit` keys at `scopes` by the ranking `recall` uses, best first, even when every
        key would fit: what a person's "related" search on their own page shows."""
        ...
