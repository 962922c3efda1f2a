"""Why something asked for on a page was not done: a page of its own for a plain form, a notice in
place for htmx. The personal page and the elevated area say it the same way; each names its own page
template (its own header) and, for a row that is gone, the parts of its list to refresh."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from litestar.plugins.htmx import HTMXRequest
from litestar.response import Template

__all__ = ("ProblemView", "Refreshed", "problem_answer")


@dataclass(frozen=True, slots=True)
class ProblemView:
    """Why something was not done, and the way back to where the person was."""

    status: int
    heading: str
    message: str
    detail: str = ""
    back: str = "/"
    back_label: str = "Back to what's on file"


@dataclass(frozen=True, slots=True)
class Refreshed:
    """The list as it is now, sent out of band with an htmx notice so a row that is gone leaves the
    page: the page's view, its results fragment and its filter's select fragment."""

    page: object
    results: str
    select: str


def problem_answer(
    request: HTMXRequest,
    view: ProblemView,
    *,
    page: str,
    headers: Mapping[str, str],
    context: Mapping[str, Any] | None = None,
    refreshed: Refreshed | None = None,
) -> Template:
    """`page` (given `context` beside the problem) for a plain form; for htmx the notice, with the
    list `refreshed` when there is one."""
    if request.htmx:
        notice = {"problem": view, "refreshed": refreshed}
        return Template("kit/_problem.html", context=notice, status_code=view.status, headers=dict(headers))
    return Template(page, context={**(context or {}), "problem": view}, status_code=view.status, headers=dict(headers))
