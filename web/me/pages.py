"""'What's on file about you' (`/`): the page, forgetting from it, and undoing a forget.

Every handler works as a plain form or link first; with htmx the same URL answers a fragment:

- `GET /` renders the page; an htmx request (the filters, a page number) answers the list,
  `#on-file`, and the address keeps the view. A history-restore request gets the whole page.
  With `match=related` the store ranks the memories for the text (`related_keys`), as it ranks a
  turn's, and the page shows the closest `RELATED_LIMIT` in that order.
- `POST /memories/{id}/forget` redirects back with a notice (303), or for htmx answers the row's
  replacement — nothing, so it goes — plus the counts and the notice out of band. When forgetting
  revealed a wider value (or emptied the group), or the list is a related search (whose closest few
  now take in the next one), the whole list is re-rendered instead.
- `POST /memories/undo` writes a forgotten memory back (see `web.me.undo`).
- `GET /memories/{id}/promote?scope=` asks first, saying who will be told the entry: a page of its
  own, or for htmx the entry's replacement (`GET /memories/{id}`, the entry's own row, puts it back).
- `POST /memories/{id}/promote` then republishes one of the person's own entries at a wider scope they
  administer (`Administration.promote`): offered only to people who administer one. The whole list is
  answered again for htmx, since the entry now shows the published value beneath it.

An act reads only the memory it acts on, with the other records of its key (`on_file_of_ids`), and
the list it answers is asked of the database a page at a time (`listing_page`), as `GET /` asks it.

Refusals: 403 for a memory held at a wider scope, 404 for anything the person cannot see, 409 or
410 for an undo that cannot happen. Whether something may be forgotten is decided in `store`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Annotated
from urllib.parse import parse_qs, urlsplit

from litestar import get, post
from litestar.datastructures import Cookie
from litestar.di import NamedDependency
from litestar.enums import RequestEncodingType
from litestar.params import Body, FromPath, QueryParameter
from litestar.plugins.htmx import HTMXRequest, HTMXTemplate
from litestar.response import Redirect, Template

from store import DigestEntry, MemoryRecord, ScopeContext, own_scope
from store.domain.administration import promotion_targets
from store.domain.forgetting import Choice, chosen_reach
from store.domain.recall import RANKING_WINDOW
from store.memory import NOT_ON_FILE, related_keys, scopes_on_file
from store.persistence.registry import Origin
from web.kit.identity.elevation import ROLES_UNCONFIRMED, Elevation
from web.kit.identity.sessions import Viewer
from web.kit.identity.visit import Visit
from web.kit.notices import NoticeView
from web.kit.problems import ProblemView, Refreshed, problem_answer
from web.kit.receipts import RECEIPT_PAGE, receipt_href
from web.kit.security import safe_next_path
from web.kit.words import NOT_PUT_BACK, PUBLISH_REFUSED, not_theirs_to_change, overridden_not_theirs, scope_words
from web.me.listing import (
    PAGE_SIZE,
    RELATED_LIMIT,
    MemoryQuery,
    Selection,
    listed_records,
    records_ask,
    select_entries,
    selection_of,
)
from web.me.on_file import HasRecord, OnFile, on_file, on_file_of_ids, resolving_origins
from web.me.undo import NOTICES, RestoreOutcome, restore_forgotten, undo_token
from web.me.views import (
    EntryView,
    EntryWording,
    MemoriesPage,
    PromotionConfirmView,
    RowPage,
    UsageView,
    entry_view,
    memories_page,
    stated_by,
    usage_view,
)
from web.me.waiting import controls_view
from web.services import Services

__all__ = (
    "ReturnForm",
    "Returning",
    "confirm_promotion",
    "forget_on_page",
    "keep_on_page",
    "memories",
    "memory_row",
    "promote_on_page",
    "returning",
    "undo_forget",
)

_GONE = "It may already have been forgotten."
# A person's own page: never cached, and the same URL answers a page or a fragment.
_HEADERS = {"Cache-Control": "no-store", "Vary": "HX-Request, HX-Target"}


@dataclass(frozen=True, slots=True)
class ReturnForm:
    """The fields the page's forms post: where to come back to and, for an undo, its token."""

    back: str = "/"
    token: str = ""
    csrf_token: str = ""
    scope: str = ""
    """For a promotion: the scope to publish at."""


Form = Annotated[ReturnForm, Body(media_type=RequestEncodingType.URL_ENCODED)]


