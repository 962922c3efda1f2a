"""Acting on one shared fact from the page: edit its text, delete it (after a confirmation), pin it.

Each step works as a plain form first. `GET …/edit` and `GET …/delete` are pages of their own (the
confirmation a delete needs without JavaScript); for htmx the same URLs answer the fragment that
takes the row's place. The POSTs answer as `web.admin.pages.outcome_response` describes.
"""

from __future__ import annotations

from typing import Literal

from litestar import get, post
from litestar.di import NamedDependency
from litestar.params import FromPath
from litestar.plugins.htmx import HTMXRequest
from litestar.response import Redirect, Template

from web.admin.pages import (
    FactForm,
    Form,
    not_administered,
    outcome_response,
    page_and_fact,
    query_from,
)
from web.admin.replacing import replaces_token
from web.admin.views import AdminQuery, EditFormView, FactsPage, FactView
from web.kit.area import NO_STORE
from web.kit.errors import ErrorView, error_answer
from web.kit.identity.visit import Visit

__all__ = ("delete_fact", "edit_fact", "fact_step", "pin_fact")


@get(
    ["/admin/facts/{memory_id:str}/edit", "/admin/facts/{memory_id:str}/delete"],
    name="admin_fact_step",
    include_in_schema=False,
)
async def fact_step(
    request: HTMXRequest,
    visit: NamedDependency[Visit],
    memory_id: FromPath[str],
) -> Template:
    """The edit form (`…/edit`) or the delete confirmation (`…/delete`) of one shared fact."""
    step: Literal["edit", "delete"] = "edit" if request.url.path.endswith("/edit") else "delete"
    return await _step(request, visit, memory_id, step, back=_back(request), text=None, error="")


@post("/admin/facts/{memory_id:str}/edit", name="admin_edit", status_code=200, include_in_schema=False)
async def edit_fact(
    request: HTMXRequest,
    visit: NamedDependency[Visit],
    memory_id: FromPath[str],
    data: Form,
) -> Template | Redirect:
    changed = await _changed_since_shown(request, visit, memory_id, data, "edit")
    if changed is not None:
        return changed
    outcome = await visit.services.admin.edit(visit.viewer.actor, memory_id, text=data.text)
    if outcome.status == "invalid":
        return await _step(
            request,
            visit,
            memory_id,
            "edit",
            back=data.back,
            text=data.text,
            error=outcome.reason,
        )
    return await outcome_response(request, visit, query_from(request, data.back), outcome, "Saved")


@post("/admin/facts/{memory_id:str}/delete", name="admin_delete", status_code=200, include_in_schema=False)
async def delete_fact(
    request: HTMXRequest,
    visit: NamedDependency[Visit],
    memory_id: FromPath[str],
    data: Form,
) -> Template | Redirect:
    changed = await _changed_since_shown(request, visit, memory_id, data, "delete")
    if changed is not None:
        return changed
    outcome = await visit.services.admin.retire(visit.viewer.actor, memory_id)
    return await outcome_response(request, visit, query_from(request, data.back), outcome, "Deleted")


@post("/admin/facts/{memory_id:str}/pin", name="admin_pin", status_code=200, include_in_schema=False)
async def pin_fact(
    request: HTMXRequest,
    visit: NamedDependency[Visit],
    memory_id: FromPath[str],
    data: Form,
) -> Template | Redirect:
    """`pinned=true` makes the fact always on, `pinned=false` takes that away; anything else changes nothing."""
    if data.pinned not in ("true", "false"):
        return error_answer(request, NOT_A_PIN)
    pinned = data.pinned == "true"
    outcome = await visit.services.admin.pin(visit.viewer.actor, memory_id, pinned=pinned)
    done = "Now always on" if pinned else "No longer always on"
    return await outcome_response(request, visit, query_from(request, data.back), outcome, done)


async def _changed_since_shown(
    request: HTMXRequest, visit: Visit, memory_id: str, data: FactForm, step: Literal["edit", "delete"]
) -> Template | None:
    """An edit or a delete acts only on the value its form showed: when the fact was changed meanwhile
    (in another tab, by another administrator), the form comes back showing the new value and asks
    again (409 as a page), with what was typed kept; None when it may go ahead. An edit whose text is
    already the fact's loses nothing, and goes ahead."""
    if not data.shown:
        return None
    query = query_from(request, data.back)
    view, fact = await page_and_fact(visit, query, memory_id)
    if fact is None or replaces_token(fact) == data.shown or (step == "edit" and fact.text == data.text.strip()):
        return None  # gone meanwhile: the act itself says so
    typed = data.text if step == "edit" else None
    return _step_answer(request, visit, query, view, fact, step, text=typed, error="", changed=True)


async def _step(
    request: HTMXRequest,
    visit: Visit,
    memory_id: str,
    step: Literal["edit", "delete"],
    *,
    back: str,
    text: str | None,
    error: str,
) -> Template:
    """The edit form or the delete confirmation for one fact: a page, or for htmx the row's replacement.
    An invalid edit comes back here with what was typed and why it was refused (400 as a page)."""
    query = query_from(request, back)
    view, fact = await page_and_fact(visit, query, memory_id)
    if fact is None:
        return not_administered(request, view, query)
    return _step_answer(request, visit, query, view, fact, step, text=text, error=error)


def _step_answer(
    request: HTMXRequest,
    visit: Visit,
    query: AdminQuery,
    view: FactsPage,
    fact: FactView,
    step: Literal["edit", "delete"],
    *,
    text: str | None,
    error: str,
    changed: bool = False,
) -> Template:
    form = EditFormView(
        fact=fact,
        text=fact.text if text is None else text,
        error=error,
        max_fact_chars=visit.services.settings.max_fact_chars,
        back=query.href(),
        csrf_token=visit.viewer.csrf_token,
        shown=replaces_token(fact),
        changed=changed,
    )
    fragment = "admin/_fact_edit.html" if step == "edit" else "admin/_confirm_delete.html"
    context = {"form": form, "fact": fact, "page": view, "area": view.area}
    if request.htmx:  # the row's replacement; an invalid edit answers 200 so htmx swaps it back in place
        return Template(fragment, context=context, headers=NO_STORE)
    page = "admin/edit.html" if step == "edit" else "admin/confirm_delete.html"
    status = 409 if changed else 400 if error else 200
    return Template(page, context=context, status_code=status, headers=NO_STORE)


NOT_A_PIN = ErrorView(
    400,
    "Nothing was changed",
    "The form did not say whether the fact should be always on, so it stays as it was. Open the page again and "
    "use its button.",
    "/admin",
    "Back to the shared facts",
    "facts",
)


def _back(request: HTMXRequest) -> str:
    """Where a link to a step came from: its `back` parameter (the list's filter and page)."""
    return request.query_params.get("back") or "/admin"
