"""Forgetting several memories at once, and correcting one, from "What's on file about you".

- `GET /memories/forget-chosen` asks first: the memories ticked (`id=`, repeated), or with `all=1`
  every one of the person's own that matches the view in `back` (its search and filters, every page
  of it), with the exact count and what stays. A page of its own, or for htmx a confirmation in place.
- `POST /memories/forget-chosen` forgets them in one act with one Undo. "All that match" carries the
  fingerprint of the set it showed: when the set changed meanwhile, nothing goes and it asks again.
- `GET /memories/{id}/edit` shows the text in a form (a page, or for htmx the entry's replacement);
  `POST /memories/{id}/edit` saves it as stated by the person, or shows the form again saying why not.

What a choice may reach and who may correct what are decided in `store.domain.forgetting`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Annotated
from urllib.parse import urlencode

from litestar import get, post
from litestar.di import NamedDependency
from litestar.enums import RequestEncodingType
from litestar.params import Body, FromPath, QueryParameter
from litestar.plugins.htmx import HTMXRequest, HTMXTemplate
from litestar.response import Redirect, Template

from store import ScopeContext
from store.domain.forgetting import Choice, chosen_reach, matching_reach, selection_fingerprint
from store.memory import scopes_on_file
from web.kit.identity.visit import Visit
from web.kit.notices import NoticeView
from web.kit.problems import ProblemView
from web.kit.receipts import RECEIPT_PAGE, receipt_href
from web.kit.words import not_theirs_to_change, overridden_not_theirs
from web.me.listing import MemoryQuery, records_ask
from web.me.on_file import OnFile, on_file, on_file_of_ids
from web.me.pages import (
    _HEADERS,
    _back,
    _gone,
    _in_flight,
    _now,
    _problem,
    _row,
    _whole_list,
    listing_page,
    selected,
)
from web.me.undo import NOTICES, undo_token
from web.me.views import EntryView, RowPage

__all__ = ("ChosenView", "EditView", "confirm_forget_chosen", "correct_memory", "edit_memory", "forget_chosen")

_SHOWN_KEYS = 12
"""How many of the chosen memories a confirmation names; it counts the rest."""
_GONE_HEADING = "That memory isn't on file for you"
_NOT_CHANGED = "This memory can't be changed here"


@dataclass(frozen=True, slots=True)
class ChosenView:
    """Before several memories are forgotten: exactly how many, some of their keys, and what stays."""

    count: int
    keys: tuple[str, ...]
    more: int
    """How many go beyond the keys named."""
    ids: tuple[str, ...]
    """The ticked ids, carried to the act (empty for "all that match", which carries `expect`)."""
    everything: bool
    expect: str
    """For "all that match": the fingerprint of the set shown, so the act forgets exactly it."""
    stays: int
    """Shared facts that matched too, which are not the person's to forget."""
    changed: bool
    """The set changed since it was confirmed: this is the new one, asked again."""
    searched: bool
    in_flight: str
    back: str
    viewer_name: str
    csrf_token: str

    @property
    def keep_href(self) -> str:
        """Where "Keep them" leads: back to the view with the memories still ticked, which a page
        without a script would otherwise lose (the page's `ticked`)."""
        if not self.ids:
            return self.back
        return f"{self.back}{'&' if '?' in self.back else '?'}{urlencode([('ticked', id) for id in self.ids])}"


@dataclass(frozen=True, slots=True)
class EditView:
    """One of the person's own memories in a form, with what they typed and why it was refused."""

    entry: EntryView
    text: str
    error: str
    back: str
    viewer_name: str
    csrf_token: str
    max_chars: int


@dataclass(frozen=True, slots=True)
class ChosenForm:
    csrf_token: str = ""
    back: str = "/"
    id: list[str] | str = field(default_factory=list)
    """The ticked ids: a form with one sends it once, which is read as one value, not a list of one."""
    all: str = ""
    expect: str = ""

    @property
    def ids(self) -> list[str]:
        return [self.id] if isinstance(self.id, str) else self.id


@dataclass(frozen=True, slots=True)
class EditForm:
    csrf_token: str = ""
    back: str = "/"
    text: str = ""


