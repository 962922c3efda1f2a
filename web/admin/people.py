"""Erasing a person (`/admin/people`): for an administrator of that person's organisation, or a
global administrator. A confirmation says what goes and what stays; the erasure itself is
`store.admin.Administration.erase_person`, which decides who may and records that it happened."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated
from urllib.parse import urlencode

import msgspec
from litestar import Response, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, QueryParameter
from litestar.plugins.htmx import HTMXRequest
from litestar.response import Redirect, Template

from store import Actor
from store.admin import PEOPLE_SHOWN
from store.domain.receipts import DeletionReceipt
from web.kit.area import NO_STORE, AreaView, area_view
from web.kit.area_words import organisation_name, role_words
from web.kit.identity.elevation import Elevation
from web.kit.identity.sessions import Viewer
from web.kit.identity.visit import Visit
from web.kit.problems import ProblemView, problem_answer
from web.kit.receipts import ReceiptView, open_receipt, receipt_out, receipt_view, seal_receipt
from web.kit.words import PersonName, person_name
from web.services import Services
from web.settings import Settings

__all__ = (
    "ERASE_PATH",
    "ERASURE_RECEIPT_PATH",
    "confirm_erasure",
    "erase_href",
    "erase_person",
    "erasure_receipt",
    "people",
)

ERASE_PATH = "/admin/people/erase"
OLD_ERASE_PATH = "/admin/people/{person_id:str}/erase"
ERASURE_RECEIPT_PATH = "/admin/people/erasure-receipt.json"
PersonId = Annotated[str | None, QueryParameter(name="person", description="The person's id.")]


@dataclass(frozen=True, slots=True)
class PersonView:
    """`erase_href` addresses the person in the query, so any id works (one holding '/', or '..')."""

    id: str
    who: PersonName
    organisation: str
    roles: str
    erase_href: str
    yourself: bool = False
    """The administrator looking: not erased from here (see `_yourself`)."""


@dataclass(frozen=True, slots=True)
class PeoplePage:
    """`more` when more people could be erased than are listed (`shown`); `sought` is the id looked
    for, if one was."""

    area: AreaView
    people: tuple[PersonView, ...]
    more: bool = False
    shown: int = PEOPLE_SHOWN
    sought: str = ""


@dataclass(frozen=True, slots=True)
class ErasurePage:
    area: AreaView
    person: PersonView
    memories: int
    retention_hours: int
    done: bool = False
    checkpoints: int = 0
    conversations: int = 0
    sessions: int = 0
    receipt: ReceiptView | None = None
    waiting: int = 0
    """Notes waiting for the person's approval: to go (on the question), or gone (once erased)."""


def _person(actor: Actor, names: Mapping[str, str], settings: Settings, viewer: Viewer | None = None) -> PersonView:
    return PersonView(
        id=actor.id,
        who=person_name(actor.id, names),
        organisation=organisation_name(actor.tenant_ref) if actor.tenant_ref else "no organisation",
        roles=role_words(actor.roles, settings),
        erase_href=erase_href(actor.id),
        yourself=viewer is not None and actor.id == viewer.actor.id,
    )


def erase_href(person_id: str) -> str:
    """The erasure's address for a person: their id in the query, encoded, never a path segment."""
    return f"{ERASE_PATH}?{urlencode({'person': person_id})}"


async def _erasable(services: Services, viewer: Viewer, person_id: str) -> Actor | None:
    return await services.admin.erasable_person(viewer.actor, person_id)


@get("/admin/people", name="admin_people", include_in_schema=False)
async def people(
    request: HTMXRequest,
    visit: NamedDependency[Visit],
    person: Annotated[
        str | None, QueryParameter(name="person", description="Find people by their name or their id.")
    ] = None,
) -> Template:
    sought = person.strip() if person else ""
    found = await visit.services.admin.erasable_people(visit.viewer.actor, sought=sought or None)
    names = found.names
    page = PeoplePage(
        area=area_view(visit.viewer, visit.elevation, "people"),
        people=tuple(_person(p, names, visit.services.settings, visit.viewer) for p in found.people),
        more=found.more,
        sought=sought,
    )
    return Template("admin/people.html", context={"page": page, "area": page.area}, headers=NO_STORE)


@get([ERASE_PATH, OLD_ERASE_PATH], name="admin_confirm_erasure", include_in_schema=False)
async def confirm_erasure(
    request: HTMXRequest,
    visit: NamedDependency[Visit],
    person: PersonId = None,
    person_id: FromPath[str | None] = None,
) -> Template | Redirect:
    """The confirmation, for `?person=`; the address it had before (the id in the path, which cannot
    hold every id) leads there."""
    if person_id is not None:
        return Redirect(path=erase_href(person_id))
    person_id = person or ""
    if person_id == visit.viewer.actor.id:
        return _yourself(request, visit.viewer, visit.elevation)
    found = await _erasable(visit.services, visit.viewer, person_id)
    if found is None:
        return _not_found(request, visit.viewer, visit.elevation, person_id)
    page = ErasurePage(
        area=area_view(visit.viewer, visit.elevation, "people"),
        person=_person(found, await visit.services.people.names_of([found.id]), visit.services.settings),
        memories=await visit.services.admin.own_memory_count(found),
        retention_hours=visit.services.settings.journal_retention_hours,
        waiting=await visit.services.admin.waiting_count(found),
    )
    return Template("admin/erase.html", context={"page": page, "area": page.area}, headers=NO_STORE)


