"""A person's say over new memories, from their own page: pausing memory, and the notes their assistant
concluded that wait for their approval (when their organisation requires it).

- `POST /memories/pause` pauses or resumes (`paused=yes|no`) and comes back to the page; for htmx it
  answers the controls fragment in place.
- `GET /memories/waiting` lists the waiting notes; `POST /memories/waiting/{id}/approve` makes one an
  ordinary memory, `…/discard` deletes it, each coming back to the list, which names the note and
  what became of it (for htmx: the row's replacement, which is nothing).
- `GET /agent/memories/waiting` answers the same as JSON for a chat client: how many wait, and which.

A note that is not the person's answers exactly like one that does not exist, or one already settled:
404, with the problem page (for htmx, the notice) every gone thing answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

import msgspec
from litestar import MediaType, Request, Response, get, post
from litestar.di import NamedDependency
from litestar.enums import RequestEncodingType
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import Body, FromPath
from litestar.plugins.htmx import HTMXRequest
from litestar.response import Redirect, Template

from store.domain.wire import WaitingNoteWire, waiting_note_wire
from web.kit.api_errors import JSON_API_EXCEPTIONS
from web.kit.errors import LOG_IN_FIRST
from web.kit.identity.sessions import Viewer
from web.kit.notices import NoticeCookie, NoticeView
from web.kit.problems import ProblemView, problem_answer
from web.kit.session_api import NO_STORE_JSON
from web.kit.views import TimeView, time_view
from web.kit.wire import UNAVAILABLE, refusal
from web.services import Services

__all__ = (
    "ControlsView",
    "controls_view",
    "pause_memory",
    "settle_waiting",
    "waiting_api",
    "waiting_page",
)

_HEADERS = {"Cache-Control": "no-store"}
GONE = "It may already have been approved or discarded."
SETTLED = NoticeCookie("onfile_settled", purpose="settled", kinds=frozenset({"done"}), seconds=60)
"""What approving or discarding a note did, for the list the browser comes back to: a cookie of its
own, so the personal page's notice (a forget's, with its Undo) is left as it was."""


@dataclass(frozen=True, slots=True)
class ControlsView:
    """The person's page's controls: whether memory is paused, and how many notes wait."""

    csrf_token: str
    paused: bool
    waiting: int


async def controls_view(services: Services, viewer: Viewer) -> ControlsView:
    controls = await services.consent.controls(viewer.actor)
    waiting = await services.consent.waiting_count(viewer.actor)
    return ControlsView(csrf_token=viewer.csrf_token, paused=controls.paused, waiting=waiting)


@dataclass(frozen=True, slots=True)
class PauseForm:
    paused: str = ""
    csrf_token: str = ""


@post("/memories/pause", name="pause_memory", status_code=303, include_in_schema=False)
async def pause_memory(
    request: HTMXRequest,
    services: NamedDependency[Services],
    viewer: NamedDependency[Viewer],
    data: Annotated[PauseForm, Body(media_type=RequestEncodingType.URL_ENCODED)],
) -> Template | Redirect:
    if data.paused not in ("yes", "no"):  # not the page's form: say so rather than guess
        problem = ProblemView(
            400, "That did not change anything", "Pause or resume memory with the button on your page.", back="/"
        )
        account = {"viewer_name": viewer.name, "csrf_token": viewer.csrf_token}
        return problem_answer(request, problem, page="me/problem.html", headers=_HEADERS, context={"account": account})
    await services.consent.pause(viewer.actor, paused=data.paused == "yes")
    if request.htmx:
        context = {"controls": await controls_view(services, viewer)}
        return Template("me/_controls.html", context=context, headers=_HEADERS, status_code=200)
    return Redirect("/", status_code=303, headers=_HEADERS)


@dataclass(frozen=True, slots=True)
class WaitingView:
    id: str
    key: str
    text: str
    concluded: TimeView
    replaces: str | None = None
    """The text of the person's own memory under the same key, which approving this note replaces."""
    replaces_stated: bool = False
    """Whether they wrote that memory themselves (rather than the assistant concluding it)."""


@dataclass(frozen=True, slots=True)
class WaitingPage:
    viewer_name: str
    csrf_token: str
    notes: tuple[WaitingView, ...]
    settled: str = ""
    """What the last approval or discard did, naming the note ("" when nothing was just settled)."""
    asked: bool = True
    """Whether their organisation asks them to approve new notes now: notes held while it did keep
    waiting after it stops, and the page says which is so."""


