"""Dashboard sessions: a random id in an HttpOnly cookie, everything else in the application
database, so a session works on every worker and host.

A session ends after `session_idle_minutes` without a request and `session_max_hours` after login,
whichever comes first. Its id is new at every login; logging out deletes it server-side.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from store import Actor
from web.auth.oidc import Person
from web.services import Services

__all__ = ("LOGIN_COOKIE", "SESSION_COOKIE", "Viewer", "csrf_token", "end_session", "load_viewer", "start_session")

SESSION_COOKIE = "onfile_session"
LOGIN_COOKIE = "onfile_login"
_TOUCH_EVERY = timedelta(seconds=60)
# What `DashboardSessions.create` issues: 32 random bytes, URL-safe base64 (43 characters). The bound
# is looser so that a longer id from a later version still reads.
_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{16,128}")


@dataclass(frozen=True, slots=True)
class Viewer:
    """The person a dashboard request is for."""

    session_id: str
    actor: Actor
    name: str
    email: str
    id_token: str
    csrf_token: str


def csrf_token(secret_key: str, session_id: str) -> str:
    """The CSRF token for a session: derived, so every worker agrees without storing it."""
    return hmac.new(secret_key.encode(), f"csrf:{session_id}".encode(), hashlib.sha256).hexdigest()


async def start_session(services: Services, person: Person, previous_session_id: str | None) -> str:
    """A new session for `person`; the one the browser had before (if any) is deleted, so the id rotates."""
    if previous_session_id:
        await services.sessions.delete(previous_session_id)
    actor = person.actor
    await services.admin.signed_in(actor)
    session = await services.sessions.create(
        {
            "actor": {"id": actor.id, "tenant_ref": actor.tenant_ref, "roles": list(actor.roles)},
            "name": person.name,
            "email": person.email,
            "id_token": person.id_token,
        },
        ttl=timedelta(minutes=services.settings.session_idle_minutes),
        actor_id=actor.id,
    )
    return session.id


async def load_viewer(services: Services, session_id: str | None, *, now: datetime | None = None) -> Viewer | None:
    """The live session's viewer, or None (no cookie, unknown, idle too long, or past its maximum age)."""
    if not session_id or not _SESSION_ID.fullmatch(session_id):
        return None  # not an id OnFile issues (a corrupted or forged cookie): no need to ask the database
    session = await services.sessions.get(session_id)
    if session is None:
        return None
    now = now or services.clock()
    settings = services.settings
    if now - session.created_at > timedelta(hours=settings.session_max_hours):
        await services.sessions.delete(session_id)
        return None
    if now - session.last_seen_at > _TOUCH_EVERY:
        await services.sessions.touch(session_id, ttl=timedelta(minutes=settings.session_idle_minutes))
    data = session.data
    try:
        actor_data = data["actor"]
        actor = Actor(id=actor_data["id"], tenant_ref=actor_data.get("tenant_ref"), roles=tuple(actor_data["roles"]))
        return Viewer(
            session_id=session_id,
            actor=actor,
            name=data["name"],
            email=data.get("email", ""),
            id_token=data.get("id_token", ""),
            csrf_token=csrf_token(settings.secret_key, session_id),
        )
    except (KeyError, TypeError):
        await services.sessions.delete(session_id)
        return None


async def end_session(services: Services, session_id: str | None) -> None:
    if session_id:
        await services.sessions.delete(session_id)