@dataclass(frozen=True, slots=True)
class Returning:
    """A form posted from the page: its request, who sent it (`visit`), the view it comes back to
    (see `_back`), and when it was sent."""

    request: HTMXRequest
    visit: Visit
    query: MemoryQuery
    now: datetime


async def returning(request: HTMXRequest, visit: NamedDependency[Visit]) -> Returning:
    """The `returning` dependency (see `web.app`) of the page's form handlers: reads the posted
    form's `back`."""
    back = (await request.form()).get("back", "/")
    return Returning(request, visit, _back(request, back if isinstance(back, str) else "/"), _now())


@get("/", name="memories", include_in_schema=False)
async def memories(
    request: HTMXRequest,
    visit: NamedDependency[Visit],
) -> Template:
    """The address's query (`q`, `match`, `group`, `author`, `origin`, `sort`, `page`) is the view."""
    query = MemoryQuery.from_params(request.query_params)
    target = request.htmx.target if request.htmx and not request.htmx.history_restore_request else None
    now = _now()
    notice = None if target else NOTICES.read(visit.services, visit.viewer, request.cookies.get(NOTICES.name), now)
    if target is None:
        # the whole page also shows the person's controls, read beside the list
        view, controls = await asyncio.gather(
            listing_page(visit, query, now, notice), controls_view(visit.services, visit.viewer)
        )
        # A forget's notice stays while it can be undone, on every page the person loads, until they
        # undo it or forget something else; any other notice is shown once.
        lasting = notice is not None and bool(notice.undo_token)
        cookies = [NOTICES.cleared()] if NOTICES.name in request.cookies and not lasting else []
        # `ticked`: the memories ticked before "Keep them" on the question of forgetting them, ticked again
        ticked = frozenset(request.query_params.getall("ticked", []))
        context = {"page": view, "controls": controls, "ticked": ticked}
        return Template("me/index.html", context=context, headers=_HEADERS, cookies=cookies)
    view = await listing_page(visit, query, now, notice)
    # A page number or a date followed moves the focus to the page's first entry; typing in the search does not.
    if (request.htmx.trigger or "").startswith(("page-", "date-")):
        return Template("me/_paged.html", context={"page": view, "focus_first": True}, headers=_HEADERS)
    return Template("me/_results.html", context={"page": view}, headers=_HEADERS)


@post("/memories/{memory_id:str}/forget", name="forget_on_page", status_code=200, include_in_schema=False)
async def forget_on_page(
    returning: NamedDependency[Returning],
    memory_id: FromPath[str],
) -> Template | Redirect:
    request, visit, query, now = returning.request, returning.visit, returning.query, returning.now
    before = await on_file_of_ids(visit.services, visit.viewer.actor, [memory_id])
    entry = next((e for e in before.entries if e.record.id == memory_id), None)
    choice = chosen_reach(visit.viewer.actor, before.entries, [memory_id])
    forgotten = await visit.services.personal.forget(visit.viewer.actor, choice)
    if entry is None or forgotten.ticket is None:
        problem = _forget_problem(choice, entry, visit.viewer, before.overridden(memory_id))
        if problem.status == 404:
            return await _gone(request, visit, query, problem)
        return _problem(request, visit.viewer, query, problem)
    notice = NoticeView(
        kind="forgotten",
        message=f"Forgotten: “{entry.key}”.",
        detail=" ".join(part for part in (_revealed(entry, visit.viewer), _in_flight(visit.services)) if part),
        undo_token=undo_token(visit.services, visit.viewer, forgotten.ticket, now),
        receipt_href=receipt_href(visit.services, visit.viewer, forgotten.receipt, RECEIPT_PAGE),
    )
    if not request.htmx:
        return Redirect(
            query.href(), status_code=303, cookies=[NOTICES.sealed(visit.services, visit.viewer, notice, now)]
        )
    view = await listing_page(visit, query, now, notice)
    # The whole list again when the one row's going is not the only change it shows: a wider value
    # now applies, a related search's closest few take in the next, the group emptied, or the group
    # spans pages, whose range, counts and page numbers move and whose next page's first row moves up.
    own = next((g for g in view.groups if g.slug == "you"), None)
    paged = own is not None and own.matching >= PAGE_SIZE
    # The notice is also kept for the next page load, so Undo outlives a reload (see `memories`).
    lasting = [NOTICES.sealed(visit.services, visit.viewer, notice, now)]
    if entry.overrides or query.related or own is None or not own.entries or paged:
        return _whole_list(view, cookies=lasting)
    return Template("me/_forgotten.html", context={"page": view}, headers=_HEADERS, cookies=lasting)


