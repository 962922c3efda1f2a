"""What the assistant concluded about a person, kept only as long as their organisation chose: the
organisation's lifetime, the person's keep, and the pruning of what expired.

The rules are in `store.domain.expiry`; the reads that fill a prompt leave an expired memory out by
themselves (`store.persistence.memories.LIVE`). This module sequences the acts around them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from store.domain.administration import AdminGate
from store.domain.types import Actor, ScopeContext
from store.persistence import AuditTrail, MemoryControlStore, RunJournal, SqlMemoryProvider

__all__ = ("ExpiredPruned", "ExpiringAtOnce", "Expiry", "LifetimeSetting")


@dataclass(frozen=True, slots=True)
class LifetimeSetting:
    """An organisation's lifetime for what the assistant concludes about its people, as its
    administrators see it: `days` None while it is kept until forgotten; `chosen` false while nobody chose."""

    tenant_ref: str
    days: int | None
    chosen: bool


@dataclass(frozen=True, slots=True)
class ExpiringAtOnce:
    """What a lifetime would expire at once, before it is chosen: how many memories the assistant
    concluded, about how many people."""

    memories: int
    people: int


@dataclass(frozen=True, slots=True)
class ExpiredPruned:
    """What pruning the expired memories removed: the memories (each with its vector and search index
    entries) and the runs whose journal named one of them."""

    memories: int
    runs: int


class Expiry:
    def __init__(
        self,
        provider: SqlMemoryProvider,
        controls: MemoryControlStore,
        journal: RunJournal,
        audit: AuditTrail,
        gate: AdminGate,
    ) -> None:
        self._provider = provider
        self._controls = controls
        self._journal = journal
        self._audit = audit
        self._gate = gate

    async def lifetime_setting(self, admin: Actor) -> LifetimeSetting | None:
        """The lifetime of the organisation `admin` administers; None for anyone who administers none."""
        tenant = admin.tenant_ref
        if tenant is None or not await self._gate.administers(admin, f"tenant:{tenant}"):
            return None
        days, chosen = await self._controls.concluded_lifetime(tenant)
        return LifetimeSetting(tenant, days, chosen)

    async def expiring_at_once(self, admin: Actor, *, days: int | None, now: datetime) -> ExpiringAtOnce | None:
        """What choosing `days` for `admin`'s organisation would expire at once (None for anyone who
        administers none): asked before a shorter lifetime is chosen, so the administrator sees it."""
        before = await self.lifetime_setting(admin)
        if before is None:
            return None
        memories, people = await self._provider.expiring_at_once(before.tenant_ref, days, now=now)
        return ExpiringAtOnce(memories, people)

    async def set_lifetime(
        self, admin: Actor, *, days: int | None, now: datetime | None = None
    ) -> LifetimeSetting | None:
        """Set the lifetime of `admin`'s organisation, audited at its scope with the value before
        (`byDefault` when it was the deployment's default) and after, with how many memories it expired
        at once (`expiredAtOnce`), and give what the assistant already concluded about its people the
        expiry it sets, from each memory's last write or keep: shortening it may expire some at once.
        Choosing again what is chosen already changes and records nothing."""
        before = await self.lifetime_setting(admin)
        if before is None:
            return None
        if before.chosen and before.days == days:  # chosen already (a second tab): no act to record
            return before
        async with self._provider.together():
            # read inside the write transaction, which holds off every other writer until it commits
            expired, _ = await self._provider.expiring_at_once(before.tenant_ref, days, now=now or datetime.now(UTC))
            await self._controls.set_concluded_lifetime(before.tenant_ref, days=days, by=admin.id)
            await self._provider.reset_expiry(before.tenant_ref, days)
            await self._audit.append(
                who=admin.id,
                action="lifetime",
                scope=f"tenant:{before.tenant_ref}",
                key=None,
                before={"concludedLifetimeDays": before.days, **({} if before.chosen else {"byDefault": True})},
                after={"concludedLifetimeDays": days, **({"expiredAtOnce": expired} if expired else {})},
            )
        return LifetimeSetting(before.tenant_ref, days, chosen=True)

    async def keep(self, person: Actor, memory_id: str) -> bool:
        """The person keeps something the assistant concluded about them: its clock starts again, and an
        expired one is back in their prompts. False for an id that is not such a memory of theirs."""
        return await self._provider.keep(memory_id, ctx=ScopeContext(actor=person))

    async def expiries(self, person: Actor, ids: Sequence[str]) -> dict[str, datetime]:
        """When each of the person's own memories `ids` that has an expiry expires (or expired), by id."""
        return await self._provider.expiries(ids, ctx=ScopeContext(actor=person))

    async def prune(self, *, now: datetime) -> ExpiredPruned:
        """Remove every memory that expired by `now`, then the journals of the runs that named one."""
        gone = await self._provider.drop_expired(now=now)
        mentions = [(scope.removeprefix("actor:"), id) for id, scope in gone if scope.startswith("actor:")]
        return ExpiredPruned(memories=len(gone), runs=await self._journal.erase_mentions(mentions))
