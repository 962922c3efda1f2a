"""'Who has looked' (`/looked`): every act by someone on staff about the signed-in person — support
previewing what their assistant is told, an administrator erasing what was on file, an operator
moving them between organisations — read from the audit trail, and downloadable as CSV and JSON.

The person is the session's, never one named in the address: there is nothing to tamper with.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import UTC, datetime

import msgspec
from litestar import Response, get
from litestar.di import NamedDependency
from litestar.response import Template

from store.domain.looks import StaffAct
from web.kit.area_words import organisation_name
from web.kit.identity.sessions import Viewer
from web.kit.spreadsheets import CSV_MEDIA_TYPE, for_spreadsheets, neutralise_cell
from web.kit.views import TimeView, time_view
from web.kit.words import PersonName, exact_time, person_name
from web.services import Services

__all__ = ("LookOut", "LookedPage", "looked_csv", "looked_json", "who_looked")

_HEADERS = {"Cache-Control": "no-store"}


def act_words(act: StaffAct) -> str:
    """What the act was, in words the person reads ("Looked at what your assistant is told about you")."""
    if act.kind == "preview":
        return "Looked at what your assistant is told about you (a support preview of your prompt)"
    if act.kind == "erase":
        return "Erased what was on file about you"
    if act.kind == "erase-refused":
        return "Tried to erase what is on file about you, and was refused"
    return f"Moved you from {_organisation(act.moved_from)} to {_organisation(act.moved_to)}"


def _organisation(tenant: str | None) -> str:
    return organisation_name(tenant) if tenant else "no organisation"


def for_words(act: StaffAct) -> str:
    """Which organisation's view of them it was, by its name ("For Berlin")."""
    return f"For {organisation_name(act.organisation)}" if act.organisation else ""


@dataclass(frozen=True, slots=True)
class LookView:
    at: TimeView
    who: PersonName
    what: str
    organisation: str


@dataclass(frozen=True, slots=True)
class LookedPage:
    viewer_name: str
    csrf_token: str
    looks: tuple[LookView, ...]


class LookOut(msgspec.Struct, frozen=True):
    """One act as the downloads carry it: when (ISO 8601, UTC), who by name and id, what, and for which
    organisation by name and id ("" when the trail does not say)."""

    when: str
    who: str
    who_id: str
    what: str
    organisation: str
    organisation_id: str


async def _looks(services: Services, viewer: Viewer) -> tuple[tuple[StaffAct, ...], dict[str, str]]:
    acts = await services.consent.who_looked(viewer.actor)
    return acts, await services.people.names_of(act.who for act in acts)


@get("/looked", name="who_looked", include_in_schema=False)
async def who_looked(services: NamedDependency[Services], viewer: NamedDependency[Viewer]) -> Template:
    acts, names = await _looks(services, viewer)
    now = datetime.now(UTC)
    looks = tuple(LookView(time_view(a.at, now), person_name(a.who, names), act_words(a), for_words(a)) for a in acts)
    page = LookedPage(viewer_name=viewer.name, csrf_token=viewer.csrf_token, looks=looks)
    return Template("me/looked.html", context={"page": page}, headers=_HEADERS)


def _downloads(acts: tuple[StaffAct, ...], names: dict[str, str]) -> list[LookOut]:
    return [
        LookOut(
            when=a.at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
            who=names.get(a.who, a.who),
            who_id=a.who,
            what=act_words(a),
            organisation=organisation_name(a.organisation) if a.organisation else "",
            organisation_id=a.organisation or "",
        )
        for a in acts
    ]


def _attachment(extension: str) -> str:
    return f'attachment; filename="onfile-who-looked-{datetime.now(UTC):%Y-%m-%d}.{extension}"'


@get("/looked.json", name="who_looked_json", include_in_schema=False)
async def looked_json(services: NamedDependency[Services], viewer: NamedDependency[Viewer]) -> Response[bytes]:
    looks = _downloads(*await _looks(services, viewer))
    headers = {**_HEADERS, "Content-Disposition": _attachment("json")}
    return Response(msgspec.json.encode(looks), media_type="application/json", headers=headers)


@get("/looked.csv", name="who_looked_csv", include_in_schema=False)
async def looked_csv(services: NamedDependency[Services], viewer: NamedDependency[Viewer]) -> Response[str]:
    looks = _downloads(*await _looks(services, viewer))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(("when", "when_utc", "who", "who_id", "what", "organisation", "organisation_id"))
    for look in looks:
        spelled = exact_time(datetime.fromisoformat(look.when))
        row = (look.when, spelled, look.who, look.who_id, look.what, look.organisation, look.organisation_id)
        writer.writerow([neutralise_cell(cell) for cell in row])
    headers = {**_HEADERS, "Content-Disposition": _attachment("csv")}
    return Response(for_spreadsheets(out.getvalue()), media_type=CSV_MEDIA_TYPE, headers=headers)