@post("/memories/undo", name="undo_forget", status_code=200, include_in_schema=False)
async def undo_forget(
    returning: NamedDependency[Returning],
    data: Form,
) -> Template | Redirect:
    request, visit, query, now = returning.request, returning.visit, returning.query, returning.now
    outcome = await restore_forgotten(visit.services, visit.viewer, data.token, now)
    # Tried once, the forget's lasting notice goes (its Undo would only say what this answer says).
    settled = [NOTICES.cleared()] if NOTICES.name in request.cookies else []
    if outcome.status != "restored":
        answer = _problem(request, visit.viewer, query, _undo_problem(outcome))
        answer.cookies.extend(settled)
        return answer
    notice = NoticeView(kind="restored", message=outcome.message, detail=outcome.reason)
    if not request.htmx:
        return Redirect(
            query.href(), status_code=303, cookies=[NOTICES.sealed(visit.services, visit.viewer, notice, now)]
        )
    view = await listing_page(visit, query, now, notice)
    found = await on_file_of_ids(visit.services, visit.viewer.actor, outcome.ids[:1])
    own = own_scope(visit.viewer.actor)
    restored = next((e.record.id for e in found.entries if e.key in outcome.keys[:1] and e.scope == own), "")
    # The focus goes to the restored entry, or to the notice when the entry is not on this page.
    shown = any(e.id == restored for g in view.groups for e in g.entries)
    context = {"page": view, "focus_entry": restored, "focus_notice": not shown}
    return Template("me/_changed.html", context=context, headers=_HEADERS, cookies=settled)


@get("/memories/{memory_id:str}", name="memory_row", include_in_schema=False)
async def memory_row(
    request: HTMXRequest,
    visit: NamedDependency[Visit],
    memory_id: FromPath[str],
    back: Annotated[str, QueryParameter(name="back", description="The view to come back to.")] = "/",
) -> Template | Redirect:
    """One entry: its row for htmx (the way back from an in-place step); a browser goes to it on the page.
    A wider value the person's own setting overrides is listed under that setting's entry: a browser goes
    there."""
    query = _back(request, back)
    found = await on_file_of_ids(visit.services, visit.viewer.actor, [memory_id])
    entry = next((e for e in found.entries if e.record.id == memory_id), None)
    beaten = found.overridden(memory_id) if entry is None else None
    if beaten is not None and not request.htmx:
        applying = found.entry_of(beaten).record.id
        return Redirect(f"{query.href()}#entry-{applying}", status_code=303)
    if entry is None:
        problem = ProblemView(404, "That memory isn't on file for you", _GONE)
        return await _gone(request, visit, query, problem)
    if not request.htmx:
        return Redirect(f"{query.href()}#entry-{memory_id}", status_code=303)
    row = await _row(visit, found, entry, query)
    page = RowPage(csrf_token=visit.viewer.csrf_token, back=query.href())
    return Template("me/_entry.html", context={"page": page, "entry": row}, headers=_HEADERS)


@post("/memories/{memory_id:str}/keep", name="keep_on_page", status_code=200, include_in_schema=False)
async def keep_on_page(
    request: HTMXRequest,
    visit: NamedDependency[Visit],
    memory_id: FromPath[str],
    data: Form,
) -> Template | Redirect:
    """Keep something the assistant concluded: its clock starts again (`Expiry.keep`). A browser goes
    back to the entry with a notice; htmx gets the entry's row, now saying when it expires."""
    query, now = _back(request, data.back), _now()
    if not await visit.services.expiry.keep(visit.viewer.actor, memory_id):
        problem = ProblemView(404, "That memory can't be kept", "Only what your assistant concluded about you can be.")
        return await _gone(request, visit, query, problem)
    found = await on_file_of_ids(visit.services, visit.viewer.actor, [memory_id])
    entry = next((e for e in found.entries if e.record.id == memory_id), None)
    if not request.htmx or entry is None:
        key = entry.key if entry is not None else ""
        notice = NoticeView(kind="done", message=f"Kept “{key}”.", detail="Its time starts again from today.")
        return Redirect(
            f"{query.href()}#entry-{memory_id}",
            status_code=303,
            cookies=[NOTICES.sealed(visit.services, visit.viewer, notice, now)],
        )
    row = await _row(visit, found, entry, query)
    page = RowPage(csrf_token=visit.viewer.csrf_token, back=query.href())
    return Template("me/_entry.html", context={"page": page, "entry": row, "focus": True}, headers=_HEADERS)


