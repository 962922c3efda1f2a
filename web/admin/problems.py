"""Why something in the shared facts or among people was not done: a page for a plain form, a notice
for htmx."""

from __future__ import annotations

from dataclasses import dataclass

from litestar.plugins.htmx import HTMXRequest
from litestar.response import Template

from web.admin.views import FactsPage
from web.kit.area import NO_STORE, AreaView

__all__ = ("ProblemView", "problem")


@dataclass(frozen=True, slots=True)
class ProblemView:
    """Why something was not done: as a page for a plain form, as a notice for htmx."""

    status: int
    heading: str
    message: str
    back: str
    back_label: str
    detail: str = ""


def problem(request: HTMXRequest, area: AreaView, view: ProblemView, refreshed: FactsPage | None = None) -> Template:
    """`refreshed`: for htmx, the list as it is now, sent with the notice out of band so
    a row that is gone leaves the page."""
    name = "admin/_problem.html" if request.htmx else "admin/problem.html"
    context = {"area": area, "problem": view, "refreshed": refreshed if request.htmx else None}
    return Template(name, context=context, status_code=view.status, headers=NO_STORE)
