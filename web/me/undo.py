"""Notices that survive one redirect, and the short window in which a forget can be undone.

Undoing a forget writes the same key, text and origin back at the person's own scope through the
provider, authorised by `memory_write_verdict` like any other write. It is a new write, not a
resurrection: the record gets a new id and "updated" becomes the moment of the undo; a pin set in
the console is not restored. The undo is refused when the key has been written at the person's own
scope again since (restoring would overwrite something newer) and after `UNDO_SECONDS`.

What the undo needs rides in a token encrypted and authenticated with a key derived from the secret
key and the session, so it cannot be read (it holds a fact the person just forgot), forged or replayed
from another session, and nothing is stored on the server. A notice for the page after a plain form's
redirect rides the same way, in a short-lived cookie, and so does how many memories a forget-all
deleted, in the address of the page that says so.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from cryptography.fernet import Fernet, InvalidToken
from litestar.datastructures import Cookie

from store import DigestEntry, MemoryOrigin, ScopeContext, WritableMemoryProvider, memory_write_verdict, own_scope
from web.kit.identity.sessions import Viewer
from web.me.on_file import on_file
from web.me.views import NoticeView
from web.services import Services

__all__ = (
    "NOTICE_COOKIE",
    "UNDO_SECONDS",
    "RestoreOutcome",
    "clear_notice_cookie",
    "forget_all_receipt",
    "notice_cookie",
    "read_forget_all_receipt",
    "read_notice",
    "restore_forgotten",
    "undo_token",
)

NOTICE_COOKIE = "onfile_notice"
UNDO_SECONDS = 10 * 60
_COOKIE_LIMIT = 3800  # a browser keeps about 4 KB per cookie; a notice too long for it loses its undo


def _seal(secret: str, session_id: str, purpose: str, data: dict[str, Any], now: datetime) -> str:
    return (
        _fernet(secret, session_id, purpose).encrypt_at_time(json.dumps(data).encode(), int(now.timestamp())).decode()
    )


def _unseal(secret: str, session_id: str, purpose: str, token: str, now: datetime) -> dict[str, Any] | None:
    """The sealed data, or None when the token is malformed, forged, for another session or purpose,
    or older than `UNDO_SECONDS`."""
    try:
        plain = _fernet(secret, session_id, purpose).decrypt_at_time(
            token.encode(), ttl=UNDO_SECONDS, current_time=int(now.timestamp())
        )
        data = json.loads(plain)
    except (InvalidToken, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _fernet(secret: str, session_id: str, purpose: str) -> Fernet:
    """Encryption and authentication with a key for this secret, session and purpose: a token holds
    a forgotten fact, which must not be readable in the browser's cookie or page source, and opens
    only for the session it was made for."""
    key = hashlib.sha256(f"onfile-{purpose}\0{session_id}\0{secret}".encode()).digest()
    return Fernet(base64.urlsafe_b64encode(key))


def undo_token(services: Services, viewer: Viewer, entry: DigestEntry, now: datetime) -> str:
    """What undoing the forget of `entry` will need, sealed for this session."""
    origin = entry.record.origin
    data = {
        "key": entry.key,
        "text": entry.text,
        "origin": [origin.author, origin.thread_id, origin.run_id, origin.actor_ref],
    }
    return _seal(services.settings.secret_key, viewer.session_id, "undo", data, now)


@dataclass(frozen=True, slots=True)
class RestoreOutcome:
    status: Literal["restored", "expired", "superseded", "refused"]
    key: str = ""
    reason: str = ""


async def restore_forgotten(services: Services, viewer: Viewer, token: str, now: datetime) -> RestoreOutcome:
    data = _unseal(services.settings.secret_key, viewer.session_id, "undo", token, now)
    if data is None:
        return RestoreOutcome("expired", reason="It is too late to undo that: it can be undone for ten minutes.")
    key, text = str(data["key"]), str(data["text"])
    author, thread_id, run_id, actor_ref = data["origin"]
    origin = MemoryOrigin(
        author="human" if author == "human" else "agent", thread_id=thread_id, run_id=run_id, actor_ref=actor_ref
    )
    actor = viewer.actor
    scope = own_scope(actor)
    current = await on_file(services, actor)
    if any(e.key == key and scope in {e.scope, *(o.scope for o in e.overrides)} for e in current.entries):
        reason = f"“{key}” has been written again since it was forgotten, so the newer value was kept."
        return RestoreOutcome("superseded", key, reason)
    verdict = memory_write_verdict(scope=scope, actor=actor, scopes=current.scopes, author=origin.author)
    provider = services.memory.provider
    if not verdict.allowed or not isinstance(provider, WritableMemoryProvider):
        return RestoreOutcome("refused", key, verdict.reason if not verdict.allowed else "Memory is read-only here.")
    await provider.write(key=key, text=text, scope=scope, origin=origin, ctx=ScopeContext(actor=actor))
    return RestoreOutcome("restored", key)


def notice_cookie(services: Services, viewer: Viewer, notice: NoticeView, now: datetime) -> Cookie:
    """The notice for the page the browser is redirected to, sealed for this session."""
    data = {"kind": notice.kind, "message": notice.message, "detail": notice.detail, "undo": notice.undo_token}
    value = _seal(services.settings.secret_key, viewer.session_id, "notice", data, now)
    if len(value) > _COOKIE_LIMIT:
        data["undo"] = ""
        value = _seal(services.settings.secret_key, viewer.session_id, "notice", data, now)
    return Cookie(
        key=NOTICE_COOKIE,
        value=value,
        path="/",
        max_age=UNDO_SECONDS,
        httponly=True,
        samesite="lax",
        secure=services.settings.secure_cookies,
    )


def clear_notice_cookie() -> Cookie:
    return Cookie(key=NOTICE_COOKIE, value="", path="/", max_age=0, expires=0)


def read_notice(services: Services, viewer: Viewer, value: str | None, now: datetime) -> NoticeView | None:
    if not value:
        return None
    data = _unseal(services.settings.secret_key, viewer.session_id, "notice", value, now)
    if data is None or data.get("kind") not in {"forgotten", "restored", "published", "problem"}:
        return None
    return NoticeView(
        kind=data["kind"],
        message=str(data.get("message", "")),
        detail=str(data.get("detail", "")),
        undo_token=str(data.get("undo", "")),
    )


def forget_all_receipt(services: Services, viewer: Viewer, count: int, now: datetime) -> str:
    """How many memories a forget-all deleted, sealed for this session: the page that says so believes
    no count it was not given by the forget-all itself."""
    return _seal(services.settings.secret_key, viewer.session_id, "forget-all", {"count": count}, now)


def read_forget_all_receipt(services: Services, viewer: Viewer, token: str, now: datetime) -> int | None:
    """The count sealed by `forget_all_receipt`, or None when there is none, or it is forged, another
    session's or older than `UNDO_SECONDS`."""
    data = _unseal(services.settings.secret_key, viewer.session_id, "forget-all", token, now) if token else None
    count = data.get("count") if data else None
    return count if isinstance(count, int) and count >= 0 else None
