"""What is on file about the viewer, read one way for the read-back API and the dashboard alike.

Both show the same set: every memory that applies to the person, no ceiling, no search, in the
order the prompt renders them. The dashboard also lists each record on its own, the ones a narrower
record overrides included, so it keeps the records beside the entries. Which origins still resolve
is asked separately, and only for the entries a caller is about to show (or, for a filter by it, for
all of them in one query).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from store import Actor, DigestEntry, MemoryRecord, ScopeContext, in_render_order, resolve_digest
from store.memory import records_on_file
from store.persistence.registry import Origin
from web.services import Services

__all__ = ("HasRecord", "OnFile", "on_file", "on_file_of", "origin_of", "resolving_origins")


class HasRecord(Protocol):
    """An entry or a listed record: anything shown with a record behind it."""

    @property
    def record(self) -> MemoryRecord: ...


@dataclass(frozen=True, slots=True)
class OnFile:
    """Everything that applies to one person: the resolver's scopes (narrowest first), the entries in
    render order (pinned first, then scope order, then key), and every record the entries resolve."""

    scopes: tuple[str, ...]
    entries: tuple[DigestEntry, ...]
    records: tuple[MemoryRecord, ...] = ()

    def without(self, entry: DigestEntry) -> OnFile:
        """The same set once `entry`'s winning record is gone, while none it overrode comes back (the
        caller reads again when one does)."""
        gone = entry.record.id
        return OnFile(
            self.scopes,
            tuple(e for e in self.entries if e is not entry),
            tuple(r for r in self.records if r.id != gone),
        )


async def on_file(services: Services, actor: Actor, thread_id: str | None = None) -> OnFile:
    scopes, records = await records_on_file(services.memory, ScopeContext(actor=actor, thread_id=thread_id))
    return on_file_of(scopes, records)


def on_file_of(scopes: Sequence[str], records: Iterable[MemoryRecord]) -> OnFile:
    """The set that applies at `scopes` (narrowest first), resolved from the records held there."""
    held = tuple(records)
    digest = resolve_digest(held, scopes=scopes, max_memories=None)
    applying = set(digest.scopes)
    return OnFile(digest.scopes, tuple(in_render_order(digest)), tuple(r for r in held if r.scope in applying))


def origin_of(entry: HasRecord) -> Origin:
    """The conversation pointer of the entry's record."""
    return Origin(entry.record.origin.thread_id, entry.record.origin.run_id)


async def resolving_origins(services: Services, entries: Iterable[HasRecord]) -> frozenset[Origin]:
    """Which of these entries' origins still resolve, asking the registry once."""
    return await services.registry.origins_resolve(origin_of(e) for e in entries)
