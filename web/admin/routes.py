"""The elevated area's pages as one router, for administrators only: each of its handlers takes
`elevation`, which the router provides only to someone who administers a scope; anyone else gets the
403 page saying why (`web.kit.area.not_elevated_page`) before any handler runs.

The area's JSON endpoints are a router of their own (`web.admin.api.admin_api_router`), held to the
same requirement."""

from __future__ import annotations

from litestar import Router
from litestar.di import Provide

from web.admin.actions import delete_fact, edit_fact, fact_step, pin_fact
from web.admin.audit import audit_download_csv, audit_download_json, audit_trail
from web.admin.organisation import organisation_settings, set_approval, set_lifetime
from web.admin.pages import fact_row, publish_fact, shared_facts
from web.admin.people import confirm_erasure, erase_person, erasure_receipt, people
from web.kit.identity.elevation import administrators_only

__all__ = ("admin_pages_router",)

admin_pages_router = Router(
    path="/",
    route_handlers=[
        shared_facts,
        publish_fact,
        fact_row,
        fact_step,
        edit_fact,
        delete_fact,
        pin_fact,
        audit_trail,
        people,
        confirm_erasure,
        erase_person,
        erasure_receipt,
        audit_download_csv,
        audit_download_json,
        organisation_settings,
        set_approval,
        set_lifetime,
    ],
    dependencies={"elevation": Provide(administrators_only)},
)
