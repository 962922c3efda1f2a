"""The organisation's settings (`/admin/organisation`), for administrators of an organisation: whether
each person approves what the assistant concludes about them before it reaches any prompt, and how long
what it concluded is kept.

Who may change them is decided in `store.consent.Consent` and `store.expiry.Expiry` (an administrator
of their own organisation); each change is audited at the organisation's scope with the value before
and after. A lifetime that is not one of those offered is refused with the page and its reason (400). A
lifetime that would expire some of what the assistant concluded at once is asked about first, with how
many memories of how many people, and asked again if that number changed before it was confirmed; each
change is said on the page it leads back to."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any

from litestar import Request, get, post
from litestar.di import NamedDependency
from litestar.enums import RequestEncodingType
from litestar.params import Body
from litestar.response import Redirect, Template

from store.consent import ApprovalSetting
from store.domain.expiry import LIFETIME_CHOICES, lifetime_choice, lifetime_words
from store.expiry import ExpiringAtOnce, LifetimeSetting
from web.admin.pages import NOTICES
from web.kit.area import NO_STORE, AreaView, area_view
from web.kit.identity.visit import Visit
from web.kit.notices import NoticeView
from web.kit.words import count_words
from web.services import PRUNE_EVERY

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
    notice: NoticeView | None = None
    """What the last change did."""
    back: str = "/admin/organisation"


def lifetime_view(setting: LifetimeSetting, error: str = "") -> LifetimeView:
    options = (
        LifetimeOption("never", "Until the person forgets them", setting.days is None),
        *(LifetimeOption(str(days), f"{days} days", setting.days == days) for days in LIFETIME_CHOICES),
    )
    return LifetimeView(lifetime_words(setting.days), setting.chosen, options, error)


async def _page(
    visit: Visit, error: str = "", *, approval_error: str = "", notice: NoticeView | None = None
) -> OrganisationPage:
    lifetime = await visit.services.expiry.lifetime_setting(visit.viewer.actor)
    return OrganisationPage(
        area=area_view(visit.viewer, visit.elevation, "organisation"),
        setting=await visit.services.consent.approval_setting(visit.viewer.actor),
        default_required=visit.services.settings.approval_required,
        lifetime=None if lifetime is None else lifetime_view(lifetime, error),
        approval_error=approval_error,
        notice=notice,
    )


@get("/admin/organisation", name="admin_organisation", include_in_schema=False)
async def organisation_settings(request: Request[Any, Any, Any], visit: NamedDependency[Visit]) -> Template:
    notice = NOTICES.read(visit.services, visit.viewer, request.cookies.get(NOTICES.name), datetime.now(UTC))
    page = await _page(visit, notice=notice)
    cookies = [NOTICES.cleared()] if NOTICES.name in request.cookies else []
    context = {"page": page, "area": page.area, "focus_notice": True}
    return Template("admin/organisation.html", context=context, headers=NO_STORE, cookies=cookies)


def _saved(visit: Visit, message: str) -> Redirect:
    """Back to the page, which says what the change did."""
    cookie = NOTICES.sealed(visit.services, visit.viewer, NoticeView(kind="done", message=message), datetime.now(UTC))
    return Redirect("/admin/organisation", status_code=303, headers=NO_STORE, cookies=[cookie])


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
    required = data.required == "yes"
    await visit.services.consent.require_approval(visit.viewer.actor, required=required)
    if required:
        return _saved(visit, "Saved: each person now approves what the assistant concludes about them.")
    return _saved(
        visit,
        "Saved: what the assistant concludes is now kept without asking. Notes already waiting still wait for "
        "their people to approve or discard them.",
    )


NOT_OFFERED = "Nothing was changed: the form sent a choice this page does not offer. Use the button below."


async def _refused(visit: Visit, error: str = "", *, approval_error: str = "") -> Template:
    page = await _page(visit, error, approval_error=approval_error)
    context = {"page": page, "area": page.area}
    return Template("admin/organisation.html", context=context, headers=NO_STORE, status_code=400)


@dataclass(frozen=True, slots=True)
class LifetimeForm:
    days: str = ""
    csrf_token: str = ""
    confirmed: str = ""
    """`yes` from the question asked before a lifetime that expires some memories at once."""
    expect: str = ""
    """How many the question said would expire: any other number now is asked again."""


@dataclass(frozen=True, slots=True)
class LifetimeQuestion:
    """Before a lifetime that expires some of what the assistant concluded at once."""

    area: AreaView
    days: str
    words: str
    """The lifetime asked for, in words ("kept for 30 days after the person last kept them or …")."""
    going: ExpiringAtOnce
    changed: bool
    """What would expire changed since the question was first asked (another change, or time passing)."""
    prune_minutes: int

    @property
    def memories_words(self) -> str:
        return count_words(self.going.memories)

    @property
    def people_words(self) -> str:
        return count_words(self.going.people, "person", "people")


@post("/admin/organisation/lifetime", name="admin_set_lifetime", status_code=303, include_in_schema=False)
async def set_lifetime(
    visit: NamedDependency[Visit], data: Annotated[LifetimeForm, Body(media_type=RequestEncodingType.URL_ENCODED)]
) -> Redirect | Template:
    choice = lifetime_choice(data.days)
    if choice.error:
        return await _refused(visit, f"Nothing was changed. {choice.error}")
    now = datetime.now(UTC)
    going = await visit.services.expiry.expiring_at_once(visit.viewer.actor, days=choice.days, now=now)
    confirmed = data.confirmed == "yes"
    if going is not None and going.memories and (not confirmed or going.memories != _count(data.expect)):
        question = LifetimeQuestion(
            area=area_view(visit.viewer, visit.elevation, "organisation"),
            days=data.days,
            words=lifetime_words(choice.days),
            going=going,
            changed=confirmed,
            prune_minutes=int(PRUNE_EVERY.total_seconds() // 60),
        )
        context = {"question": question, "area": question.area}
        return Template("admin/confirm_lifetime.html", context=context, headers=NO_STORE, status_code=200)
    await visit.services.expiry.set_lifetime(visit.viewer.actor, days=choice.days, now=now)
    said = f"Saved: what the assistant concludes is now {lifetime_words(choice.days)}."
    if going is not None and going.memories:
        said += f" {count_words(going.memories)} about {count_words(going.people, 'person', 'people')} expired at once."
    return _saved(visit, said)


def _count(sent: str) -> int:
    """The count a question sent back; anything else is none, so the question is asked again."""
    return int(sent) if sent.isascii() and sent.isdigit() and len(sent) < 10 else 0
