"""What is on file about the viewer, read one way for the read-back API and the dashboard alike.

Both show the same set: every memory that applies to the person, no ceiling, no search, in the
order the prompt renders them. The dashboard also lists each record on its own, the ones a narrower
record overrides included, so it keeps the records beside the entries. Which origins still resolve
is asked separately, and only for the entries a caller is about to show (or, for a filter by it, for
all of them in one query).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

from store import (
    Actor,
    DigestEntry,
    MemoryRecord,
    ScopeContext,
    in_render_order,
    normalise_scopes,
    resolve_digest,
)
from store.memory import records_on_file, scopes_on_file
from store.persistence.registry import Origin
from web.services import Services

__all__ = ("HasRecord", "OnFile", "on_file", "on_file_of", "on_file_of_ids", "origin_of", "resolving_origins")


class HasRecord(Protocol):
    """An entry or a listed record: anything shown with a record behind it."""

    @property
    def record(self) -> MemoryRecord: ...


@dataclass(frozen=True)
class OnFile:
    """Everything that applies to one person: the resolver's scopes (narrowest first) and every record
    held at one of them. Resolved on first use, and only as far as asked: `entries` resolves every
    key; `contested` only the keys held at more than one scope, which is all a page of records needs
    (a key held once is its own entry)."""

    scopes: tuple[str, ...]
    records: tuple[MemoryRecord, ...]
    """Every record held at one of `scopes`; or, from `on_file_of_ids`, only those of some keys, which
    is all resolving those keys' entries needs."""

    @cached_property
    def entries(self) -> tuple[DigestEntry, ...]:
        """Every key's entry, in render order (pinned first, then scope order, then key)."""
        return tuple(in_render_order(resolve_digest(self.records, scopes=self.scopes, max_memories=None)))

    @cached_property
    def contested(self) -> dict[str, DigestEntry]:
        """The entries of the keys held at more than one scope, by key."""
        held = Counter(r.key for r in self.records)
        shared = [r for r in self.records if held[r.key] > 1]
        return {e.key: e for e in resolve_digest(shared, scopes=self.scopes, max_memories=None).entries}

    def overridden(self, memory_id: str) -> MemoryRecord | None:
        """The record `memory_id` when it is on file but a narrower record of its key overrides it
        (shown on the page beside the value that applies, and not the person's to change)."""
        applying = {e.record.id for e in self.entries}
        return next((r for r in self.records if r.id == memory_id and r.id not in applying), None)

    def entry_of(self, record: MemoryRecord) -> DigestEntry:
        """The entry of `record`'s key: the record that applies and the wider values it overrides."""
        return self.contested.get(record.key) or DigestEntry(record, pinned=record.pinned)


async def on_file(services: Services, actor: Actor, thread_id: str | None = None) -> OnFile:
    scopes, records = await records_on_file(services.memory, ScopeContext(actor=actor, thread_id=thread_id))
    return OnFile(scopes, records)


async def on_file_of_ids(services: Services, actor: Actor, ids: Iterable[str]) -> OnFile:
    """Of what is on file about the viewer, what the memories `ids` need: each one held at one of the
    person's scopes, with every record of its key there. Their entries resolve as over everything
    (an id not on file for the person, or whose record a narrower one overrides, has none), and
    nothing else on file is read."""
    scopes = await scopes_on_file(services.memory, ScopeContext(actor=actor))
    return OnFile(scopes, tuple(await services.provider.records_of_ids(scopes, list(ids))))


def on_file_of(scopes: Sequence[str], records: Iterable[MemoryRecord]) -> OnFile:
    """The set that applies at `scopes` (narrowest first), of the records held at one of them."""
    applying = normalise_scopes(scopes)
    return OnFile(applying, tuple(r for r in records if r.scope in applying))


def origin_of(entry: HasRecord) -> Origin:
    """The conversation pointer of the entry's record."""
    return Origin(entry.record.origin.thread_id, entry.record.origin.run_id)


async def resolving_origins(services: Services, entries: Iterable[HasRecord]) -> frozenset[Origin]:
    """Which of these entries' origins still resolve, asking the registry once."""
    return await services.registry.origins_resolve(origin_of(e) for e in entries)