@get("/memories/{memory_id:str}/promote", name="confirm_promotion", include_in_schema=False)
async def confirm_promotion(
    request: HTMXRequest,
    visit: NamedDependency[Visit],
    memory_id: FromPath[str],
    at: Annotated[str, QueryParameter(name="scope", description="The scope to publish at.")] = "",
    back: Annotated[str, QueryParameter(name="back", description="The view to come back to.")] = "/",
) -> Template:
    """Publishing asks first, in plain words: who will be told it, and what stays."""
    query = _back(request, back)
    found = await on_file_of_ids(visit.services, visit.viewer.actor, [memory_id])
    own = own_scope(visit.viewer.actor)
    entry = next((e for e in found.entries if e.record.id == memory_id and e.scope == own), None)
    if entry is None:
        problem = ProblemView(404, "That memory isn't on file for you", _GONE)
        return await _gone(request, visit, query, problem)
    if at not in _promotion_targets(visit.viewer, visit.elevation):
        reason = ROLES_UNCONFIRMED if visit.elevation.roles_unconfirmed else PUBLISH_REFUSED
        return _problem(request, visit.viewer, query, ProblemView(403, "That can't be published there", reason))
    confirm = PromotionConfirmView(
        entry=await _row(visit, found, entry, query),
        scope=at,
        audience=scope_words(at, visit.viewer.actor).held_for,
        back=query.href(),
        viewer_name=visit.viewer.name,
        csrf_token=visit.viewer.csrf_token,
    )
    name = "me/_confirm_promote.html" if request.htmx else "me/confirm_promote.html"
    return Template(name, context={"confirm": confirm}, headers=_HEADERS)


@post("/memories/{memory_id:str}/promote", name="promote_on_page", status_code=200, include_in_schema=False)
async def promote_on_page(
    returning: NamedDependency[Returning],
    memory_id: FromPath[str],
    data: Form,
) -> Template | Redirect:
    request, visit, query, now = returning.request, returning.visit, returning.query, returning.now
    if visit.elevation.roles_unconfirmed:
        return _problem(request, visit.viewer, query, ProblemView(403, "That can't be published", ROLES_UNCONFIRMED))
    outcome = await visit.services.admin.promote(visit.viewer.actor, memory_id, scope=data.scope)
    if not outcome.ok or outcome.record is None:
        if outcome.status == "refused":  # the store's reason names scopes: the person reads why in words
            problem = ProblemView(403, "That can't be published", "Publishing it there was refused.", PUBLISH_REFUSED)
            return _problem(request, visit.viewer, query, problem)
        if outcome.status == "invalid":  # not a note any write may store: the input rule's own words
            problem = ProblemView(400, "That can't be published", "Publishing it there was refused.", outcome.reason)
            return _problem(request, visit.viewer, query, problem)
        problem = ProblemView(404, "That memory isn't on file for you", _GONE)
        return await _gone(request, visit, query, problem)
    audience = scope_words(outcome.record.scope, visit.viewer.actor).held_for
    notice = NoticeView(
        kind="published",
        message=f"Published “{outcome.record.key}” for {audience}.",
        detail="Your own note stays and still applies to you; its entry now says the published fact is the same.",
    )
    if not request.htmx:
        return Redirect(
            query.href(), status_code=303, cookies=[NOTICES.sealed(visit.services, visit.viewer, notice, now)]
        )
    # the keyboard goes to what was done, not to the first control of the list drawn again
    return _whole_list(await listing_page(visit, query, now, notice), focus_notice=True)


async def selected(visit: Visit, found: OnFile, query: MemoryQuery) -> tuple[Selection, frozenset[Origin] | None]:
    """What `query` selects of `found` (for a related search, the store's ranking picks and orders
    it), and for a filter by origin the origins among every record's that still resolve."""
    ctx = ScopeContext(actor=visit.viewer.actor)
    related: tuple[str, ...] = ()
    if query.related and (query.author or query.origin or query.group):
        # Under a filter the closest it keeps are shown: the assistant's own order as far as it ranks
        # (its window), then every other key by a ranking over them all, so the filter has them to keep.
        memory = visit.services.memory
        ranked = await related_keys(memory, ctx, query.text, RANKING_WINDOW)
        keys = max(RANKING_WINDOW, len({r.key for r in found.records}))
        more = len(ranked) == RANKING_WINDOW and keys > RANKING_WINDOW
        beyond = await related_keys(memory, ctx, query.text, keys) if more else ()
        related = tuple(dict.fromkeys((*ranked, *beyond)))
    elif query.related:
        related = await related_keys(visit.services.memory, ctx, query.text, RELATED_LIMIT)
    # A filter by origin asks about every record's origin, in one query; otherwise only the shown ones'.
    every = await resolving_origins(visit.services, listed_records(found)) if query.origin else None
    return select_entries(found, visit.viewer.actor, query, related, every), every


