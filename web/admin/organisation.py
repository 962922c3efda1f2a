"""The organisation's settings (`/admin/organisation`), for administrators of an organisation: whether
each person approves what the assistant concludes about them before it reaches any prompt.

Who may change it is decided in `store.consent.Consent` (an administrator of their own organisation);
the change is audited at the organisation's scope with the value before and after."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from litestar import get, post
from litestar.di import NamedDependency
from litestar.enums import RequestEncodingType
from litestar.params import Body
from litestar.response import Redirect, Template

from store.consent import ApprovalSetting
from web.kit.area import NO_STORE, AreaView, area_view
from web.kit.identity.visit import Visit

__all__ = ("organisation_settings", "set_approval")


@dataclass(frozen=True, slots=True)
class OrganisationPage:
    area: AreaView
    setting: ApprovalSetting | None
    """None for someone who administers no organisation (a global administrator of none)."""
    default_required: bool


@get("/admin/organisation", name="admin_organisation", include_in_schema=False)
async def organisation_settings(visit: NamedDependency[Visit]) -> Template:
    setting = await visit.services.consent.approval_setting(visit.viewer.actor)
    page = OrganisationPage(
        area=area_view(visit.viewer, visit.elevation, "organisation"),
        setting=setting,
        default_required=visit.services.settings.approval_required,
    )
    return Template("admin/organisation.html", context={"page": page, "area": page.area}, headers=NO_STORE)


@dataclass(frozen=True, slots=True)
class ApprovalForm:
    required: str = ""
    csrf_token: str = ""


@post("/admin/organisation/approval", name="admin_set_approval", status_code=303, include_in_schema=False)
async def set_approval(
    visit: NamedDependency[Visit], data: Annotated[ApprovalForm, Body(media_type=RequestEncodingType.URL_ENCODED)]
) -> Redirect:
    await visit.services.consent.require_approval(visit.viewer.actor, required=data.required == "yes")
    return Redirect("/admin/organisation", status_code=303, headers=NO_STORE)
