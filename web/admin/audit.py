"""The audit trail (`/admin/audit`): who did what to the shared facts of the scopes the person
administers, and who previewed whose prompt — filterable, and downloadable as CSV and JSON.

The downloads carry the same filtered set as the page shows (every page of it), as attachments.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from litestar import Response, get
from litestar.di import NamedDependency, Provide
from litestar.params import QueryParameter
from litestar.plugins.htmx import HTMXRequest
from litestar.response import Template

from store.domain.wire import AuditEntryWire
from store.persistence import AuditEntry
from web.admin.audit_views import AuditQuery, audit_csv, audit_json, audit_page, filter_entries, people_named
from web.kit.area import NO_STORE, area_view
from web.kit.identity.visit import Visit
from web.kit.spreadsheets import CSV_MEDIA_TYPE, for_spreadsheets

__all__ = ("audit_download_csv", "audit_download_json", "audit_trail")

Action = Annotated[str | None, QueryParameter(name="action", description="write, edit, delete, pin, …")]
Scope = Annotated[str | None, QueryParameter(name="scope", description="Only this scope.")]
Who = Annotated[str | None, QueryParameter(name="who", description="Who did it (part of the id or name).")]
Key = Annotated[str | None, QueryParameter(name="key", description="Text in the key.")]
Page = Annotated[str | None, QueryParameter(name="page", description="The page, from 1.")]


async def _audit_query(
    action: Action = None, in_scope: Scope = None, who: Who = None, key: Key = None, page: Page = None
) -> AuditQuery:
    """The filter (and page) the address asks for; the page and its downloads read it alike."""
    return AuditQuery.parse(action=action, scope=in_scope, who=who, key=key, page=page)


_FILTER = {"audit_filter": Provide(_audit_query)}


@get("/admin/audit", name="admin_audit", include_in_schema=False, dependencies=_FILTER)
async def audit_trail(
    request: HTMXRequest, visit: NamedDependency[Visit], audit_filter: NamedDependency[AuditQuery]
) -> Template:
    entries = await visit.services.admin.audit_entries(visit.viewer.actor)
    view = audit_page(
        entries,
        visit.elevation.scopes,
        visit.viewer.actor,
        audit_filter,
        area=area_view(visit.viewer, visit.elevation, "audit"),
        now=datetime.now(UTC),
        names=await visit.services.people.names_of(people_named(entries)),
    )
    return Template("admin/audit.html", context={"page": view, "area": view.area}, headers=NO_STORE)


@get("/admin/audit.csv", name="admin_audit_csv", include_in_schema=False, dependencies=_FILTER)
async def audit_download_csv(visit: NamedDependency[Visit], audit_filter: NamedDependency[AuditQuery]) -> Response[str]:
    found = await _filtered(visit, audit_filter)
    return Response(
        for_spreadsheets(audit_csv(found)),
        media_type=CSV_MEDIA_TYPE,
        headers={**NO_STORE, "Content-Disposition": _attachment("csv")},
    )


@get("/admin/audit.json", name="admin_audit_json", include_in_schema=False, dependencies=_FILTER)
async def audit_download_json(
    visit: NamedDependency[Visit], audit_filter: NamedDependency[AuditQuery]
) -> Response[list[AuditEntryWire]]:
    found = await _filtered(visit, audit_filter)
    return Response(audit_json(found), headers={**NO_STORE, "Content-Disposition": _attachment("json")})


async def _filtered(visit: Visit, query: AuditQuery) -> list[AuditEntry]:
    """The filtered trail. Names are asked for only when the filter looks for who did it: a download
    holds ids."""
    entries = await visit.services.admin.audit_entries(visit.viewer.actor)
    names = await visit.services.people.names_of(e.who for e in entries) if query.who else {}
    return filter_entries(entries, query, visit.elevation.scopes, names)


def _attachment(extension: str) -> str:
    return f'attachment; filename="onfile-audit-{datetime.now(UTC):%Y-%m-%d}.{extension}"'
