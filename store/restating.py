"""A record's text restated by a person: the one write that the personal page's correction and an
administrator's edit share."""

from __future__ import annotations

from collections.abc import Callable

from store.domain.codec import record_to_json
from store.domain.types import Actor, MemoryOrigin, MemoryRecord
from store.memory import MemoryConfig, prepare_write
from store.persistence import AuditTrail, SqlMemoryProvider

__all__ = ("ChangedMeanwhileError", "StillAsRead", "restate")

StillAsRead = Callable[[MemoryRecord], bool]
"""Whether a record, read under its lock just before an act changes it, is still the version the one
acting read (an administrator's `If-Match`): the act goes ahead only if it is."""


class ChangedMeanwhileError(Exception):
    """Raised inside an act's transaction, which it rolls back, when the record is no longer the
    version read (`StillAsRead`); `record` is the version it is now."""

    def __init__(self, record: MemoryRecord) -> None:
        super().__init__(f"{record.id} was changed since it was read")
        self.record = record


async def restate(
    config: MemoryConfig,
    provider: SqlMemoryProvider,
    audit: AuditTrail,
    actor: Actor,
    record: MemoryRecord,
    fact: str,
    *,
    still: StillAsRead | None = None,
) -> tuple[MemoryRecord, MemoryRecord] | None:
    """Write `fact` (already checked) as the new text of `record`, stated by `actor`, together with
    its `edit` audit entry (both values kept) in one transaction: (before, after). None when the
    record went meanwhile: a restatement rewrites by id and never brings a record back. With `still`,
    a record that is no longer the version read is left as it is: `ChangedMeanwhileError`."""
    await prepare_write(config, record.key, fact)
    origin = MemoryOrigin("human", actor_ref=actor.id)
    async with provider.together():
        change = await provider.rewrite(record.id, scope=record.scope, text=fact, origin=origin)
        if change is None:
            return None
        before, after = change
        if still is not None and not still(before):
            raise ChangedMeanwhileError(before)  # the rewrite is rolled back with the transaction
        await audit.append(
            who=actor.id,
            action="edit",
            scope=after.scope,
            key=after.key,
            before=record_to_json(before),
            after=record_to_json(after),
        )
    return change