@get("/memories/waiting", name="waiting_page", include_in_schema=False)
async def waiting_page(
    request: Request[Any, Any, Any], services: NamedDependency[Services], viewer: NamedDependency[Viewer]
) -> Template:
    now = datetime.now(UTC)
    notes = tuple(
        WaitingView(
            n.id,
            n.key,
            n.text,
            time_view(n.concluded_at, now),
            replaces=None if held is None else held.text,
            replaces_stated=held is not None and held.origin.author == "human",
        )
        for n, held in await services.consent.waiting_beside_held(viewer.actor)
    )
    asked = (await services.consent.controls(viewer.actor)).approval_required
    notice = SETTLED.read(services, viewer, request.cookies.get(SETTLED.name), now)
    page = WaitingPage(viewer.name, viewer.csrf_token, notes, "" if notice is None else notice.message, asked)
    cookies = [SETTLED.cleared()] if SETTLED.name in request.cookies else []
    return Template("me/waiting.html", context={"page": page}, headers=_HEADERS, cookies=cookies)


def settled_words(decision: Literal["approve", "discard"], key: str) -> str:
    """What approving or discarding the note under `key` did ("Approved “tea”: …")."""
    if decision == "approve":
        return f"Approved “{key}”: it is now among your memories."
    return f"Discarded “{key}”: it is gone."


@dataclass(frozen=True, slots=True)
class SettleForm:
    csrf_token: str = ""


async def _settle(
    request: HTMXRequest,
    services: Services,
    viewer: Viewer,
    pending_id: str,
    decision: Literal["approve", "discard"],
) -> Template | Response[str] | Redirect:
    settled = await services.consent.settle(viewer.actor, pending_id, decision)
    if not settled.found:
        return _gone(request, viewer)
    if request.htmx:  # the row goes
        return Response("", status_code=200, media_type=MediaType.HTML, headers=_HEADERS)
    notice = NoticeView(kind="done", message=settled_words(decision, settled.key))
    cookie = SETTLED.sealed(services, viewer, notice, datetime.now(UTC))
    return Redirect("/memories/waiting", status_code=303, headers=_HEADERS, cookies=[cookie])


SettleBody = Annotated[SettleForm, Body(media_type=RequestEncodingType.URL_ENCODED)]


@post(
    "/memories/waiting/{pending_id:str}/{decision:str}", name="settle_waiting", status_code=303, include_in_schema=False
)
async def settle_waiting(
    request: HTMXRequest,
    services: NamedDependency[Services],
    viewer: NamedDependency[Viewer],
    pending_id: FromPath[str],
    decision: FromPath[str],
    data: SettleBody,
) -> Template | Response[str] | Redirect:
    """`approve` or `discard` one waiting note; any other decision is an address that is not here."""
    if decision not in _DECISIONS:
        return _gone(request, viewer)
    return await _settle(request, services, viewer, pending_id, _DECISIONS[decision])


def _gone(request: HTMXRequest, viewer: Viewer) -> Template:
    """A note that is not waiting (settled already, or never the person's): the problem page, or for
    htmx the notice, with the way back to the list."""
    problem = ProblemView(404, "That note is no longer waiting", GONE, back="/memories/waiting", back_label=_BACK)
    account = {"viewer_name": viewer.name, "csrf_token": viewer.csrf_token}
    return problem_answer(request, problem, page="me/problem.html", headers=_HEADERS, context={"account": account})


_BACK = "Back to what waits for your approval"


_DECISIONS: dict[str, Literal["approve", "discard"]] = {"approve": "approve", "discard": "discard"}


class WaitingOut(msgspec.Struct, frozen=True):
    """How many notes wait for the person's approval, and which (oldest first); `paused` is whether they
    paused memory."""

    count: int
    paused: bool
    waiting: list[WaitingNoteWire]


@get(
    "/agent/memories/waiting",
    cache_control=NO_STORE_JSON,
    name="waiting_api",
    summary="What waits for my approval",
    description=(
        "The notes the assistant concluded about the logged-in person that wait for their approval (their "
        "organisation requires it), oldest first, with how many there are, and whether the person paused "
        "memory. None of them is in any prompt until approved. Authenticated by the dashboard session."
    ),
    tags=["read-back"],
    security=[{"dashboardSession": []}],
    exception_handlers=JSON_API_EXCEPTIONS,
    responses={
        200: ResponseSpec(
            WaitingOut,
            description="The waiting notes",
            examples=[
                Example(
                    value={
                        "count": 1,
                        "paused": False,
                        "waiting": [
                            {
                                "id": "pend_01HZX4",
                                "key": "units",
                                "text": "report distances in kilometres",
                                "threadId": "thr_41",
                                "runId": "run_40",
                                "concludedAt": "2026-12-01T09:00:00Z",
                            }
                        ],
                    }
                )
            ],
        ),
        401: refusal("No dashboard session", LOG_IN_FIRST),
        503: UNAVAILABLE,
    },
)
async def waiting_api(services: NamedDependency[Services], viewer: NamedDependency[Viewer]) -> WaitingOut:
    notes = await services.consent.waiting(viewer.actor)
    controls = await services.consent.controls(viewer.actor)
    return WaitingOut(count=len(notes), paused=controls.paused, waiting=[waiting_note_wire(n) for n in notes])