@post([ERASE_PATH, OLD_ERASE_PATH], name="admin_erase", status_code=200, include_in_schema=False)
async def erase_person(
    request: HTMXRequest,
    visit: NamedDependency[Visit],
    person: PersonId = None,
    person_id: FromPath[str | None] = None,
) -> Template:
    """The erasure, for `?person=` (a confirmation rendered before, posting to the id in the path, still works)."""
    return await _erase(request, visit, person_id if person_id is not None else person or "")


async def _erase(request: HTMXRequest, visit: Visit, person_id: str) -> Template:
    if person_id == visit.viewer.actor.id:
        return _yourself(request, visit.viewer, visit.elevation)
    # Anyone OnFile has seen is asked for: the store refuses (and audits the attempt) when they are
    # not the administrator's to erase.
    person = await visit.services.people.find(person_id)
    # Their name goes with them: the page saying so is the last to name them.
    names = {} if person is None else await visit.services.people.names_of([person.id])
    erasure = None if person is None else await visit.services.admin.erase_person(visit.viewer.actor, person)
    if person is None or erasure is None:  # already erased (a second submit), or never one of theirs
        return _not_found(request, visit.viewer, visit.elevation, person_id)
    page = ErasurePage(
        area=area_view(visit.viewer, visit.elevation, "people"),
        person=_person(person, names, visit.services.settings),
        memories=erasure.memories,
        retention_hours=visit.services.settings.journal_retention_hours,
        done=True,
        checkpoints=erasure.checkpoints,
        conversations=erasure.conversations,
        sessions=erasure.sessions,
        receipt=_receipt(visit, erasure.receipt),
        waiting=erasure.waiting,
    )
    return Template("admin/erase.html", context={"page": page, "area": page.area}, headers=NO_STORE)


def _receipt(visit: Visit, receipt: DeletionReceipt | None) -> ReceiptView | None:
    if receipt is None:
        return None
    return receipt_view(receipt, seal_receipt(visit.services, visit.viewer, receipt), ERASURE_RECEIPT_PATH)


@get(ERASURE_RECEIPT_PATH, name="admin_erasure_receipt", include_in_schema=False)
async def erasure_receipt(
    visit: NamedDependency[Visit],
    receipt: Annotated[str, QueryParameter(name="receipt", max_length=2000)] = "",
) -> Response[bytes]:
    """An erasure's receipt as JSON, for the administrator who did it (sealed for their session, for a
    day); 404 without a valid one."""
    found = open_receipt(visit.services, visit.viewer, receipt, datetime.now(UTC))
    if found is None or found.act != "erasure":
        return Response(b'{"error": "There is no such receipt here."}', status_code=404, media_type="application/json")
    stamp = found.at.astimezone(UTC).strftime("%Y-%m-%d-%H%M%S")
    headers = {**NO_STORE, "Content-Disposition": f'attachment; filename="onfile-erasure-{stamp}.json"'}
    return Response(msgspec.json.encode(receipt_out(found)), media_type="application/json", headers=headers)


def _yourself(request: HTMXRequest, viewer: Viewer, elevation: Elevation) -> Template:
    """An administrator does not erase themselves here: an erasure ends every session of the person
    at once, so the page that says what went, and its receipt, would be lost with their own."""
    message = (
        "Erasing someone signs them out everywhere at once, so you would be signed out before you could "
        "see what went or keep its receipt. Ask another administrator of your organisation to erase you. "
        "To remove what is on file about you alone now, use “Forget all of yours…” on your own page."
    )
    view = ProblemView(403, "You can't erase yourself here", message, back="/admin/people", back_label="Back to people")
    area = {"area": area_view(viewer, elevation, "people")}
    return problem_answer(request, view, page="admin/problem.html", headers=NO_STORE, context=area)


def _not_found(request: HTMXRequest, viewer: Viewer, elevation: Elevation, person_id: str) -> Template:
    """An administrator asked about someone who is not among the people they may erase: the person is
    the problem, not the administrator, so it is a 404 saying so."""
    message = (
        f"“{person_id}” is not among the people of the organisations you administer whom OnFile has seen. "
        "They may have been erased already, or belong to another organisation."
    )
    view = ProblemView(404, "That person isn't here", message, back="/admin/people", back_label="Back to people")
    area = {"area": area_view(viewer, elevation, "people")}
    return problem_answer(request, view, page="admin/problem.html", headers=NO_STORE, context=area)
