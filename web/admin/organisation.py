"""The organisation's settings (`/admin/organisation`), for administrators of an organisation: whether
each person approves what the assistant concludes about them before it reaches any prompt, and how long
what it concluded is kept.

Who may change them is decided in `store.consent.Consent` and `store.expiry.Expiry` (an administrator
of their own organisation); each change is audited at the organisation's scope with the value before
and after. A lifetime that is not one of those offered is refused with the page and its reason (400)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from litestar import get, post
from litestar.di import NamedDependency
from litestar.enums import RequestEncodingType
from litestar.params import Body
from litestar.response import Redirect, Template

from store.consent import ApprovalSetting
from store.domain.expiry import LIFETIME_CHOICES, lifetime_choice, lifetime_words
from store.expiry import LifetimeSetting
from web.kit.area import NO_STORE, AreaView, area_view
from web.kit.identity.visit import Visit

__all__ = ("organisation_settings", "set_approval", "set_lifetime")


@dataclass(frozen=True, slots=True)
class LifetimeOption:
    value: str
    label: str
    selected: bool


@dataclass(frozen=True, slots=True)
class LifetimeView:
    """How long what the assistant concludes is kept, in words, and the choices offered."""

    words: str
    chosen: bool
    options: tuple[LifetimeOption, ...]
    error: str = ""


@dataclass(frozen=True, slots=True)
class OrganisationPage:
    area: AreaView
    setting: ApprovalSetting | None
    """None for someone who administers no organisation (a global administrator of none)."""
    default_required: bool
    lifetime: LifetimeView | None = None
    approval_error: str = ""
    """Why a change of the approval setting was refused (a value the page never offers)."""


def lifetime_view(setting: LifetimeSetting, error: str = "") -> LifetimeView:
    options = (
        LifetimeOption("never", "Until the person forgets them", setting.days is None),
        *(LifetimeOption(str(days), f"{days} days", setting.days == days) for days in LIFETIME_CHOICES),
    )
    return LifetimeView(lifetime_words(setting.days), setting.chosen, options, error)


async def _page(visit: Visit, error: str = "", *, approval_error: str = "") -> OrganisationPage:
    lifetime = await visit.services.expiry.lifetime_setting(visit.viewer.actor)
    return OrganisationPage(
        area=area_view(visit.viewer, visit.elevation, "organisation"),
        setting=await visit.services.consent.approval_setting(visit.viewer.actor),
        default_required=visit.services.settings.approval_required,
        lifetime=None if lifetime is None else lifetime_view(lifetime, error),
        approval_error=approval_error,
    )


@get("/admin/organisation", name="admin_organisation", include_in_schema=False)
async def organisation_settings(visit: NamedDependency[Visit]) -> Template:
    page = await _page(visit)
    return Template("admin/organisation.html", context={"page": page, "area": page.area}, headers=NO_STORE)


@dataclass(frozen=True, slots=True)
class ApprovalForm:
    required: str = ""
    csrf_token: str = ""


@post("/admin/organisation/approval", name="admin_set_approval", status_code=303, include_in_schema=False)
async def set_approval(
    visit: NamedDependency[Visit], data: Annotated[ApprovalForm, Body(media_type=RequestEncodingType.URL_ENCODED)]
) -> Redirect | Template:
    """`required=yes` or `required=no`, as the page's one button sends; anything else changes nothing
    (a privacy setting is never switched by a value the page does not offer), and the page says so."""
    if data.required not in ("yes", "no"):
        return await _refused(visit, approval_error=NOT_OFFERED)
    await visit.services.consent.require_approval(visit.viewer.actor, required=data.required == "yes")
    return Redirect("/admin/organisation", status_code=303, headers=NO_STORE)


NOT_OFFERED = "Nothing was changed: the form sent a choice this page does not offer. Use the button below."


async def _refused(visit: Visit, error: str = "", *, approval_error: str = "") -> Template:
    page = await _page(visit, error, approval_error=approval_error)
    context = {"page": page, "area": page.area}
    return Template("admin/organisation.html", context=context, headers=NO_STORE, status_code=400)


@dataclass(frozen=True, slots=True)
class LifetimeForm:
    days: str = ""
    csrf_token: str = ""


@post("/admin/organisation/lifetime", name="admin_set_lifetime", status_code=303, include_in_schema=False)
async def set_lifetime(
    visit: NamedDependency[Visit], data: Annotated[LifetimeForm, Body(media_type=RequestEncodingType.URL_ENCODED)]
) -> Redirect | Template:
    choice = lifetime_choice(data.days)
    if choice.error:
        return await _refused(visit, f"Nothing was changed. {choice.error}")
    await visit.services.expiry.set_lifetime(visit.viewer.actor, days=choice.days)
    return Redirect("/admin/organisation", status_code=303, headers=NO_STORE)
