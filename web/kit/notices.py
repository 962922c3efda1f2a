"""The one-shot notices that follow a plain form's redirect in the elevated area: what was just done,
carried to the next page in a short-lived cookie sealed for the session."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from litestar.datastructures import Cookie

from web.kit.identity.sessions import Viewer
from web.services import Services

__all__ = ("NOTICE_COOKIE", "NoticeView", "clear_notice_cookie", "notice_cookie", "read_notice")

NOTICE_COOKIE = "onfile_admin_notice"
NOTICE_SECONDS = 10 * 60


@dataclass(frozen=True, slots=True)
class NoticeView:
    """What just happened, shown once. `warning` is a success that needs attention (a pin past the
    ceiling)."""

    kind: Literal["done", "warning", "problem"]
    message: str
    detail: str = ""


def _mac(secret: str, session_id: str, body: str) -> str:
    return hmac.new(secret.encode(), f"admin-notice\0{session_id}\0{body}".encode(), hashlib.sha256).hexdigest()


def notice_cookie(services: Services, viewer: Viewer, notice: NoticeView, now: datetime) -> Cookie:
    """The notice for the page the browser is sent to, sealed for this session so nobody can put words
    on an administrator's page."""
    data = {"at": int(now.timestamp()), "kind": notice.kind, "message": notice.message, "detail": notice.detail}
    body = base64.urlsafe_b64encode(json.dumps(data).encode()).decode()
    return Cookie(
        key=NOTICE_COOKIE,
        value=f"{body}.{_mac(services.settings.secret_key, viewer.session_id, body)}",
        path="/",
        max_age=NOTICE_SECONDS,
        httponly=True,
        samesite="lax",
        secure=services.settings.secure_cookies,
    )


def clear_notice_cookie() -> Cookie:
    return Cookie(key=NOTICE_COOKIE, value="", path="/", max_age=0, expires=0)


def read_notice(services: Services, viewer: Viewer, value: str | None, now: datetime) -> NoticeView | None:
    """The sealed notice, or None when there is none or it is forged, another session's, or stale."""
    if not value:
        return None
    body, _, mac = value.partition(".")
    if not hmac.compare_digest(mac, _mac(services.settings.secret_key, viewer.session_id, body)):
        return None
    try:
        data: dict[str, Any] = json.loads(base64.urlsafe_b64decode(body.encode()))
        age = now.timestamp() - int(data["at"])
        kind = data["kind"]
    except (ValueError, KeyError, TypeError):
        return None
    if not -60 <= age <= NOTICE_SECONDS or kind not in {"done", "warning", "problem"}:
        return None
    return NoticeView(kind=kind, message=str(data.get("message", "")), detail=str(data.get("detail", "")))
