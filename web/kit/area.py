"""What every page of the elevated area shares (the shared facts, the audit trail, people, and support's
prompt preview): its navigation, its layout's parts, and its refusal of someone who may not use a part.

Who may use which part is `web.kit.identity.elevation`'s answer; this module only shows it. A part's
requirement refuses with `NotElevatedError` before its handler runs, and `not_elevated_page` (the
application's handler of it) answers the 403 page saying why.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from litestar import Request
from litestar.datastructures import State
from litestar.plugins.htmx import HTMXDetails
from litestar.response import Template

from web.kit.errors import ErrorView, current_page, error_answer
from web.kit.identity.elevation import Elevation, Need, NotElevatedError
from web.kit.identity.sessions import Viewer

__all__ = (
    "NO_STORE",
    "AreaView",
    "NavItem",
    "Section",
    "area_name",
    "area_view",
    "forbidden",
    "not_elevated_page",
)

Section = Literal["facts", "audit", "people", "organisation", "preview"]
# Administrative pages are never cached, and one URL answers a page or a fragment.
NO_STORE = {"Cache-Control": "no-store", "Vary": "HX-Request, HX-Target"}


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
    name: str
    """What the area is called for this person: "Administration", "Support", or both."""

    @property
    def hx_headers(self) -> str:
        return json.dumps({"X-CSRF-Token": self.csrf_token})


def area_view(
    viewer: Viewer, elevation: Elevation, current: Section | None, *, visited: Need | None = None
) -> AreaView:
    """`visited`: the part of the area someone was refused (a `Need`), which names the area for them."""
    items: list[tuple[Section, str, str]] = []
    if elevation.administers:
        items += [
            ("facts", "/admin", "Shared facts"),
            ("audit", "/admin/audit", "Audit trail"),
            ("people", "/admin/people", "People"),
        ]
    if elevation.administers and viewer.actor.tenant_ref and f"tenant:{viewer.actor.tenant_ref}" in elevation.scopes:
        items.append(("organisation", "/admin/organisation", "Organisation"))
    if elevation.may_preview:
        items.append(("preview", "/support/preview", "Prompt preview"))
    return AreaView(
        viewer_name=viewer.name,
        csrf_token=viewer.csrf_token,
        nav=tuple(NavItem(section, href, label, section == current) for section, href, label in items),
        name=area_name(elevation, "preview" if "preview" in (current, visited) else None),
    )


def area_name(elevation: Elevation, visited: Section | None = None) -> str:
    """The area named for what the person does there: administrators administer, support previews, and
    someone with both roles is told both. Someone with neither is told the name of the part they tried."""
    if elevation.administers and elevation.may_preview:
        return "Administration and support"
    if elevation.administers or elevation.may_preview:
        return "Administration" if elevation.administers else "Support"
    return "Support" if visited == "preview" else "Administration"


def not_elevated_page(request: Request[Any, Any, State], error: NotElevatedError) -> Template:
    """The application's answer to a part's requirement refusing someone (`forbidden`)."""
    return forbidden(request, error.viewer, error.elevation, error.need)


def forbidden(request: Request[Any, Any, State], viewer: Viewer, elevation: Elevation, need: Need) -> Template:
    """The 403 page for a part of the area the person may not use, saying why and what they may use;
    for htmx (a role taken away while the page was open) the same reason as a notice."""
    if elevation.roles_unconfirmed:
        heading = "Your roles could not be confirmed"
        reason = (
            "OnFile asks your organisation's sign-in service every few minutes which roles you have. Just now "
            "it could not confirm your roles, so nothing was shown or changed. Your own page still works; try "
            "again in a few minutes, and if this goes on, sign out and sign in again."
        )
    elif need == "preview":
        heading = "The prompt preview is for support staff"
        reason = (
            "Previewing exactly what the assistant is told about a person needs the support role. "
            f"You are signed in as {viewer.name}, who does not have it, so nothing was shown. If you should, "
            "ask whoever manages your organisation's sign-in for the support role."
        )
    else:
        heading = "This area is for administrators"
        reason = (
            "Shared facts are what everyone in an organisation is answered from, so only their administrators "
            f"can see and change them. You are signed in as {viewer.name}, who is not an administrator, so "
            "nothing was shown or changed. If you should be, ask whoever manages your organisation's sign-in for "
            "the administrator role."
        )
    htmx = HTMXDetails(request)
    if htmx and not htmx.history_restore_request:
        view = ErrorView(403, heading, reason, current_page(request), "Reload the page", "reload")
        return error_answer(request, view, NO_STORE)
    return Template(
        "kit/forbidden.html",
        context={"area": area_view(viewer, elevation, None, visited=need), "heading": heading, "reason": reason},
        status_code=403,
        headers=NO_STORE,
    )
