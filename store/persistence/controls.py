"""What people and organisations decided about new memories: a person's pause, an organisation's
approval setting, and the notes that wait for a person's approval.

Waiting notes live in their own table, never in `agent_memory`: no read of memories (list,
shortlist, search, recall) can reach one, so a note that waits is outside every prompt by where it is
kept, not by a filter each read must remember.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import Row, Select, Table, bindparam, delete, func, literal, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from store.domain.controls import MemoryControls, PendingMemory, approval_required
from store.domain.types import Actor
from store.persistence.driver import as_results, point_rows
from store.persistence.engine import reading, writing
from store.persistence.tables import (
    KnownPersonRow,
    OrganisationExpiryRow,
    OrganisationSettingRow,
    PendingMemoryRow,
    PersonPreferenceRow,
    table_of,
)
from store.persistence.types import new_id, utc_now

__all__ = ("LIFETIME_OF", "MemoryControlStore", "concluded_lifetime_of", "scopes_of_people_in")

preferences = table_of(PersonPreferenceRow)
settings = table_of(OrganisationSettingRow)
pending = table_of(PendingMemoryRow)
expiry = table_of(OrganisationExpiryRow)
known = table_of(KnownPersonRow)
LIFETIME_OF = select(expiry.c.concluded_lifetime_days).where(expiry.c.tenant_ref == bindparam("tenant_ref"))
"""An organisation's lifetime for what the assistant concludes (no row: none), by `tenant_ref`."""
_CONTROLS = select(
    select(preferences.c.memory_paused).where(preferences.c.person_id == bindparam("person_id")).scalar_subquery(),
    select(settings.c.approval_required).where(settings.c.tenant_ref == bindparam("tenant_ref")).scalar_subquery(),
)
"""A person's pause (`person_id`) and their organisation's approval setting (`tenant_ref`), in one row."""
_WAITING_COUNT = select(func.count()).select_from(pending).where(pending.c.person_id == bindparam("person_id"))
_INSERT: dict[str, Any] = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}


