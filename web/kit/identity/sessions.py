"""Dashboard sessions: a random id in an HttpOnly cookie, everything else in the application
database, so a session works on every worker and host.

A session ends after `session_idle_minutes` without a request and `session_max_hours` after login,
whichever comes first. Its id is new at every login; logging out deletes it server-side.

Roles follow the identity provider. When a request finds a session's roles due (`role_recheck` after
they were last asked for), it claims the recheck by swapping in the time it asks, so of the requests
and workers that find them due together one asks; the others go on with the roles as stored. What
the provider answers (roles, organisation, the tokens to ask with next time) is stored for every
worker to read. When the provider cannot be reached or refuses, the session keeps the person but
not their roles: every elevated act is refused until a later recheck confirms them, while the
person's own page works as before.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import hmac
import logging
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from store import Actor
from web.kit.identity.oidc import LoginError, OidcClient, Person, Reconfirmed
from web.kit.identity.roles import recheck_due, role_change
from web.kit.identity.tokens import ProviderTokens, TokenSealer
from web.services import Services

__all__ = ("LOGIN_COOKIE", "SESSION_COOKIE", "Viewer", "csrf_token", "end_session", "load_viewer", "start_session")

logger = logging.getLogger(__name__)

SESSION_COOKIE = "onfile_session"
LOGIN_COOKIE = "onfile_login"
_TOUCH_EVERY = timedelta(seconds=60)
# What `DashboardSessions.create` issues: 32 random bytes, URL-safe base64 (43 characters). The bound
# is looser so that a longer id from a later version still reads.
_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{16,128}")
_CHECKED_AT = "roles_checked_at"
# The request that asks the provider waits this long for it at most; a provider that does not answer
# by then has not confirmed the roles.
_RECHECK_WAIT_S = 5


@dataclass(frozen=True, slots=True)
class Viewer:
    """The person a dashboard request is for."""

    session_id: str
    actor: Actor
    name: str
    email: str
    id_token: str
    csrf_token: str
    roles_confirmed: bool = True
    """False while the provider could not confirm the roles at the last recheck: `actor` then carries
    none, and every elevated act is refused."""


def csrf_token(secret_key: str, session_id: str) -> str:
    """The CSRF token for a session: derived, so every worker agrees without storing it."""
    return hmac.new(secret_key.encode(), f"csrf:{session_id}".encode(), hashlib.sha256).hexdigest()


@lru_cache(maxsize=4)
def _sealer(secret_key: str) -> TokenSealer:
    return TokenSealer(secret_key)


async def start_session(services: Services, person: Person, previous_session_id: str | None) -> str:
    """A new session for `person`; the one the browser had before (if any) is deleted, so the id rotates.
    The person is noted as seen, under the name their ID token gave this time. Signing in is a check of
    the roles: the next is due `role_recheck` from now. When it finds their organisation or roles changed,
    their other sessions end, rather than act on what they no longer are until their own recheck."""
    if previous_session_id:
        await services.sessions.delete(previous_session_id)
    actor = person.actor
    if await services.admin.signed_in(actor, name=person.name):
        ended = await services.sessions.delete_for_actor(actor.id)
        logger.info("the organisation or roles of %s changed at sign-in: %d other sessions ended", actor.id, ended)
    session = await services.sessions.create(
        {
            "actor": _actor_data(actor),
            "name": person.name,
            "email": person.email,
            "id_token": person.id_token,
            "tokens": _sealer(services.settings.secret_key).seal(person.tokens),
            _CHECKED_AT: services.clock().isoformat(),
            "roles_confirmed": True,
        },
        ttl=timedelta(minutes=services.settings.session_idle_minutes),
        actor_id=actor.id,
    )
    return session.id


async def load_viewer(
    services: Services, session_id: str | None, *, now: datetime | None = None, provider: OidcClient | None = None
) -> Viewer | None:
    """The live session's viewer, or None (no cookie, unknown, idle too long, or past its maximum age).
    With `provider`, roles due a recheck are asked for first; without it (signing out) they are read
    as last stored."""
    if not session_id or not _SESSION_ID.fullmatch(session_id):
        return None  # not an id OnFile issues (a corrupted or forged cookie): no need to ask the database
    session = await services.sessions.get(session_id)
    if session is None:
        return None
    now = now or services.clock()
    settings = services.settings
    data = session.data
    actor = _stored_actor(data)
    if now - session.created_at > timedelta(hours=settings.session_max_hours) or actor is None:
        await services.sessions.delete(session_id)
        return None
    if provider is not None and recheck_due(_checked_at(data), now, settings.role_recheck):
        if not _sealer(settings.secret_key).opens(data.get("tokens")):
            # sealed under another ONFILE_SECRET_KEY: no recheck can ever pass, so the person signs in again
            logger.warning(
                "the session of %s ended: its provider tokens were sealed under another secret key", actor.id
            )
            await services.sessions.delete(session_id)
            return None
        data = await _recheck(services, provider, session_id, data, actor, now)
        actor = _stored_actor(data) or actor
    if now - session.last_seen_at > _TOUCH_EVERY:
        await services.sessions.touch(session_id, ttl=timedelta(minutes=settings.session_idle_minutes))
    confirmed = data.get("roles_confirmed") is True
    return Viewer(
        session_id=session_id,
        actor=actor if confirmed else dataclasses.replace(actor, roles=()),
        name=str(data.get("name", actor.id)),
        email=str(data.get("email", "")),
        id_token=str(data.get("id_token", "")),
        csrf_token=csrf_token(settings.secret_key, session_id),
        roles_confirmed=confirmed,
    )


async def end_session(services: Services, session_id: str | None) -> None:
    if session_id:
        await services.sessions.delete(session_id)


async def _recheck(
    services: Services, provider: OidcClient, session_id: str, data: dict[str, Any], actor: Actor, now: datetime
) -> dict[str, Any]:
    """Ask the provider about the session's person, once however many requests find it due; the data
    this request goes on with."""
    before = data.get(_CHECKED_AT)
    claimed = {**data, _CHECKED_AT: now.isoformat()}
    expected = before if isinstance(before, str) else None
    if not await services.sessions.swap_data(session_id, claimed, key=_CHECKED_AT, expected=expected):
        return data  # another request or worker is asking, or just has
    sealer = _sealer(services.settings.secret_key)
    answer = await _ask(provider, actor.id, sealer.unseal(data.get("tokens")))
    if isinstance(answer, str):
        logger.warning("the roles of %s could not be confirmed: %s", actor.id, answer)
        rechecked = {**claimed, "roles_confirmed": False}
    else:
        change = role_change(actor, answer.actor)
        logger.info("the roles of %s were confirmed: %s", actor.id, change)
        if change.changed:
            await services.admin.signed_in(answer.actor)  # the provider says so: it may move them
        rechecked = {
            **claimed,
            "actor": _actor_data(answer.actor),
            "tokens": sealer.seal(answer.tokens),
            "roles_confirmed": True,
        }
        if answer.id_token:
            rechecked["id_token"] = answer.id_token
    await services.sessions.swap_data(session_id, rechecked, key=_CHECKED_AT, expected=claimed[_CHECKED_AT])
    return rechecked


async def _ask(provider: OidcClient, subject: str, tokens: ProviderTokens) -> Reconfirmed | str:
    """What the provider says of `subject` now, or why it did not confirm them."""
    try:
        async with asyncio.timeout(_RECHECK_WAIT_S):
            return await provider.reconfirm(subject, tokens)
    except LoginError as error:
        return f"{error.message} ({error.detail})"
    except TimeoutError:
        return f"no answer within {_RECHECK_WAIT_S} s"
    except Exception as error:
        # Whatever went wrong, the roles were not confirmed: elevated acts are refused rather than the
        # stored roles left to stand for another interval.
        logger.exception("asking the identity provider about %s failed", subject)
        return repr(error)


def _actor_data(actor: Actor) -> dict[str, Any]:
    return {"id": actor.id, "tenant_ref": actor.tenant_ref, "roles": list(actor.roles)}


def _stored_actor(data: Any) -> Actor | None:
    """The actor a session holds, or None when its data is not what OnFile stores."""
    try:
        stored = data["actor"]
        return Actor(id=stored["id"], tenant_ref=stored.get("tenant_ref"), roles=tuple(stored["roles"]))
    except (KeyError, TypeError, AttributeError):
        return None


def _checked_at(data: dict[str, Any]) -> datetime | None:
    checked = data.get(_CHECKED_AT)
    try:
        return datetime.fromisoformat(checked) if isinstance(checked, str) else None
    except ValueError:
        return None  # never written by OnFile: ask again