async def listing_page(visit: Visit, query: MemoryQuery, now: datetime, notice: NoticeView | None) -> MemoriesPage:
    """The page for `query` as the database answers it: the search by words, the filters, the counts,
    the order and the page number are asked of it, so only what is shown is read. A related search is
    ranked by the store over everything on file instead."""
    actor = visit.viewer.actor
    if query.related:
        return await _page(visit, await on_file(visit.services, actor), query, now, notice)
    scopes = await scopes_on_file(visit.services.memory, ScopeContext(actor=actor))
    query, ask = records_ask(scopes, actor, query)
    selection = selection_of(await visit.services.provider.records_page(ask), ask, actor, query)
    return await _worded(visit, selection, None, now, notice)


async def _page(
    visit: Visit,
    found: OnFile,
    query: MemoryQuery,
    now: datetime,
    notice: NoticeView | None,
) -> MemoriesPage:
    """Select what to show of `found` (for a related search, the store's ranking picks and orders it),
    ask the registry about those entries' origins only, and word it."""
    selection, every = await selected(visit, found, query)
    return await _worded(visit, selection, every, now, notice)


async def _worded(
    visit: Visit,
    selection: Selection,
    every: frozenset[Origin] | None,
    now: datetime,
    notice: NoticeView | None,
) -> MemoriesPage:
    """`selection` in words: `every`, the origins that resolve among every record's when a filter by
    origin read them already; otherwise the registry is asked about the shown entries' only."""
    area_href = "/admin" if visit.elevation.administers else "/support/preview" if visit.elevation.may_preview else ""
    shown = selection.shown()
    ids = [e.record.id for e in shown]
    # four questions about the shown entries, none waiting for another's answer: asked at once
    usage, resolving, names, expiries = await asyncio.gather(
        usage_views(visit, ids, now),
        _resolving(visit, shown, every),
        visit.services.people.names_of(stated_by(shown, visit.viewer.actor)),
        visit.services.expiry.expiries(visit.viewer.actor, ids),
    )
    return memories_page(
        selection,
        visit.viewer.actor,
        resolving=resolving,
        now=now,
        conversation_url=visit.services.settings.conversation_url,
        viewer_name=visit.viewer.name,
        csrf_token=visit.viewer.csrf_token,
        names=names,
        notice=notice,
        promotion_targets=_promotion_targets(visit.viewer, visit.elevation),
        area_href=area_href,
        usage=usage,
        expiries=expiries,
    )


async def _resolving(visit: Visit, shown: Sequence[HasRecord], every: frozenset[Origin] | None) -> frozenset[Origin]:
    """`every` when a filter by origin read them already; otherwise the shown entries' origins, asked."""
    return every if every is not None else await resolving_origins(visit.services, shown)


async def usage_views(visit: Visit, memory_ids: list[str], now: datetime) -> dict[str, UsageView]:
    """When each of the memories shown went into the person's prompts (`MemoryUsage`), and whether
    the conversation of each last use is still there: the registry asked once."""
    usage = await visit.services.usage.usage(visit.viewer.actor, memory_ids, now)
    threads = {Origin(u.last_thread_id, None) for u in usage.values() if u.last_thread_id is not None}
    resolving = await visit.services.registry.origins_resolve(threads) if threads else frozenset()
    url = visit.services.settings.conversation_url
    return {memory_id: usage_view(u, resolving, now, url) for memory_id, u in usage.items()}


async def _row(visit: Visit, found: OnFile, entry: DigestEntry, query: MemoryQuery) -> EntryView:
    usage = await usage_views(visit, [entry.record.id], _now())
    wording = EntryWording(
        visit.viewer.actor,
        select_entries(found, visit.viewer.actor, query),
        resolving=await resolving_origins(visit.services, [entry]),
        now=_now(),
        conversation_url=visit.services.settings.conversation_url,
        names=await visit.services.people.names_of(stated_by([entry], visit.viewer.actor)),
        promotion_targets=_promotion_targets(visit.viewer, visit.elevation),
        usage=usage,
        expiries=await visit.services.expiry.expiries(visit.viewer.actor, [entry.record.id]),
    )
    return entry_view(wording, entry)


