"""Dashboard sessions: an unguessable id, the web layer's data, and an expiry that use extends.

Only a SHA-256 digest of each id is stored, so a copy of the database or a backup holds nothing a
browser could present: the id itself lives in the cookie alone, and every lookup, touch and delete
digests the id it is given first. (256 random bits need no salt or slow hash: nobody can guess an
id from its digest.) A row stored under an id rather than its digest matches nothing and goes at
the expiry sweep.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from store.persistence.driver import as_results, point_rows
from store.persistence.engine import writing
from store.persistence.tables import DashboardSessionRow, table_of
from store.persistence.types import utc_now

__all__ = ("DashboardSession", "DashboardSessions")

sessions = table_of(DashboardSessionRow)
_LIVE = select(sessions.c.data, sessions.c.created_at, sessions.c.last_seen_at, sessions.c.expires_at).where(
    sessions.c.id == bindparam("id"), sessions.c.expires_at > bindparam("now")
)


def _stored(id: str) -> str:
    """The key a session id is stored under."""
    return hashlib.sha256(id.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class DashboardSession:
    id: str
    """The id as issued (what the cookie holds), never what is stored."""
    data: Any
    created_at: datetime
    last_seen_at: datetime
    expires_at: datetime


class DashboardSessions:
    """Sessions that expire `ttl` after they were last seen. An expired session is never returned,
    even before `delete_expired` has swept it away."""

    def __init__(self, engine: AsyncEngine, *, clock: Callable[[], datetime] = utc_now) -> None:
        self._engine = engine
        self._clock = clock

    async def create(self, data: Any, *, ttl: timedelta, actor_id: str | None = None) -> DashboardSession:
        """A new session holding `data` for `actor_id`; its id has 256 random bits."""
        now = self._clock()
        session = DashboardSession(
            id=secrets.token_urlsafe(32), data=data, created_at=now, last_seen_at=now, expires_at=now + ttl
        )
        async with writing(self._engine) as connection:
            await connection.execute(
                insert(sessions).values(
                    id=_stored(session.id),
                    data=data,
                    created_at=session.created_at,
                    last_seen_at=session.last_seen_at,
                    expires_at=session.expires_at,
                    actor_id=actor_id,
                )
            )
        return session

    async def get(self, id: str) -> DashboardSession | None:
        """The live session `id`, or None when there is none or it has expired: a lookup by key, which
        every page makes first (`point_rows`: on a SQLite file, inline)."""
        rows = await point_rows(self._engine, _LIVE, {"id": _stored(id), "now": self._clock()})
        if not rows:
            return None
        data, created_at, last_seen_at, expires_at = as_results(self._engine.dialect, _LIVE, rows[0])
        return DashboardSession(id, data, created_at, last_seen_at, expires_at)

    async def touch(self, id: str, *, ttl: timedelta, data: Any = None) -> bool:
        """Mark a live session seen now and push its expiry to `ttl` from now (replacing its data when
        `data` is given); False when it does not exist or has already expired."""
        now = self._clock()
        values: dict[str, Any] = {"last_seen_at": now, "expires_at": now + ttl}
        if data is not None:
            values["data"] = data
        async with writing(self._engine) as connection:
            result = await connection.execute(
                update(sessions).where(sessions.c.id == _stored(id), sessions.c.expires_at > now).values(values)
            )
        return result.rowcount > 0

    async def swap_data(self, id: str, data: Any, *, key: str, expected: str | None) -> bool:
        """Replace the live session's data with `data` only while the string at `key` in its data is
        still `expected` (None: absent or null). Of several requests or workers racing to do one thing
        once, the one whose swap lands goes ahead; False for the others, and when the session is gone."""
        now = self._clock()
        current = sessions.c.data[key].as_string()
        unchanged = current.is_(None) if expected is None else current == expected
        async with writing(self._engine) as connection:
            result = await connection.execute(
                update(sessions)
                .where(sessions.c.id == _stored(id), sessions.c.expires_at > now, unchanged)
                .values(data=data)
            )
        return result.rowcount > 0

    async def delete(self, id: str) -> bool:
        """End the session `id` (signing out); whether it existed."""
        async with writing(self._engine) as connection:
            result = await connection.execute(delete(sessions).where(sessions.c.id == _stored(id)))
        return result.rowcount > 0

    async def delete_for_actor(self, actor_id: str) -> int:
        """End every session of `actor_id` (their erasure); how many went."""
        async with writing(self._engine) as connection:
            result = await connection.execute(delete(sessions).where(sessions.c.actor_id == actor_id))
        return result.rowcount

    async def delete_expired(self) -> int:
        """Sweep every expired session; how many went."""
        async with writing(self._engine) as connection:
            result = await connection.execute(delete(sessions).where(sessions.c.expires_at <= self._clock()))
        return result.rowcount
