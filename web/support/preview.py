"""The prompt preview: exactly what the assistant would be told about a person for a turn text.

- `GET /support/preview` is the form: a person of the viewer's organisation seen at login or in agent
  calls, or one typed in by id, an optional thread id, and the turn text. The person's organisation
  and roles are always the ones OnFile knows, never typed: a support person sees only their own
  organisation's people (every organisation's only when `ONFILE_SUPPORT_ALL_TENANTS` says so).
- `POST /support/preview/show` (the form) shows the block, byte for byte, with the scopes, the digest,
  its size, what was left out and why, and a warning when always-on facts were dropped.
- `POST /support/preview` (JSON) answers in the agent API's digest shape.

Read-only: nothing is written or journaled; `store.admin` audits each look (who looked at whose memory).
Only people the gate lets preview get anything but 403: the three are one router (`support_router`)
whose `elevation` is provided only to them (`support_staff_only`); anyone else is answered before any
handler runs, with the 403 page, or `{"error"}` from the API.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from litestar import Response, Router, get, post
from litestar.di import NamedDependency, Provide
from litestar.enums import RequestEncodingType
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import Body
from litestar.response import Template

from store.admin import Preview
from store.domain.identifiers import id_problem
from store.domain.relevance import MAX_TURN_CHARS
from web.kit.api_errors import TOO_LARGE
from web.kit.area import NO_STORE, area_view
from web.kit.identity.elevation import NotElevatedError, support_staff_only
from web.kit.identity.visit import Visit
from web.kit.session_api import API_EXCEPTIONS, NO_SESSION, NO_STORE_JSON, SESSION_SECURITY
from web.kit.wire import (
    DIGEST_ANSWER_EXAMPLE,
    DIGEST_EXAMPLE,
    NOT_JSON,
    UNAVAILABLE,
    DigestIn,
    DigestOut,
    ProblemOut,
    digest_off,
    digest_out,
    refusal,
)
from web.support.views import FieldProblem, PreviewPage, preview_form, preview_result

__all__ = ("PreviewForm", "preview_api", "preview_page", "show_preview", "support_router", "unknown_person")


@dataclass(frozen=True, slots=True)
class PreviewForm:
    person: str = ""
    actor_id: str = ""
    thread_id: str = ""
    text: str = ""
    csrf_token: str = ""

    def person_id(self) -> str | FieldProblem:
        """The id of the person to preview, or what is wrong with the form and in which field. A typed id
        wins over the list. Ids are held to the agent API's rule (`id_problem`), unstripped: "Ada " is
        not "Ada", and previewing her would show someone else's prompt under her name. Who the person
        is (their organisation and roles) is what OnFile knows of them, never typed here."""
        if len(self.text) > MAX_TURN_CHARS:
            return FieldProblem("text", f"A turn text is at most {MAX_TURN_CHARS:,} characters.")
        problem = id_problem("The id", self.actor_id) if self.actor_id else None
        if problem is not None:
            return FieldProblem("actor_id", problem)
        thread_problem = id_problem("The thread id", self.thread_id, in_address=True) if self.thread_id else None
        if thread_problem is not None:
            return FieldProblem("thread_id", thread_problem)
        if self.actor_id:
            return self.actor_id
        return self.person or FieldProblem("person", "Choose a person from the list, or type their id.")


def unknown_person(person_id: str) -> str:
    """The one answer for an id nobody may preview: never seen, or a person of another organisation."""
    return (
        f"No one with the id “{person_id}” is known in your organisation. Ids are compared exactly (“Ada” and "
        "“ada” are two people); a person is known once they have signed in here or an agent has asked about them."
    )


@get("/support/preview", name="support_preview", include_in_schema=False)
async def preview_page(
    visit: NamedDependency[Visit],
) -> Template:
    seen = await visit.services.admin.people_to_preview(visit.viewer.actor)
    form = preview_form(
        seen.people,
        visit.services.settings,
        names=seen.names,
        everywhere=visit.services.settings.support_all_tenants,
        more=seen.more,
    )
    view = PreviewPage(area=area_view(visit.viewer, visit.elevation, "preview"), form=form)
    return Template("support/preview.html", context={"page": view, "area": view.area}, headers=NO_STORE)


@post("/support/preview/show", name="support_preview_show", status_code=200, include_in_schema=False)
async def show_preview(
    visit: NamedDependency[Visit],
    data: Annotated[PreviewForm, Body(media_type=RequestEncodingType.URL_ENCODED)],
) -> Template:
    target = data.person_id()
    shown: Preview | None = None
    status = 400
    if isinstance(target, FieldProblem):
        problem: FieldProblem | None = target
    else:
        preview = await visit.services.admin.preview(
            visit.viewer.actor, target, thread_id=data.thread_id or None, text=data.text
        )
        if preview == "forbidden":  # the gate changed its mind since the request began
            raise NotElevatedError("preview", visit.viewer, visit.elevation)
        if preview == "unknown":
            problem, status = FieldProblem("actor_id" if data.actor_id else "person", unknown_person(target)), 404
        else:
            problem, status, shown = None, 200, preview
    seen = await visit.services.admin.people_to_preview(visit.viewer.actor)
    names = dict(seen.names)
    if shown is not None and shown.actor.id not in names:
        names.update(await visit.services.people.names_of([shown.actor.id]))
    form = preview_form(
        seen.people,
        visit.services.settings,
        names=names,
        everywhere=visit.services.settings.support_all_tenants,
        more=seen.more,
        person=data.person,
        actor_id=data.actor_id,
        thread_id=data.thread_id,
        text=data.text,
        problem=problem,
    )
    area = area_view(visit.viewer, visit.elevation, "preview")
    result = None
    if shown is not None:
        result = preview_result(
            shown, visit.services.settings, memory_on=visit.services.settings.memory_enabled, names=names
        )
    view = PreviewPage(area=area, form=form, result=result)
    return Template("support/preview.html", context={"page": view, "area": area}, status_code=status, headers=NO_STORE)


@post(
    "/support/preview",
    name="support_preview_api",
    cache_control=NO_STORE_JSON,
    summary="Preview what the model will see for a person",
    description=(
        "The digest and the exact block the agent API would return for this actor, thread and turn text, in the "
        "same shape as `POST /agent/runs/{runId}/digest` — byte-identical block — without journaling a run or "
        "writing anything. The person is taken as OnFile knows them: `actor.id` names them, and their "
        "organisation and roles are the ones last seen (at their sign-in or in an agent call), whatever "
        "`actor.tenantRef` and `actor.roles` say. Only people of the caller's own organisation can be previewed; "
        "anyone else is 404, exactly like an id never seen. Each preview is audited. Dashboard session with "
        "the support role, and the X-CSRF-Token header. 403 with the reason for anyone else."
    ),
    status_code=200,
    tags=["support"],
    security=SESSION_SECURITY,
    responses={
        200: ResponseSpec(
            DigestOut,
            description="What the model would be given for this turn; nothing is journaled or written",
            examples=[Example(summary="A turn for u1", value=DIGEST_ANSWER_EXAMPLE)],
            generate_examples=False,
        ),
        400: refusal(
            "A body that does not parse or match its schema, or an id that cannot be one",
            "The request is not valid: actor.id contains an invisible or control character (U+202E); ids are plain "
            "visible text.",
        ),
        401: NO_SESSION,
        404: refusal("Nobody by that id is known in the caller's organisation", unknown_person("c2")),
        403: refusal(
            "The caller may not preview prompts", "Previewing prompts is for support staff; lena may not preview them."
        ),
        413: refusal("The body is larger than OnFile accepts", TOO_LARGE),
        415: NOT_JSON,
        503: UNAVAILABLE,
    },
    exception_handlers=API_EXCEPTIONS,
)
async def preview_api(
    visit: NamedDependency[Visit],
    data: Annotated[DigestIn, Body(examples=[Example(summary="A turn for Ada", value=DIGEST_EXAMPLE)])],
) -> Response[DigestOut | ProblemOut]:
    preview = await visit.services.admin.preview(
        visit.viewer.actor, data.actor.id, thread_id=data.thread_id, text=data.text or ""
    )
    if preview == "forbidden":  # the gate changed its mind since the request began
        raise NotElevatedError("preview", visit.viewer, visit.elevation)
    if preview == "unknown":
        return Response(ProblemOut(unknown_person(data.actor.id)), status_code=404)
    if not visit.services.settings.memory_enabled:
        return Response(digest_off())
    memory = visit.services.memory
    return Response(digest_out(preview.digest, block=preview.block, writable=memory.writable, tools=memory.tools()))


support_router = Router(
    path="/",
    route_handlers=[preview_page, show_preview, preview_api],
    dependencies={"elevation": Provide(support_staff_only)},
)
"""Support's part of the elevated area: for those who may preview prompts."""
