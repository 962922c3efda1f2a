"""The audit trail: every human act on memory — write, edit, delete, pin, unpin, promotion, preview —
with who did it, when, at which scope and key, and the value before and after.

Entries are appended and never changed. Reading is by scope, so a console shows an administrator
only the trail of the scopes they may see.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, get_args

from sqlalchemy import ColumnElement, String, and_, cast, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from store.domain.wire import AuditEntryWire
from store.persistence.engine import reading, writing
from store.persistence.tables import AuditEntryRow, table_of
from store.persistence.types import new_id, utc_now

__all__ = ("AUDIT_ACTIONS", "AuditAction", "AuditEntry", "AuditTrail")

AuditAction = Literal[
    "write",
    "edit",
    "import",
    "delete",
    "pin",
    "unpin",
    "promote",
    "preview",
    "erase",
    "erase-refused",
    "move",
    "approval",
    "lifetime",
]
AUDIT_ACTIONS: tuple[str, ...] = get_args(AuditAction)

trail = table_of(AuditEntryRow)


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One act. `before` and `after` are JSON-able snapshots (None where there was nothing)."""

    id: str
    at: datetime
    who: str
    action: AuditAction
    scope: str
    key: str | None
    before: Any
    after: Any

    def to_wire(self) -> AuditEntryWire:
        at = self.at.isoformat()
        return AuditEntryWire(self.id, at, self.who, self.action, self.scope, self.key, self.before, self.after)


# The columns an `AuditEntry` is built from, in its fields' order.
_ENTRY_COLUMNS = (
    trail.c.id,
    trail.c.at,
    trail.c.who,
    trail.c.action,
    trail.c.scope,
    trail.c.key,
    trail.c.before,
    trail.c.after,
)


class AuditTrail:
    def __init__(self, engine: AsyncEngine, *, clock: Callable[[], datetime] = utc_now) -> None:
        self._engine = engine
        self._clock = clock

    async def append(
        self,
        *,
        who: str,
        action: AuditAction,
        scope: str,
        key: str | None,
        before: Any = None,
        after: Any = None,
        subject: str | None = None,
    ) -> AuditEntry:
        """Record one act by actor `who` (about the person `subject`, when it was about one); an action
        outside `AUDIT_ACTIONS` is refused."""
        if action not in AUDIT_ACTIONS:
            msg = f"unknown audit action {action!r}: expected one of {', '.join(AUDIT_ACTIONS)}"
            raise ValueError(msg)
        entry = AuditEntry(
            id=new_id("aud"), at=self._clock(), who=who, action=action, scope=scope, key=key, before=before, after=after
        )
        row = {
            "id": entry.id,
            "at": entry.at,
            "who": who,
            "action": action,
            "scope": scope,
            "key": key,
            "before": before,
            "after": after,
            "subject": subject,
        }
        async with writing(self._engine) as connection:
            await connection.execute(insert(trail).values(row))
        return entry

    async def redact_scope(self, scope: str) -> int:
        """Drop the values (before and after) from every entry at `scope`, keeping who did what and when:
        a person's erasure must not live on in the trail of acts about them. How many entries changed:
        one cleared before counts no more."""
        holding = or_(trail.c.key.is_not(None), _holds(trail.c.before), _holds(trail.c.after))
        async with writing(self._engine) as connection:
            result = await connection.execute(
                update(trail).where(trail.c.scope == scope, holding).values(before=None, after=None, key=None)
            )
        return result.rowcount

    async def redact_keys(self, scope: str, keys: Sequence[str]) -> int:
        """Drop the key and values (before and after) from the entries at `scope` about `keys`, keeping
        who did what and when: a person's corrections must not keep the text of a memory they then
        forgot. How many entries changed."""
        changed = 0
        distinct = list(dict.fromkeys(keys))
        async with writing(self._engine) as connection:
            for start in range(0, len(distinct), 500):
                result = await connection.execute(
                    update(trail)
                    .where(trail.c.scope == scope, trail.c.key.in_(distinct[start : start + 500]))
                    .values(before=None, after=None, key=None)
                )
                changed += result.rowcount
        return changed

    async def at_scopes(self, scopes: Sequence[str], *, limit: int | None = None) -> list[AuditEntry]:
        """The entries at `scopes`, newest first (then by id, which sorts by creation)."""
        if not scopes:
            return []
        statement = (
            select(*_ENTRY_COLUMNS).where(trail.c.scope.in_(scopes)).order_by(trail.c.at.desc(), trail.c.id.desc())
        )
        if limit is not None:
            statement = statement.limit(max(limit, 0))
        async with reading(self._engine) as connection:
            result = await connection.execute(statement)
            return [AuditEntry(*row) for row in result.all()]

    async def about(self, person_id: str) -> list[AuditEntry]:
        """Every act about the person `person_id` (previews of their prompt, their erasure, their moves),
        at whichever scopes it was recorded, newest first."""
        statement = (
            select(*_ENTRY_COLUMNS).where(trail.c.subject == person_id).order_by(trail.c.at.desc(), trail.c.id.desc())
        )
        async with reading(self._engine) as connection:
            result = await connection.execute(statement)
            return [AuditEntry(*row) for row in result.all()]


def _holds(value: ColumnElement[Any]) -> ColumnElement[bool]:
    """Whether a JSON column holds a value: a cleared one is SQL NULL or JSON's `null`, which is what
    writing None into it stores."""
    return and_(value.is_not(None), cast(value, String) != "null")
