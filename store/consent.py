"""A person's say over what is kept about them: pausing memory, approving or discarding what waits,
seeing who on staff looked — and an organisation's administrators requiring approval.

The rules are in `store.domain.controls` and `store.domain.looks`; this module reads and writes
around them. A person acts on their own only: every method takes the person as OnFile resolved them
for the request, never an id they typed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from store.domain.administration import AdminGate
from store.domain.controls import MemoryControls, PendingMemory, approval_required, settle_pending
from store.domain.looks import StaffAct, TrailEntry, staff_acts
from store.domain.scopes import own_scope
from store.domain.types import Actor, MemoryRecord, ScopeContext
from store.memory import MemoryConfig, prepare_write
from store.persistence import AuditTrail, MemoryControlStore, SqlMemoryProvider

__all__ = ("ApprovalSetting", "Consent", "Settled")


@dataclass(frozen=True, slots=True)
class Settled:
    """What approving or discarding a waiting note did: `found` false for one that is not the person's
    or is gone; `record` the memory an approval wrote."""

    found: bool
    decision: Literal["approve", "discard"]
    key: str = ""
    record: MemoryRecord | None = None


@dataclass(frozen=True, slots=True)
class ApprovalSetting:
    """An organisation's approval setting as its administrators see it: `chosen` false while the
    deployment's default applies."""

    tenant_ref: str
    required: bool
    chosen: bool


class Consent:
    def __init__(
        self,
        config: MemoryConfig,
        provider: SqlMemoryProvider,
        controls: MemoryControlStore,
        audit: AuditTrail,
        gate: AdminGate,
    ) -> None:
        self._config = config
        self._provider = provider
        self._controls = controls
        self._audit = audit
        self._gate = gate

    async def controls(self, person: Actor) -> MemoryControls:
        return await self._controls.controls_for(person)

    async def pause(self, person: Actor, *, paused: bool) -> None:
        """Pause (or resume) memory for the person: while paused, every new `remember` for them is
        refused; what is on file stays and still reaches prompts."""
        await self._controls.set_paused(person.id, paused=paused)

    async def waiting(self, person: Actor) -> list[PendingMemory]:
        return await self._controls.waiting_for(person.id)

    async def waiting_beside_held(self, person: Actor) -> list[tuple[PendingMemory, MemoryRecord | None]]:
        """The person's waiting notes (oldest first), each beside the memory of theirs that approving it
        would replace: the one they hold under its key (an approval writes over it), or None."""
        notes = await self.waiting(person)
        held = await self._provider.records_holding([own_scope(person)], sorted({n.key for n in notes}))
        by_key = {record.key: record for record in held}
        return [(note, by_key.get(note.key)) for note in notes]

    async def waiting_count(self, person: Actor) -> int:
        return await self._controls.waiting_count(person.id)

    async def settle(self, person: Actor, pending_id: str, decision: Literal["approve", "discard"]) -> Settled:
        """Approve (an ordinary memory the assistant concluded, at the person's own scope) or discard
        (gone, text and all) one of the person's waiting notes (`settle_pending`). The write and the
        removal are one transaction."""
        pending = await self._controls.waiting(pending_id)
        settlement = settle_pending(person.id, pending, decision)
        if not settlement.found or pending is None:
            return Settled(found=False, decision=decision)
        if settlement.origin is None:
            gone = await self._controls.remove(pending.id)
            return Settled(found=gone, decision=decision, key=pending.key)
        await prepare_write(self._config, pending.key, pending.text)
        async with self._provider.together():
            if not await self._controls.remove(pending.id):
                return Settled(found=False, decision=decision)
            record = await self._provider.write(
                key=pending.key,
                text=pending.text,
                scope=own_scope(person),
                origin=settlement.origin,
                ctx=ScopeContext(actor=person),
            )
        return Settled(found=True, decision=decision, key=pending.key, record=record)

    async def who_looked(self, person: Actor) -> tuple[StaffAct, ...]:
        """Every staff act about the person, from the audit trail, newest first (`staff_acts`)."""
        entries = await self._audit.about(person.id)
        trail = (TrailEntry(e.at, e.who, e.action, e.scope, e.after) for e in entries)
        return staff_acts(person.id, trail)

    async def approval_setting(self, admin: Actor) -> ApprovalSetting | None:
        """The approval setting of the organisation `admin` administers; None for anyone who
        administers no organisation."""
        tenant = await self._administered_tenant(admin)
        if tenant is None:
            return None
        choice = await self._controls.organisation_choice(tenant)
        default = self._controls.approval_by_default
        return ApprovalSetting(tenant, approval_required(choice, default=default), choice is not None)

    async def require_approval(self, admin: Actor, *, required: bool) -> ApprovalSetting | None:
        """Set whether the people of `admin`'s organisation approve what the assistant concludes about
        them, audited at the organisation's scope with the value before (`byDefault` when it was the
        deployment's default) and after; choosing again what is chosen already changes and records
        nothing. Notes already waiting keep waiting when approval is no longer required: only their
        person settles them."""
        before = await self.approval_setting(admin)
        if before is None:
            return None
        if before.chosen and before.required == required:  # chosen already (a second tab): no act to record
            return before
        async with self._provider.together():
            await self._controls.set_approval_required(before.tenant_ref, required=required, by=admin.id)
            await self._audit.append(
                who=admin.id,
                action="approval",
                scope=f"tenant:{before.tenant_ref}",
                key=None,
                before={"approvalRequired": before.required, **({} if before.chosen else {"byDefault": True})},
                after={"approvalRequired": required},
            )
        return ApprovalSetting(before.tenant_ref, required, chosen=True)

    async def _administered_tenant(self, admin: Actor) -> str | None:
        if admin.tenant_ref is None or not await self._gate.administers(admin, f"tenant:{admin.tenant_ref}"):
            return None
        return admin.tenant_ref
