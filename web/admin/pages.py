"""Shared facts (`/admin`): the list, publishing a fact, and one fact's row.

Every handler works as a plain form or link first; with htmx the same URL answers a fragment:

- `GET /admin` renders the page; an htmx request targeting `#shared` (the filter) gets the results.
- `POST /admin/facts` publishes, then redirects back with a notice (303); for htmx it answers the
  results and the notice, and a fresh form. A key that already holds a fact at that scope is first
  answered with that fact and a confirmation (a page; for htmx in place of the form), which posts
  here again to replace it or to keep it. Invalid input keeps what was typed and says what is wrong
  (400 as a page; for htmx the form again, in place); a refusal is 403 with the verdict's reason.
- `GET /admin/facts/{id}` answers one row (htmx: "cancel" on an edit or a delete); a browser is sent to
  the row on the list.

Nobody without an administered scope gets anything here but the 403 page saying why: the area's
router provides `elevation` only to someone who administers a scope (`web.admin.routes`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated

from litestar import get, post
from litestar.di import NamedDependency
from litestar.enums import RequestEncodingType
from litestar.params import Body, FromPath, QueryParameter
from litestar.plugins.htmx import HTMXRequest, HTMXTemplate
from litestar.response import Redirect, Template

from store import MemoryRecord
from store.admin import NOT_ADMINISTERED, AdminOutcome
from web.admin.replacing import ReplaceView, fact_to_replace, replaces_token
from web.admin.views import (
    AdminQuery,
    CreateFormView,
    FactsPage,
    FactView,
    blank_create_form,
    facts_page,
    find_fact,
    writers,
)
from web.kit.area import NO_STORE, AreaView, area_view
from web.kit.area_words import not_administered_words, scope_label
from web.kit.identity.visit import Visit
from web.kit.notices import NoticeCookie, NoticeView
from web.kit.paging import back_params
from web.kit.problems import ProblemView, Refreshed, problem_answer
from web.services import Services

__all__ = (
    "NOTICES",
    "NOT_HERE",
    "FactForm",
    "Form",
    "authors_named",
    "fact_row",
    "not_administered",
    "now",
    "outcome_response",
    "page_and_fact",
    "publish_fact",
    "query_from",
    "shared_facts",
    "shared_facts_page",
)


@dataclass(frozen=True, slots=True)
class FactForm:
    """Every field the area's forms post; each form uses some of them."""

    key: str = ""
    text: str = ""
    scope: str = ""
    pinned: str = ""
    back: str = "/admin"
    csrf_token: str = ""
    replaces: str = ""
    """On a publish: which fact the person saw and confirmed replacing (`web.admin.replacing`)."""
    shown: str = ""
    """On an edit or a delete: which value of the fact the form showed (`replaces_token`)."""
    confirm: str = ""
    """On a publish's confirmation: `replace`, or `keep` to publish nothing."""


Form = Annotated[FactForm, Body(media_type=RequestEncodingType.URL_ENCODED)]
NOTICES = NoticeCookie("onfile_admin_notice", purpose="admin-notice", kinds=frozenset({"done", "warning", "problem"}))
"""The shared facts' notices, in a cookie of their own: the personal page shows none of them."""


@get("/admin", name="admin_facts", include_in_schema=False)
async def shared_facts(
    request: HTMXRequest,
    visit: NamedDependency[Visit],
    q: Annotated[str | None, QueryParameter(name="q", description="Text to find in keys and facts.")] = None,
    in_scope: Annotated[str | None, QueryParameter(name="scope", description="Only this scope.")] = None,
    page: Annotated[str | None, QueryParameter(name="page", description="The scope's page, from 1.")] = None,
) -> Template:
    query = AdminQuery.parse(text=q, scope=in_scope, page=page)
    htmx = bool(request.htmx) and not request.htmx.history_restore_request
    notice = None if htmx else NOTICES.read(visit.services, visit.viewer, request.cookies.get(NOTICES.name), now())
    view = await shared_facts_page(visit, query, notice=notice)
    if htmx and request.htmx.target == "shared":
        return Template("admin/_results.html", context={"page": view}, headers=NO_STORE)
    cookies = [NOTICES.cleared()] if NOTICES.name in request.cookies else []
    return Template("admin/index.html", context={"page": view, "area": view.area}, headers=NO_STORE, cookies=cookies)


