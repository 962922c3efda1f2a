"""The provider seam: where memories live. `list` and `forget` are required; `write` and `search`
are optional, and the product notices which a provider has.

A provider without `write` is never offered the `remember` tool; one without `search` serves every
turn from `list`, exactly as before. One with `shortlist` applies a listed turn's ceiling in its own
query, so a turn reads the keys its block can hold instead of everything that applies.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from store.domain.types import MemoryOrigin, MemoryRecord, ScopeContext, Shortlist

__all__ = (
    "MemoryProvider",
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