async def _choice(visit: NamedDependency[Visit], query: MemoryQuery, ids: list[str], everything: bool) -> Choice:
    """The ticked ids (only they, and their keys' records, are read), or every own memory matching
    `query`: asked of the database as the page is, or for a related search chosen from everything on
    file, which the store's ranking reads anyway. A wider value the person's own beats is not theirs
    to forget: it stays, as a shared fact does, and is counted among what stays."""
    actor = visit.viewer.actor
    if not everything:
        found = await on_file_of_ids(visit.services, actor, ids)
        choice = chosen_reach(actor, found.entries, ids)
        # a wider value the person's own overrides is listed on their page: shared, not missing
        beaten = tuple(id for id in choice.missing if found.overridden(id) is not None)
        missing = tuple(id for id in choice.missing if id not in beaten)
        return replace(choice, shared=(*choice.shared, *beaten), missing=missing) if beaten else choice
    if not query.related:
        scopes = await scopes_on_file(visit.services.memory, ScopeContext(actor=actor))
        _, ask = records_ask(scopes, actor, query)
        matching = await visit.services.provider.records_matching(ask)
        contested = OnFile(ask.scopes, matching.contested)
        return matching_reach(actor, [contested.entry_of(r) for r in matching.own], shared=matching.shared)
    found = await on_file(visit.services, actor)
    selection, _ = await selected(visit, found, query)
    records = [r for group in selection.visible for r in group.matching]
    applying = [e for r in records if (e := found.entry_of(r)).record.id == r.id]
    return matching_reach(actor, applying, shared=len(records) - len(applying))


def _choice_problem(choice: Choice) -> ProblemView:
    if choice.shared:
        return ProblemView(403, "Those can't be forgotten here", choice.reason)
    if choice.missing:
        return ProblemView(404, "Some of those aren't on file for you", choice.reason)
    return ProblemView(400, "Nothing was chosen", choice.reason)


@get("/memories/forget-chosen", name="confirm_forget_chosen", include_in_schema=False)
async def confirm_forget_chosen(
    request: HTMXRequest,
    visit: NamedDependency[Visit],
    id: Annotated[list[str] | None, QueryParameter(name="id", description="A memory ticked.")] = None,
    all: Annotated[str, QueryParameter(name="all", description="1: every own memory matching the view.")] = "",
    back: Annotated[str, QueryParameter(name="back", description="The view to come back to.")] = "/",
) -> Template:
    query = _back(request, back)
    everything = all == "1"
    choice = await _choice(visit, query, id or [], everything)
    if not choice.allowed:
        return _problem(request, visit.viewer, query, _choice_problem(choice))
    view = _chosen_view(visit, query, choice, everything)
    name = "me/_forget_chosen.html" if request.htmx else "me/forget_chosen.html"
    return Template(name, context={"chosen": view}, headers=_HEADERS)


@post("/memories/forget-chosen", name="forget_chosen", status_code=200, include_in_schema=False)
async def forget_chosen(
    request: HTMXRequest,
    visit: NamedDependency[Visit],
    data: Annotated[ChosenForm, Body(media_type=RequestEncodingType.URL_ENCODED)],
) -> Template | Redirect:
    query, now = _back(request, data.back), _now()
    everything = data.all == "1"
    choice = await _choice(visit, query, data.ids, everything)
    if not choice.allowed:
        problem = _choice_problem(choice)
        if problem.status == 404:
            return await _gone(request, visit, query, problem)
        return _problem(request, visit.viewer, query, problem)
    if everything and data.expect != selection_fingerprint(e.record.id for e in choice.goes):
        view = _chosen_view(visit, query, choice, everything, changed=True)
        if request.htmx:  # asked again in the question's place: a 409 would be shown as a failure
            return HTMXTemplate(
                template_name="me/_forget_chosen.html",
                context={"chosen": view},
                re_target="#chooser-confirm",
                re_swap="innerHTML",
                headers=_HEADERS,
            )
        return Template("me/forget_chosen.html", context={"chosen": view}, status_code=409, headers=_HEADERS)
    forgotten = await visit.services.personal.forget(visit.viewer.actor, choice)
    if forgotten.ticket is None:  # everything chosen went meanwhile (another tab)
        problem = ProblemView(404, "Those aren't on file for you any more", "They may already have been forgotten.")
        return await _gone(request, visit, query, problem)
    count = forgotten.count
    notice = NoticeView(
        kind="forgotten",
        message=f"Forgotten: “{forgotten.records[0].key}”." if count == 1 else f"Forgotten: {count:,} memories.",
        detail=_in_flight(visit.services, count),
        undo_token=undo_token(visit.services, visit.viewer, forgotten.ticket, now),
        receipt_href=receipt_href(visit.services, visit.viewer, forgotten.receipt, RECEIPT_PAGE),
    )
    cookie = NOTICES.sealed(visit.services, visit.viewer, notice, now)
    if not request.htmx:
        return Redirect(query.href(), status_code=303, cookies=[cookie])
    # kept for the next page load too, so Undo outlives a reload (see `web.me.pages.memories`)
    return _whole_list(await listing_page(visit, query, now, notice), focus_notice=True, cookies=[cookie])


