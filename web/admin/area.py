"""What every page of the elevated area shares: who may use which part of it, its navigation, its
refusals, and the one-shot notices that follow a plain form's redirect.

Whether a person administers anything, or may preview prompts, is `store.admin`'s answer (through the
deployment's gate); this module only asks and shows the answer.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import parse_qs, urlsplit

from litestar.datastructures import Cookie
from litestar.plugins.htmx import HTMXRequest
from litestar.response import Template

from web.auth.sessions import Viewer
from web.errors import ErrorView, current_page, error_answer
from web.security import safe_next_path
from web.services import Services

if TYPE_CHECKING:  # the page imports this module
    from web.admin.views import FactsPage

__all__ = (
    "NOTICE_COOKIE",
    "NO_STORE",
    "ROLES_UNCONFIRMED",
    "AreaView",
    "Elevation",
    "NavItem",
    "NoticeView",
    "ProblemView",
    "Section",
    "area_view",
    "back_params",
    "clear_notice_cookie",
    "elevation_of",
    "forbidden",
    "notice_cookie",
    "problem",
    "read_notice",
)

Section = Literal["facts", "audit", "people", "preview"]
NOTICE_COOKIE = "onfile_admin_notice"
NOTICE_SECONDS = 10 * 60
# Administrative pages are never cached, and one URL answers a page or a fragment.
NO_STORE = {"Cache-Control": "no-store", "Vary": "HX-Request, HX-Target"}
ROLES_UNCONFIRMED = (
    "Your organisation's sign-in service could not confirm your roles just now, so nothing administrative "
    "was done. Your own page still works; try again in a few minutes."
)
"""The refusal of every elevated act while the identity provider cannot confirm the person's roles."""


@dataclass(frozen=True, slots=True)
class Elevation:
    """What the gate lets a person do here: the scopes they administer (narrowest first) and whether
    they may preview prompts. `roles_unconfirmed`: nothing, because the identity provider could not
    confirm their roles at the session's last recheck."""

    scopes: tuple[str, ...]
    may_preview: bool
    roles_unconfirmed: bool = False

    @property
    def administers(self) -> bool:
        return bool(self.scopes)


async def elevation_of(services: Services, viewer: Viewer) -> Elevation:
    """The gate's answer for the viewer; nothing at all while their roles are unconfirmed, whatever a
    deployment's own gate would say of the person."""
    if not viewer.roles_confirmed:
        return Elevation(scopes=(), may_preview=False, roles_unconfirmed=True)
    admin, actor = services.admin, viewer.actor
    return Elevation(scopes=await admin.administered_scopes(actor), may_preview=await admin.may_preview(actor))


@dataclass(frozen=True, slots=True)
class NavItem:
    section: Section
    href: str
    label: str
    current: bool


@dataclass(frozen=True, slots=True)
class AreaView:
    """The layout's own parts: who is signed in, the CSRF token, and the sections they may use."""

    viewer_name: str
    csrf_token: str
    nav: tuple[NavItem, ...]

    @property
    def hx_headers(self) -> str:
        return json.dumps({"X-CSRF-Token": self.csrf_token})


def area_view(viewer: Viewer, elevation: Elevation, current: Section | None) -> AreaView:
    items: list[tuple[Section, str, str]] = []
    if elevation.administers:
        items += [
            ("facts", "/admin", "Shared facts"),
            ("audit", "/admin/audit", "Audit trail"),
            ("people", "/admin/people", "People"),
        ]
    if elevation.may_preview:
        items.append(("preview", "/support/preview", "Prompt preview"))
    return AreaView(
        viewer_name=viewer.name,
        csrf_token=viewer.csrf_token,
        nav=tuple(NavItem(section, href, label, section == current) for section, href, label in items),
    )


@dataclass(frozen=True, slots=True)
class ProblemView:
    """Why something was not done: as a page for a plain form, as a notice for htmx."""

    status: int
    heading: str
    message: str
    back: str
    back_label: str
    detail: str = ""


def problem(request: HTMXRequest, area: AreaView, view: ProblemView, refreshed: FactsPage | None = None) -> Template:
    """`refreshed`: for htmx, the list as it is now, sent with the notice out of band so
    a row that is gone leaves the page."""
    name = "admin/_problem.html" if request.htmx else "admin/problem.html"
    context = {"area": area, "problem": view, "refreshed": refreshed if request.htmx else None}
    return Template(name, context=context, status_code=view.status, headers=NO_STORE)


def forbidden(request: HTMXRequest, viewer: Viewer, elevation: Elevation, section: Section) -> Template:
    """The 403 page for a part of the area the person may not use, saying why and what they may use;
    for htmx (a role taken away while the page was open) the same reason as a notice."""
    if elevation.roles_unconfirmed:
        heading = "Your roles could not be confirmed"
        reason = (
            "OnFile asks your organisation's sign-in service every few minutes which roles you have. Just now "
            "it could not confirm your roles, so nothing was shown or changed. Your own page still works; try "
            "again in a few minutes, and if this goes on, sign out and sign in again."
        )
    elif section == "preview":
        heading = "The prompt preview is for support staff"
        reason = (
            "Previewing exactly what the assistant is told about a person needs the support role. "
            f"You are signed in as {viewer.actor.id}, who does not have it, so nothing was shown. If you should, "
            "ask whoever manages your organisation's sign-in for the support role."
        )
    else:
        heading = "This area is for administrators"
        reason = (
            "Shared facts are what everyone in an organisation is answered from, so only the people who "
            f"administer a scope can see and change them. You are signed in as {viewer.actor.id}, who does "
            "not administer any scope, so nothing was shown or changed. If you should, ask whoever manages "
            "your organisation's sign-in for the administrator role."
        )
    if request.htmx and not request.htmx.history_restore_request:
        view = ErrorView(403, heading, reason, current_page(request), "Reload the page", "reload")
        return error_answer(request, view, NO_STORE)
    return Template(
        "admin/forbidden.html",
        context={"area": area_view(viewer, elevation, None), "heading": heading, "reason": reason},
        status_code=403,
        headers=NO_STORE,
    )


def back_params(request: HTMXRequest, back: str, path: str) -> dict[str, str]:
    """The query of the view a form came from: for htmx the address the browser shows, otherwise the
    form's `back` field. Only a local address on `path` is read; anything else reads as no query."""
    current = request.htmx.current_url if request.htmx else None
    if current:
        parts = urlsplit(current)
        back = f"{parts.path}?{parts.query}" if parts.query else parts.path
    parts = urlsplit(safe_next_path(back))
    if parts.path != path:
        return {}
    return {name: values[0] for name, values in parse_qs(parts.query).items()}


# ---- Notices after a redirect ------------------------------------------------------------------------------


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