@post("/admin/facts", name="admin_publish", status_code=200, include_in_schema=False)
async def publish_fact(
    request: HTMXRequest,
    visit: NamedDependency[Visit],
    data: Form,
) -> Template | Redirect:
    """Publish; a key that already holds a fact at that scope is first shown with that fact, to replace
    it or keep it (in place with htmx, on a page of its own without)."""
    query = query_from(request, data.back)
    if data.confirm == "keep":
        return await _kept(request, visit, query, data)
    current = await _fact_to_replace(visit, data)
    if current is not None and data.replaces != replaces_token(current):
        return _confirm_replace(request, visit, query, data, current, changed=bool(data.replaces))
    outcome = await visit.services.admin.publish(
        visit.viewer.actor, scope=data.scope, key=data.key, text=data.text, pinned=bool(data.pinned)
    )
    if outcome.status == "refused":  # a form the page never offers (tampered, or roles changed meanwhile)
        outcome = dataclasses.replace(outcome, reason=not_administered_words(data.scope, visit.viewer.actor))
    if outcome.status != "invalid":
        return await outcome_response(request, visit, query, outcome, "Published")
    form = _typed_form(visit, query, data, error=outcome.reason)
    if request.htmx:
        return HTMXTemplate(
            template_name="admin/_create.html",
            context={"form": form},
            re_target="#create",
            re_swap="outerHTML",
            headers=NO_STORE,
        )
    view = await shared_facts_page(visit, query, create=form)
    return Template("admin/index.html", context={"page": view, "area": view.area}, status_code=400, headers=NO_STORE)


def _typed_form(visit: Visit, query: AdminQuery, data: FactForm, *, error: str = "") -> CreateFormView:
    """The publish form with what was typed in it."""
    return blank_create_form(
        visit.elevation.scopes,
        visit.viewer.actor,
        max_fact_chars=visit.services.settings.max_fact_chars,
        back=query.href(),
        csrf_token=visit.viewer.csrf_token,
        key=data.key,
        text=data.text,
        scope=data.scope,
        pinned=bool(data.pinned),
        error=error,
    )


async def _fact_to_replace(visit: Visit, data: FactForm) -> FactView | None:
    records = await visit.services.admin.shared_memories(visit.viewer.actor)
    return fact_to_replace(
        records,
        visit.viewer.actor,
        scope=data.scope,
        key=data.key,
        text=data.text,
        max_fact_chars=visit.services.settings.max_fact_chars,
        now=now(),
        names=await authors_named(visit.services, records),
    )


def _confirm_replace(
    request: HTMXRequest, visit: Visit, query: AdminQuery, data: FactForm, current: FactView, *, changed: bool = False
) -> Template:
    confirm = ReplaceView(
        changed=changed,
        current=current,
        key=current.key,
        text=data.text,
        scope=data.scope,
        pinned=bool(data.pinned),
        replaces=replaces_token(current),
        back=query.href(),
        csrf_token=visit.viewer.csrf_token,
    )
    if request.htmx:  # in place of the publish form
        return HTMXTemplate(
            template_name="admin/_confirm_replace.html",
            context={"confirm": confirm},
            re_target="#create",
            re_swap="outerHTML",
            headers=NO_STORE,
        )
    area = area_view(visit.viewer, visit.elevation, "facts")
    return Template("admin/confirm_replace.html", context={"confirm": confirm, "area": area}, headers=NO_STORE)


async def _kept(request: HTMXRequest, visit: Visit, query: AdminQuery, data: FactForm) -> Template:
    """Nothing published: the list as it was, with the form still holding what was typed."""
    notice = NoticeView(kind="done", message=f"Nothing was published: “{data.key.strip()}” keeps its fact.")
    view = await shared_facts_page(visit, query, notice=notice, create=_typed_form(visit, query, data))
    if request.htmx:
        return HTMXTemplate(
            template_name="admin/_kept.html",
            context={"page": view},
            re_target="#create",
            re_swap="outerHTML",
            headers=NO_STORE,
        )
    return Template("admin/index.html", context={"page": view, "area": view.area}, headers=NO_STORE)


@get("/admin/facts/{memory_id:str}", name="admin_fact", include_in_schema=False)
async def fact_row(
    request: HTMXRequest,
    visit: NamedDependency[Visit],
    memory_id: FromPath[str],
) -> Template | Redirect:
    query = query_from(request, "/admin")
    view, fact = await page_and_fact(visit, query, memory_id)
    if fact is None:
        return not_administered(request, view, query)
    if not request.htmx:
        return Redirect(f"{query.href()}#{fact.anchor}", status_code=303)
    return Template("admin/_fact.html", context={"page": view, "fact": fact}, headers=NO_STORE)