class MemoryControlStore:
    """The switches and the waiting notes, over one engine. `approval_by_default` is what an
    organisation that never chose (and a person of no organisation) gets."""

    def __init__(
        self, engine: AsyncEngine, *, approval_by_default: bool = False, clock: Callable[[], datetime] = utc_now
    ) -> None:
        self._engine = engine
        self._default = approval_by_default
        self._clock = clock

    @property
    def approval_by_default(self) -> bool:
        return self._default

    async def controls_for(self, person: Actor) -> MemoryControls:
        """The person's pause and their organisation's approval setting, in one read."""
        values = {"person_id": person.id, "tenant_ref": person.tenant_ref}
        [found] = await point_rows(self._engine, _CONTROLS, values)
        row = as_results(self._engine.dialect, _CONTROLS, found)
        choice = None if person.tenant_ref is None else row[1]
        return MemoryControls(paused=bool(row[0]), approval_required=approval_required(choice, default=self._default))

    async def set_paused(self, person_id: str, *, paused: bool) -> None:
        await self._upsert(
            preferences, {"person_id": person_id, "memory_paused": paused, "changed_at": self._clock()}, "person_id"
        )

    async def organisation_choice(self, tenant_ref: str) -> bool | None:
        """What the organisation chose, or None when it never did."""
        statement = select(settings.c.approval_required).where(settings.c.tenant_ref == tenant_ref)
        async with reading(self._engine) as connection:
            return (await connection.execute(statement)).scalar_one_or_none()

    async def set_approval_required(self, tenant_ref: str, *, required: bool, by: str) -> None:
        values = {
            "tenant_ref": tenant_ref,
            "approval_required": required,
            "changed_at": self._clock(),
            "changed_by": by,
        }
        await self._upsert(settings, values, "tenant_ref")

    async def concluded_lifetime(self, tenant_ref: str) -> tuple[int | None, bool]:
        """The organisation's lifetime for what the assistant concludes, in days (None: kept until
        forgotten), and whether it ever chose one."""
        statement = select(expiry.c.concluded_lifetime_days).where(expiry.c.tenant_ref == tenant_ref)
        async with reading(self._engine) as connection:
            row = (await connection.execute(statement)).one_or_none()
        return (None, False) if row is None else (row[0], True)

    async def set_concluded_lifetime(self, tenant_ref: str, *, days: int | None, by: str) -> None:
        values: dict[str, object] = {
            "tenant_ref": tenant_ref,
            "concluded_lifetime_days": days,
            "changed_at": self._clock(),
            "changed_by": by,
        }
        await self._upsert(expiry, values, "tenant_ref")

    async def hold(
        self, person_id: str, *, key: str, text: str, thread_id: str | None, run_id: str | None
    ) -> PendingMemory:
        """Keep a note waiting for `person_id`'s approval; a note already waiting on the same key is
        replaced (text, origin and time), keeping its id."""
        values = {
            "id": new_id("pend"),
            "person_id": person_id,
            "key": key,
            "text": text,
            "origin_thread_id": thread_id,
            "origin_run_id": run_id,
            "concluded_at": self._clock(),
        }
        async with writing(self._engine) as connection:
            statement = _INSERT[connection.dialect.name](pending).values(values)
            statement = statement.on_conflict_do_update(
                index_elements=[pending.c.person_id, pending.c.key],
                set_={
                    name: statement.excluded[name]
                    for name in ("text", "origin_thread_id", "origin_run_id", "concluded_at")
                },
            ).returning(*pending.c)
            row = (await connection.execute(statement)).one()
        return _pending(row)

    async def waiting_for(self, person_id: str) -> list[PendingMemory]:
        """The person's waiting notes, oldest first."""
        statement = (
            select(*pending.c).where(pending.c.person_id == person_id).order_by(pending.c.concluded_at, pending.c.id)
        )
        async with reading(self._engine) as connection:
            return [_pending(row) for row in (await connection.execute(statement)).all()]

    async def waiting_count(self, person_id: str) -> int:
        [(count,)] = await point_rows(self._engine, _WAITING_COUNT, {"person_id": person_id})
        return int(count)

    async def waiting(self, pending_id: str) -> PendingMemory | None:
        async with reading(self._engine) as connection:
            row = (await connection.execute(select(*pending.c).where(pending.c.id == pending_id))).one_or_none()
        return None if row is None else _pending(row)

    async def remove(self, pending_id: str) -> bool:
        """Delete a waiting note, text and all; whether it was there."""
        async with writing(self._engine) as connection:
            result = await connection.execute(delete(pending).where(pending.c.id == pending_id))
        return bool(result.rowcount)

    async def discard_waiting(self, person_id: str) -> int:
        """Delete every note waiting for the person's approval (their forget-all): how many went."""
        async with writing(self._engine) as connection:
            result = await connection.execute(delete(pending).where(pending.c.person_id == person_id))
        return int(result.rowcount)

    async def erase_person(self, person_id: str) -> int:
        """Everything kept about the person here: their waiting notes and their pause. How many notes went."""
        async with writing(self._engine) as connection:
            result = await connection.execute(delete(pending).where(pending.c.person_id == person_id))
            await connection.execute(delete(preferences).where(preferences.c.person_id == person_id))
        return int(result.rowcount)

    async def _upsert(self, table: Table, values: dict[str, object], key: str) -> None:
        async with writing(self._engine) as connection:
            statement = _INSERT[connection.dialect.name](table).values(values)
            statement = statement.on_conflict_do_update(
                index_elements=[key], set_={name: statement.excluded[name] for name in values if name != key}
            )
            await connection.execute(statement)


def _pending(row: Row[Any]) -> PendingMemory:
    mapping = row._mapping
    return PendingMemory(
        id=mapping["id"],
        person_id=mapping["person_id"],
        key=mapping["key"],
        text=mapping["text"],
        thread_id=mapping["origin_thread_id"],
        run_id=mapping["origin_run_id"],
        concluded_at=mapping["concluded_at"],
    )


async def concluded_lifetime_of(connection: AsyncConnection, tenant_ref: str | None) -> int | None:
    """The lifetime, in days, of what the assistant concludes about a person of `tenant_ref` (None: kept
    until forgotten, as it is for a person of no organisation), read on the caller's connection."""
    if tenant_ref is None:
        return None
    statement = select(expiry.c.concluded_lifetime_days).where(expiry.c.tenant_ref == tenant_ref)
    return (await connection.execute(statement)).scalar_one_or_none()


def scopes_of_people_in(tenant_ref: str) -> Select[Any]:
    """The own scopes of the people OnFile knows in `tenant_ref`, as a select for an `IN`."""
    return select(literal("actor:") + known.c.id).where(known.c.tenant_ref == tenant_ref)
