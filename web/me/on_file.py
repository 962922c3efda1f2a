"""What is on file about the viewer, read one way for the read-back API and the dashboard alike.

Both show the same set: every memory that applies to the person, no ceiling, no search, in the
order the prompt renders them. Which origins still resolve is asked separately, and only for the
entries a caller is about to show, so a page of fifty out of ten thousand asks about fifty.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from store import Actor, DigestEntry, ScopeContext, in_render_order, memories_on_file
from store.persistence.registry import Origin
from web.services import Services

__all__ = ("OnFile", "on_file", "origin_of", "resolving_origins")


@dataclass(frozen=True, slots=True)
class OnFile:
    """Everything that applies to one person: the resolver's scopes (narrowest first) and the entries
    in render order (pinned first, then scope order, then key)."""

    scopes: tuple[str, ...]
    entries: tuple[DigestEntry, ...]


async def on_file(services: Services, actor: Actor, thread_id: str | None = None) -> OnFile:
    digest = await memories_on_file(services.memory, ScopeContext(actor=actor, thread_id=thread_id))
    return OnFile(scopes=digest.scopes, entries=tuple(in_render_order(digest)))


def origin_of(entry: DigestEntry) -> Origin:
    """The conversation pointer of the entry's winning record."""
    return Origin(entry.record.origin.thread_id, entry.record.origin.run_id)


async def resolving_origins(services: Services, entries: Iterable[DigestEntry]) -> frozenset[Origin]:
    """Which of these entries' origins still resolve, asking the registry once."""
    return await services.registry.origins_resolve(origin_of(e) for e in entries)