def _promotion_targets(viewer: Viewer, elevation: Elevation) -> tuple[str, ...]:
    """Where the viewer may publish their own notes, from the elevation the request already resolved:
    nowhere while their roles are unconfirmed (they administer nothing then)."""
    return promotion_targets(viewer.actor, elevation.scopes)


def _problem(
    request: HTMXRequest,
    viewer: Viewer,
    query: MemoryQuery,
    problem: ProblemView,
    refreshed: MemoriesPage | None = None,
) -> Template:
    """`problem`, with the way back to the list as the person left it."""
    account = {"viewer_name": viewer.name, "csrf_token": viewer.csrf_token}
    return problem_answer(
        request,
        replace(problem, back=query.href()),
        page="me/problem.html",
        headers=_HEADERS,
        context={"account": account},
        refreshed=None if refreshed is None else Refreshed(refreshed, "me/_results.html", "me/_group_select.html"),
    )


async def _gone(
    request: HTMXRequest,
    visit: Visit,
    query: MemoryQuery,
    problem: ProblemView,
) -> Template:
    """A memory no longer on file for the person (forgotten in another tab, say). For htmx the notice
    brings the list up to date with it, so the stale row and its buttons go; a browser without
    JavaScript reloads the page anyway on the way back."""
    if not request.htmx:
        return _problem(request, visit.viewer, query, problem)
    view = await listing_page(visit, query, _now(), None)
    return _problem(request, visit.viewer, query, problem, refreshed=view)


def _forget_problem(
    choice: Choice, entry: DigestEntry | None, viewer: Viewer, beaten: MemoryRecord | None
) -> ProblemView:
    """Why a memory was not forgotten: shared (a wider value the person's own overrides included), or not on file."""
    heading = "This memory can't be forgotten here"
    if choice.shared and entry is not None:
        return ProblemView(403, heading, not_theirs_to_change(entry.scope, viewer.actor))
    if beaten is not None:
        return ProblemView(403, heading, overridden_not_theirs(beaten.scope, viewer.actor))
    return ProblemView(404, "That memory isn't on file for you", _GONE, NOT_ON_FILE)


def _undo_problem(outcome: RestoreOutcome) -> ProblemView:
    """Too late and written again since are said by the undo in words; a refusal's reason is the
    write verdict's, which names scopes, so the person reads it in words instead."""
    status = {"expired": 410, "used": 409, "superseded": 409}.get(outcome.status, 403)
    return ProblemView(status, "That can't be undone", NOT_PUT_BACK if status == 403 else outcome.reason)


def _in_flight(services: Services, count: int = 1) -> str:
    """The honest limit of forgetting `count` memories: runs already resolved keep their recorded prompt."""
    hours = services.settings.journal_retention_hours
    it = "it" if count == 1 else "them"
    return f"Conversations already in progress may still see {it} until they finish, at most {hours} hours."


def _revealed(entry: DigestEntry, viewer: Viewer) -> str:
    """The wider value that applies now that the person's own one is gone."""
    if not entry.overrides:
        return ""
    wider = entry.overrides[0]
    lead = scope_words(wider.scope, viewer.actor).default_is
    return f"{lead} “{wider.text}”, and that now applies to you."


def _whole_list(view: MemoriesPage, *, focus_notice: bool = False, cookies: Sequence[Cookie] = ()) -> HTMXTemplate:
    """The whole list again, in place of `#on-file`, whatever the request aimed at; `focus_notice`
    moves the focus to the notice."""
    return HTMXTemplate(
        template_name="me/_changed.html",
        context={"page": view, "focus_notice": focus_notice},
        re_target="#on-file",
        re_swap="outerHTML",
        headers=_HEADERS,
        cookies=list(cookies),
    )


def _back(request: HTMXRequest, back: str) -> MemoryQuery:
    """The view a form came from, as a query: for htmx the address the browser shows (a form inside a
    page changed in place was rendered for the address it was fetched at); otherwise the form's
    `back` field. Only the query string of a local address is read."""
    current = request.htmx.current_url if request.htmx else None
    if current:
        parts = urlsplit(current)
        back = f"{parts.path}?{parts.query}" if parts.query else parts.path
    params = parse_qs(urlsplit(safe_next_path(back)).query)
    return MemoryQuery.from_params({name: values[0] for name, values in params.items()})


def _now() -> datetime:
    return datetime.now(UTC)
