"""A record's text restated by a person: the one write that the personal page's correction and an
administrator's edit share."""

from __future__ import annotations

from store.domain.codec import record_to_json
from store.domain.types import Actor, MemoryOrigin, MemoryRecord
from store.memory import MemoryConfig, prepare_write
from store.persistence import AuditTrail, SqlMemoryProvider

__all__ = ("restate",)


async def restate(
    config: MemoryConfig,
    provider: SqlMemoryProvider,
    audit: AuditTrail,
    actor: Actor,
    record: MemoryRecord,
    fact: str,
) -> tuple[MemoryRecord, MemoryRecord] | None:
    """Write `fact` (already checked) as the new text of `record`, stated by `actor`, together with
    its `edit` audit entry (both values kept) in one transaction: (before, after). None when the
    record went meanwhile: a restatement rewrites by id and never brings a record back."""
    await prepare_write(config, record.key, fact)
    origin = MemoryOrigin("human", actor_ref=actor.id)
    async with provider.together():
        change = await provider.rewrite(record.id, scope=record.scope, text=fact, origin=origin)
        if change is None:
            return None
        before, after = change
        await audit.append(
            who=actor.id,
            action="edit",
            scope=after.scope,
            key=after.key,
            before=record_to_json(before),
            after=record_to_json(after),
        )
    return change