async def shared_facts_page(
    visit: Visit,
    query: AdminQuery,
    *,
    notice: NoticeView | None = None,
    create: CreateFormView | None = None,
    records: Sequence[MemoryRecord] | None = None,
    names: Mapping[str, str] | None = None,
) -> FactsPage:
    """Everything at the scopes the person administers (no cap), as the page shows it for `query`.
    `records` and their writers' `names`, when the caller has them already."""
    if records is None:
        records = await visit.services.admin.shared_memories(visit.viewer.actor)
    if names is None:
        names = await authors_named(visit.services, records)
    settings = visit.services.settings
    return facts_page(
        records,
        visit.elevation.scopes,
        visit.viewer.actor,
        query,
        area=area_view(visit.viewer, visit.elevation, "facts"),
        max_memories=settings.max_memories,
        max_fact_chars=settings.max_fact_chars,
        now=now(),
        names=names,
        create=create,
        notice=notice,
    )


async def page_and_fact(visit: Visit, query: AdminQuery, memory_id: str) -> tuple[FactsPage, FactView | None]:
    """The list as `query` shows it, and the fact `memory_id` wherever it is among the facts the person
    administers (whichever page or filter would show it); None when it is not among them."""
    records = await visit.services.admin.shared_memories(visit.viewer.actor)
    names = await authors_named(visit.services, records)
    view = await shared_facts_page(visit, query, records=records, names=names)
    fact = find_fact(
        records,
        memory_id,
        visit.viewer.actor,
        max_memories=visit.services.settings.max_memories,
        now=now(),
        names=names,
    )
    return view, fact


async def authors_named(services: Services, records: Sequence[MemoryRecord]) -> dict[str, str]:
    """The names of the people who wrote `records`, asked at once."""
    return await services.people.names_of(writers(records))


async def outcome_response(
    request: HTMXRequest,
    visit: Visit,
    query: AdminQuery,
    outcome: AdminOutcome,
    done: str,
) -> Template | Redirect:
    """What a plain form or htmx is answered after an act: back to the list with a notice when it was
    done (a warning when always-on facts would stop reaching prompts); the verdict's reason when it
    was refused (403); one answer for anything not administered (404)."""
    if not outcome.ok or outcome.record is None:
        view = await shared_facts_page(visit, query)
        if outcome.status == "refused":
            refused = ProblemView(403, "That was refused", outcome.reason, back=query.href(), back_label=_BACK)
            return problem_answer(request, refused, page="admin/problem.html", headers=NO_STORE, context=_area(view))
        return not_administered(request, view, query, outcome.reason)
    record = outcome.record
    audience = scope_label(record.scope, visit.viewer.actor).audience
    warning = outcome.budget.warning_for(f"for {audience}") if outcome.budget else None
    notice = NoticeView(
        kind="warning" if warning else "done",
        message=f"{done}: “{record.key}”, for {audience}.",
        detail=warning or "",
    )
    if not request.htmx:
        anchor = "" if done == "Deleted" else f"#fact-{record.id}"
        return Redirect(
            query.href() + anchor,
            status_code=303,
            cookies=[NOTICES.sealed(visit.services, visit.viewer, notice, now())],
        )
    view = await shared_facts_page(visit, query, notice=notice)
    return HTMXTemplate(
        template_name="admin/_changed.html",
        # The focus goes to the fact acted on; to the notice when the fact is gone.
        context={
            "page": view,
            "area": view.area,
            "fresh_form": done == "Published",
            "focus_fact": "" if done == "Deleted" else record.id,
            "focus_notice": done == "Deleted",
        },
        re_target="#shared",
        re_swap="outerHTML",
        headers=NO_STORE,
    )


NOT_HERE = "There is no shared fact with that id among those you administer."
"""The page's words for `store.admin.NOT_ADMINISTERED`, which the JSON API answers."""


def not_administered(request: HTMXRequest, view: FactsPage, query: AdminQuery, reason: str = "") -> Template:
    message = NOT_HERE if reason in {"", NOT_ADMINISTERED} else reason
    heading = "That shared fact isn't here"
    detail = "It may have been deleted meanwhile, or it is not one you administer."
    gone = ProblemView(404, heading, message, detail, back=query.href(), back_label=_BACK)
    refreshed = Refreshed(view, results="admin/_results.html", select="admin/_scope_select.html")
    return problem_answer(
        request, gone, page="admin/problem.html", headers=NO_STORE, context=_area(view), refreshed=refreshed
    )


def _area(view: FactsPage) -> dict[str, AreaView]:
    return {"area": view.area}


def query_from(request: HTMXRequest, back: str) -> AdminQuery:
    params = back_params(request, back, "/admin")
    return AdminQuery.parse(text=params.get("q"), scope=params.get("scope"), page=params.get("page"))


_BACK = "Back to shared facts"


def now() -> datetime:
    return datetime.now(UTC)
