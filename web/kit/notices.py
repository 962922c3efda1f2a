"""The notices that follow a plain form's redirect: what was just done, carried to the next page in a
short-lived cookie sealed for the session (`web.kit.sealed`), so nobody can put words on a person's
page, read a fact they forgot from it, or replay it in another session. A notice is shown once, but
the personal page keeps a forget's, with its Undo, for as long as it can be undone
(`web.me.pages.memories`).

Each audience has a cookie of its own (`NoticeCookie`), holding only the kinds of notice its pages show.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from litestar.datastructures import Cookie

from web.kit.identity.sessions import Viewer
from web.kit.sealed import seal, unseal
from web.services import Services

__all__ = ("NOTICE_SECONDS", "NoticeCookie", "NoticeKind", "NoticeView")

NOTICE_SECONDS = 10 * 60
_COOKIE_LIMIT = 3800  # a browser keeps about 4 KB per cookie; a notice too long for it loses its undo

NoticeKind = Literal["done", "warning", "forgotten", "restored", "published", "problem"]


@dataclass(frozen=True, slots=True)
class NoticeView:
    """What just happened, shown at the top of the page. `warning` is a success that needs attention
    (a pin past the ceiling)."""

    kind: NoticeKind
    message: str
    detail: str = ""
    undo_token: str = ""
    """Present when the person may still undo a forget."""
    receipt_href: str = ""
    """Where the receipt of a forget is shown (present after a forget)."""


@dataclass(frozen=True, slots=True)
class NoticeCookie:
    """One audience's notice cookie: its name, what it is sealed for, the kinds of notice its pages
    show (any other reads as none), and how long a notice lasts."""

    name: str
    purpose: str
    kinds: frozenset[NoticeKind]
    seconds: int = NOTICE_SECONDS

    def sealed(self, services: Services, viewer: Viewer, notice: NoticeView, now: datetime) -> Cookie:
        """The notice for the page the browser is redirected to, sealed for this session."""
        data = {
            "kind": notice.kind,
            "message": notice.message,
            "detail": notice.detail,
            "undo": notice.undo_token,
            "receipt": notice.receipt_href,
        }
        value = seal(services.settings.secret_key, viewer.session_id, self.purpose, data, now)
        if len(value) > _COOKIE_LIMIT:
            data["undo"] = ""
            value = seal(services.settings.secret_key, viewer.session_id, self.purpose, data, now)
        return Cookie(
            key=self.name,
            value=value,
            path="/",
            max_age=self.seconds,
            httponly=True,
            samesite="lax",
            secure=services.settings.secure_cookies,
        )

    def cleared(self) -> Cookie:
        return Cookie(key=self.name, value="", path="/", max_age=0, expires=0)

    def read(self, services: Services, viewer: Viewer, value: str | None, now: datetime) -> NoticeView | None:
        """The sealed notice, or None when there is none or it is forged, another session's or another
        audience's, or stale."""
        if not value:
            return None
        data = unseal(services.settings.secret_key, viewer.session_id, self.purpose, value, now, seconds=self.seconds)
        if data is None or data.get("kind") not in self.kinds:
            return None
        return NoticeView(
            kind=data["kind"],
            message=str(data.get("message", "")),
            detail=str(data.get("detail", "")),
            undo_token=str(data.get("undo", "")),
            receipt_href=str(data.get("receipt", "")),
        )
