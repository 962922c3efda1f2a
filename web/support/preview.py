"""The prompt preview: exactly what the assistant would be told about a person for a turn text.

- `GET /support/preview` is the form: a person seen at login or in agent calls, or one typed in (id,
  organisation, roles), an optional thread id, and the turn text.
- `POST /support/preview/show` (the form) shows the block, byte for byte, with the scopes, the digest,
  its size, what was left out and why, and a warning when always-on facts were dropped.
- `POST /support/preview` (JSON) answers in the agent API's digest shape.

Read-only: nothing is written or journaled; `store.admin` audits each look (who looked at whose memory).
Only people the gate lets preview get anything but 403.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from litestar import Response, get, post
from litestar.di import NamedDependency
from litestar.enums import RequestEncodingType
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import Body
from litestar.plugins.htmx import HTMXRequest
from litestar.response import Template

from store import Actor
from store.domain.identifiers import id_problem
from web.admin.api import API_EXCEPTIONS, INVALID, NO_SESSION, SESSION_SECURITY
from web.admin.area import NO_STORE, area_view, elevation_of, forbidden
from web.agent_api import DIGEST_EXAMPLE, DigestIn, DigestOut, ProblemOut, digest_out
from web.auth.sessions import Viewer
from web.services import Services
from web.support.views import FieldProblem, PreviewPage, preview_form, preview_result

__all__ = ("PreviewForm", "preview_api", "preview_page", "show_preview")

_MAX_ROLES = 50  # as the agent API takes them
_TEXT_LIMIT = 100_000


@dataclass(frozen=True, slots=True)
class PreviewForm:
    person: str = ""
    actor_id: str = ""
    tenant_ref: str = ""
    roles: str = ""
    thread_id: str = ""
    text: str = ""
    csrf_token: str = ""

    def actor(self, people: list[Actor]) -> Actor | FieldProblem:
        """The person to preview, or what is wrong with the form and in which field. A typed id wins over
        the list. Ids are held to the agent API's rule (`id_problem`), unstripped: "Ada " is not "Ada",
        and previewing her would show someone else's prompt under her name."""
        roles = tuple(r for r in self.roles.replace(",", " ").split() if r)
        if len(roles) > _MAX_ROLES:
            return FieldProblem("roles", f"A person has at most {_MAX_ROLES} roles; this form lists {len(roles)}.")
        if len(self.text) > _TEXT_LIMIT:
            return FieldProblem("text", f"A turn text is at most {_TEXT_LIMIT:,} characters.")
        checks = [("actor_id", "The id", self.actor_id), ("tenant_ref", "The organisation", self.tenant_ref)]
        # A role is named by its place, not its text: its text may be what is wrong with it.
        checks += [("roles", f"Role {n}", role) for n, role in enumerate(roles, start=1)]
        for field, name, value in checks:
            problem = id_problem(name, value) if value else None
            if problem is not None:
                return FieldProblem(field, problem)
        thread_problem = id_problem("The thread id", self.thread_id, in_address=True) if self.thread_id else None
        if thread_problem is not None:
            return FieldProblem("thread_id", thread_problem)
        if self.actor_id:
            return Actor(id=self.actor_id, tenant_ref=self.tenant_ref or None, roles=roles)
        if not self.person:
            return FieldProblem("person", "Choose a person from the list, or type their id.")
        seen = next((p for p in people if p.id == self.person), None)
        return seen or FieldProblem("person", "That person is no longer in the list of people seen. Type their id.")


@get("/support/preview", name="support_preview", include_in_schema=False)
async def preview_page(
    request: HTMXRequest, services: NamedDependency[Services], viewer: NamedDependency[Viewer]
) -> Template:
    elevation = await elevation_of(services, viewer.actor)
    if not elevation.may_preview:
        return forbidden(request, viewer, elevation, "preview")
    people = await services.admin.people_seen()
    view = PreviewPage(area=area_view(viewer, elevation, "preview"), form=preview_form(people, services.settings))
    return Template("support/preview.html", context={"page": view, "area": view.area}, headers=NO_STORE)


@post("/support/preview/show", name="support_preview_show", status_code=200, include_in_schema=False)
async def show_preview(
    request: HTMXRequest,
    services: NamedDependency[Services],
    viewer: NamedDependency[Viewer],
    data: Annotated[PreviewForm, Body(media_type=RequestEncodingType.URL_ENCODED)],
) -> Template:
    elevation = await elevation_of(services, viewer.actor)
    if not elevation.may_preview:
        return forbidden(request, viewer, elevation, "preview")
    people = await services.admin.people_seen()
    target = data.actor(people)
    problem = target if isinstance(target, FieldProblem) else None
    form = preview_form(
        people,
        services.settings,
        person=data.person,
        actor_id=data.actor_id,
        tenant_ref=data.tenant_ref,
        roles=data.roles,
        thread_id=data.thread_id,
        text=data.text,
        problem=problem,
    )
    area = area_view(viewer, elevation, "preview")
    result = None
    if isinstance(target, Actor):
        preview = await services.admin.preview(viewer.actor, target, thread_id=data.thread_id or None, text=data.text)
        if preview is None:
            return forbidden(request, viewer, elevation, "preview")
        result = preview_result(preview, services.settings, memory_on=services.settings.memory_enabled)
    view = PreviewPage(area=area, form=form, result=result)
    return Template(
        "support/preview.html",
        context={"page": view, "area": area},
        status_code=400 if problem else 200,
        headers=NO_STORE,
    )


@post(
    "/support/preview",
    name="support_preview_api",
    summary="Preview what the model will see for a person",
    description=(
        "The digest and the exact block the agent API would return for this actor, thread and turn text, in the "
        "same shape as `POST /agent/runs/{runId}/digest` — byte-identical block — without journaling a run or "
        "writing anything. Each preview is audited. Dashboard session with the support role, and the "
        "X-CSRF-Token header. 403 with the reason for anyone else."
    ),
    status_code=200,
    tags=["support"],
    security=SESSION_SECURITY,
    responses={
        400: INVALID,
        401: NO_SESSION,
        403: ResponseSpec(
            ProblemOut,
            description="The caller may not preview prompts",
            examples=[Example(value={"error": "Previewing prompts is for support staff; lena may not preview them."})],
        ),
    },
    exception_handlers=API_EXCEPTIONS,
)
async def preview_api(
    services: NamedDependency[Services],
    viewer: NamedDependency[Viewer],
    data: Annotated[DigestIn, Body(examples=[Example(summary="A turn for Ada", value=DIGEST_EXAMPLE)])],
) -> Response[DigestOut | ProblemOut]:
    target = Actor(id=data.actor.id, tenant_ref=data.actor.tenant_ref, roles=tuple(data.actor.roles))
    preview = await services.admin.preview(viewer.actor, target, thread_id=data.thread_id, text=data.text)
    if preview is None:
        reason = f"Previewing prompts is for support staff; {viewer.actor.id} may not preview them."
        return Response(ProblemOut(reason), status_code=403)
    if not services.settings.memory_enabled:
        return Response(DigestOut("off", [], [], 0, 0, False, "", False, []))
    memory = services.memory
    return Response(digest_out(preview.digest, block=preview.block, writable=memory.writable, tools=memory.tools()))