@get("/memories/{memory_id:str}/edit", name="edit_memory", include_in_schema=False)
async def edit_memory(
    request: HTMXRequest,
    visit: NamedDependency[Visit],
    memory_id: FromPath[str],
    back: Annotated[str, QueryParameter(name="back", description="The view to come back to.")] = "/",
) -> Template:
    query = _back(request, back)
    found = await on_file_of_ids(visit.services, visit.viewer.actor, [memory_id])
    entry = next((e for e in found.entries if e.record.id == memory_id), None)
    if entry is None:
        return await _not_there(request, visit, query, found, memory_id)
    view = EditView(
        entry=await _row(visit, found, entry, query),
        text=entry.text,
        error="",
        back=query.href(),
        viewer_name=visit.viewer.name,
        csrf_token=visit.viewer.csrf_token,
        max_chars=visit.services.settings.max_fact_chars,
    )
    if not view.entry.forgettable:
        return _problem(request, visit.viewer, query, _shared_refusal(visit, entry.scope))
    return _edit_answer(request, view, 200)


@post("/memories/{memory_id:str}/edit", name="correct_memory", status_code=200, include_in_schema=False)
async def correct_memory(
    request: HTMXRequest,
    visit: NamedDependency[Visit],
    memory_id: FromPath[str],
    data: Annotated[EditForm, Body(media_type=RequestEncodingType.URL_ENCODED)],
) -> Template | Redirect:
    query, now = _back(request, data.back), _now()
    outcome = await visit.services.personal.correct(visit.viewer.actor, memory_id, data.text)
    found = await on_file_of_ids(visit.services, visit.viewer.actor, [memory_id])
    entry = next((e for e in found.entries if e.record.id == memory_id), None)
    if outcome.status == "not_found" or entry is None:
        return await _not_there(request, visit, query, found, memory_id)
    if outcome.status == "refused":
        return _problem(request, visit.viewer, query, _shared_refusal(visit, entry.scope))
    row = await _row(visit, found, entry, query)
    if outcome.status == "invalid":  # the form again, with what they typed, saying why
        view = EditView(
            entry=row,
            text=data.text,
            error=outcome.reason,
            back=query.href(),
            viewer_name=visit.viewer.name,
            csrf_token=visit.viewer.csrf_token,
            max_chars=visit.services.settings.max_fact_chars,
        )
        return _edit_answer(request, view, 400)
    notice = NoticeView(kind="done", message=f"Corrected: “{entry.key}”. It now reads as stated by you.")
    if not request.htmx:
        cookie = NOTICES.sealed(visit.services, visit.viewer, notice, now)
        return Redirect(f"{query.href()}#entry-{memory_id}", status_code=303, cookies=[cookie])
    page = RowPage(csrf_token=visit.viewer.csrf_token, back=query.href())
    context = {"page": page, "entry": row, "focus": True, "notice": notice}
    return Template("me/_corrected.html", context=context, headers=_HEADERS)


_NOT_ON_FILE = "It may have been forgotten meanwhile."


def _shared_refusal(visit: Visit, scope: str) -> ProblemView:
    """A shared fact is not corrected from one's own page: who may change it, and, to one of them,
    where they do."""
    here = (
        "You are one of its administrators: change it in Administration, under Shared facts."
        if scope in visit.elevation.scopes
        else ""
    )
    return ProblemView(403, _NOT_CHANGED, not_theirs_to_change(scope, visit.viewer.actor), here)


async def _not_there(request: HTMXRequest, visit: Visit, query: MemoryQuery, found: OnFile, memory_id: str) -> Template:
    """A memory with no entry of its own: a wider value the person's own setting overrides is shown on
    their page and is not theirs to change (403, saying so); anything else is not on file for them."""
    beaten = found.overridden(memory_id)
    if beaten is not None:
        refused = ProblemView(403, _NOT_CHANGED, overridden_not_theirs(beaten.scope, visit.viewer.actor))
        return _problem(request, visit.viewer, query, refused)
    return await _gone(request, visit, query, ProblemView(404, _GONE_HEADING, _NOT_ON_FILE))


def _edit_answer(request: HTMXRequest, view: EditView, status: int) -> Template:
    """The form: a page (a refused one is 400), or for htmx the entry's replacement — answered 200, since
    htmx puts a refusal's answer in the notices, and this one belongs where the person is typing."""
    if request.htmx:
        return Template("me/_entry_edit.html", context={"edit": view}, headers=_HEADERS)
    return Template("me/edit.html", context={"edit": view}, status_code=status, headers=_HEADERS)


def _chosen_view(
    visit: NamedDependency[Visit], query: MemoryQuery, choice: Choice, everything: bool, *, changed: bool = False
) -> ChosenView:
    keys = tuple(e.key for e in choice.goes[:_SHOWN_KEYS])
    return ChosenView(
        count=len(choice.goes),
        keys=keys,
        more=len(choice.goes) - len(keys),
        ids=() if everything else tuple(e.record.id for e in choice.goes),
        everything=everything,
        expect=selection_fingerprint(e.record.id for e in choice.goes) if everything else "",
        stays=choice.stays,
        changed=changed,
        searched=query.filtered,
        in_flight=_in_flight(visit.services, len(choice.goes)),
        back=query.href(),
        viewer_name=visit.viewer.name,
        csrf_token=visit.viewer.csrf_token,
    )
