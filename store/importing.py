"""Importing a person's own export: a preview of what it would add or replace, then, unchanged by a
single line in error, the writes, all in one transaction with their audit entries (`import`, the
value replaced and the value written, as a correction keeps both).

The rules are in `store.domain.importing`. Whatever the file says, every memory is written at the
person's own scope, as stated by them: an import never writes a shared fact, nor a note the assistant
concluded. The plan is made again when applied, from the person's values then, so what is applied is
what a preview made at that moment would show.
"""

from __future__ import annotations

from dataclasses import dataclass

from store.domain.codec import record_to_json
from store.domain.importing import ImportPlan, plan_import
from store.domain.scopes import own_scope
from store.domain.types import Actor, MemoryOrigin, MemoryRecord, ScopeContext
from store.memory import MemoryConfig, prepare_write
from store.persistence import AuditTrail, SqlMemoryProvider

__all__ = ("Imported", "Imports")


@dataclass(frozen=True, slots=True)
class Imported:
    """What applying an import did: `written` memories, or none when `plan` does not allow it."""

    plan: ImportPlan
    written: int


class Imports:
    def __init__(self, config: MemoryConfig, provider: SqlMemoryProvider, audit: AuditTrail) -> None:
        self._config = config
        self._provider = provider
        self._audit = audit

    async def preview(self, person: Actor, document: str) -> ImportPlan:
        """What importing `document` would do to the person's own memories now."""
        plan, _ = await self._planned(person, document)
        return plan

    async def apply(self, person: Actor, document: str) -> Imported:
        """Write every line the plan adds or replaces, as stated by the person at their own scope, each
        with its audit entry, in one transaction; nothing when any line cannot be imported."""
        plan, mine = await self._planned(person, document)
        if not plan.applicable:
            return Imported(plan, written=0)
        ctx = ScopeContext(actor=person)
        origin = MemoryOrigin(author="human", actor_ref=person.id)
        for line in plan.writes:  # embedded now, outside the transaction that writes them
            await prepare_write(self._config, line.key, line.text)
        async with self._provider.together():
            for line in plan.writes:
                written = await self._provider.write(
                    key=line.key, text=line.text, scope=own_scope(person), origin=origin, ctx=ctx
                )
                replaced = mine.get(line.key)
                await self._audit.append(
                    who=person.id,
                    action="import",
                    scope=written.scope,
                    key=written.key,
                    before=None if replaced is None else record_to_json(replaced),
                    after=record_to_json(written),
                )
        return Imported(plan, written=len(plan.writes))

    async def _planned(self, person: Actor, document: str) -> tuple[ImportPlan, dict[str, MemoryRecord]]:
        """The plan for `document` against the person's own memories now, and those memories by key."""
        ctx = ScopeContext(actor=person)
        mine = {record.key: record for record in await self._provider.list(scopes=[own_scope(person)], ctx=ctx)}
        current = {key: record.text for key, record in mine.items()}
        plan = plan_import(document, current, max_fact_chars=self._config.max_fact_chars, own_scope=own_scope(person))
        return plan, mine
