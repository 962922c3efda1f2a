"""A person's own data as a whole: download everything on file about them, and forget all of their own.

The download is the same set the page shows (and `GET /agent/memories` returns): every memory that
applies to them, with origins and the wider values each one overrides. Forget-all removes what is
held at their own scope only; what their organisation or everyone holds stays, and the confirmation
says so before anything goes.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated
from urllib.parse import urlencode

import msgspec
from litestar import Response, get, post
from litestar.di import NamedDependency
from litestar.enums import RequestEncodingType
from litestar.params import Body, QueryParameter
from litestar.response import Redirect, Template

from store import Actor, MemoryOrigin, forget_all_reach
from web.kit.identity.sessions import Viewer
from web.kit.receipts import (
    RECEIPT_JSON,
    RECEIPT_PAGE,
    ReceiptOut,
    ReceiptView,
    open_receipt,
    receipt_out,
    receipt_view,
    seal_receipt,
)
from web.kit.spreadsheets import CSV_MEDIA_TYPE, for_spreadsheets, neutralise_cell
from web.kit.words import author_kind, override_by, scope_words
from web.me.on_file import on_file
from web.me.readback import MemoryEntryOut, read_back
from web.services import Services

__all__ = (
    "confirm_forget_all",
    "entries_csv",
    "export_csv",
    "export_json",
    "forget_all",
    "forget_all_done",
    "receipt_json",
    "receipt_page",
)

NO_STORE = {"Cache-Control": "no-store"}


def _attachment(viewer: Viewer, extension: str) -> str:
    day = datetime.now(UTC).strftime("%Y-%m-%d")
    return f'attachment; filename="onfile-{viewer.actor.id}-{day}.{extension}"'


@get("/memories/export.json", name="export_json", include_in_schema=False)
async def export_json(services: NamedDependency[Services], viewer: NamedDependency[Viewer]) -> Response[bytes]:
    entries = await read_back(services, viewer, None)
    body = msgspec.json.encode(entries)
    headers = {**NO_STORE, "Content-Disposition": _attachment(viewer, "json")}
    return Response(body, media_type="application/json", headers=headers)


CSV_COLUMNS = (
    "id",
    "key",
    "fact",
    "applies_to",
    "always_on",
    "written_by",
    "last_written",
    "conversation",
    "conversation_still_there",
    "differs_from",
    "expires",
)
"""The CSV download's columns, for a person reading it in a spreadsheet: who a memory applies to and
who wrote it are in words; the JSON download keeps OnFile's own fields, for importing."""
_WRITTEN_BY = {"you": "you", "assistant": "your assistant", "administrator": "an administrator"}


def entries_csv(entries: list[MemoryEntryOut], actor: Actor) -> str:
    """One row per entry, in words rather than OnFile's own tokens; the wider values it overrides in one
    cell ("everyone: kilometres, set by an administrator"); every cell made safe from spreadsheet formulas."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for e in entries:
        origin = MemoryOrigin(e.origin.author, actor_ref=e.origin.actor_ref)
        differs = "; ".join(
            f"{scope_words(o.scope, actor).held_for}: {o.text}, {override_by(o.author, o.scope, actor)}"
            for o in e.overrides
        )
        row = [
            e.id,
            e.key,
            e.text,
            scope_words(e.scope, actor).held_for,
            "yes" if e.pinned else "no",
            _WRITTEN_BY[author_kind(origin, e.scope, actor)],
            e.updated_at,
            e.origin.thread_id or "",
            ("yes" if e.origin.resolves else "no") if e.origin.thread_id else "",
            differs,
            e.expires_at or "",
        ]
        writer.writerow([neutralise_cell(str(cell)) for cell in row])
    return out.getvalue()


@get("/memories/export.csv", name="export_csv", include_in_schema=False)
async def export_csv(services: NamedDependency[Services], viewer: NamedDependency[Viewer]) -> Response[str]:
    entries = await read_back(services, viewer, None)
    headers = {**NO_STORE, "Content-Disposition": _attachment(viewer, "csv")}
    return Response(for_spreadsheets(entries_csv(entries, viewer.actor)), media_type=CSV_MEDIA_TYPE, headers=headers)


@dataclass(frozen=True, slots=True)
class ForgetAllView:
    """What forgetting all of one's own would remove, and what would stay."""

    name: str
    csrf_token: str
    own: int
    shared: int
    retention_hours: int
    waiting: int = 0
    """The notes waiting for the person's approval, which go too."""


@get("/memories/forget-all", name="confirm_forget_all", include_in_schema=False)
async def confirm_forget_all(services: NamedDependency[Services], viewer: NamedDependency[Viewer]) -> Template:
    reach = forget_all_reach(viewer.actor, (await on_file(services, viewer.actor)).entries)
    view = ForgetAllView(
        name=viewer.name,
        csrf_token=viewer.csrf_token,
        own=reach.goes,
        shared=reach.stays,
        retention_hours=services.settings.journal_retention_hours,
        waiting=await services.consent.waiting_count(viewer.actor),
    )
    return Template("me/forget_all.html", context={"page": view}, headers=NO_STORE)


class ForgetAllForm(msgspec.Struct):
    csrf_token: str = ""


@post("/memories/forget-all", name="forget_all", status_code=303, include_in_schema=False)
async def forget_all(
    services: NamedDependency[Services],
    viewer: NamedDependency[Viewer],
    data: Annotated[ForgetAllForm, Body(media_type=RequestEncodingType.URL_ENCODED)],
) -> Redirect:
    """Everything at the person's own scope goes at once; the page says what went from where, from a
    receipt sealed for this session (counts in the address alone could say anything)."""
    receipt = seal_receipt(services, viewer, await services.personal.forget_all(viewer.actor))
    return Redirect(f"/memories/forget-all/done?{urlencode({'receipt': receipt})}", status_code=303, headers=NO_STORE)


@dataclass(frozen=True, slots=True)
class ForgetAllDoneView:
    """What a forget-all deleted; `count` and `receipt` are None when this page was opened without a
    valid receipt (directly, from another session, or long after), so it claims nothing."""

    viewer_name: str
    csrf_token: str
    count: int | None
    retention_hours: int
    receipt: ReceiptView | None = None


ReceiptToken = Annotated[str, QueryParameter(name="receipt", max_length=2000)]


@get("/memories/forget-all/done", name="forget_all_done", include_in_schema=False)
async def forget_all_done(
    services: NamedDependency[Services],
    viewer: NamedDependency[Viewer],
    receipt: ReceiptToken = "",
) -> Template:
    found = open_receipt(services, viewer, receipt, datetime.now(UTC))
    found = found if found is not None and found.act == "forget-all" else None
    view = ForgetAllDoneView(
        viewer_name=viewer.name,
        csrf_token=viewer.csrf_token,
        count=None if found is None else found.removal.memories,
        retention_hours=services.settings.journal_retention_hours,
        receipt=None if found is None else receipt_view(found, receipt, RECEIPT_JSON),
    )
    return Template("me/forget_all_done.html", context={"page": view}, headers=NO_STORE)


@dataclass(frozen=True, slots=True)
class ReceiptPage:
    """A forget's receipt; `receipt` None when there is no valid one (it claims nothing then)."""

    viewer_name: str
    csrf_token: str
    receipt: ReceiptView | None


@get(RECEIPT_PAGE, name="receipt_page", include_in_schema=False)
async def receipt_page(
    services: NamedDependency[Services], viewer: NamedDependency[Viewer], receipt: ReceiptToken = ""
) -> Template:
    found = open_receipt(services, viewer, receipt, datetime.now(UTC))
    view = ReceiptPage(
        viewer.name, viewer.csrf_token, None if found is None else receipt_view(found, receipt, RECEIPT_JSON)
    )
    # without a receipt it can open (none given, altered, another session's) the page says so, as a 404
    return Template("me/receipt.html", context={"page": view}, headers=NO_STORE, status_code=200 if found else 404)


@get(RECEIPT_JSON, name="receipt_json", include_in_schema=False)
async def receipt_json(
    services: NamedDependency[Services], viewer: NamedDependency[Viewer], receipt: ReceiptToken = ""
) -> Response[bytes]:
    """The receipt as JSON, to keep; 404 without a valid one."""
    found = open_receipt(services, viewer, receipt, datetime.now(UTC))
    if found is None:
        return Response(b'{"error": "There is no such receipt here."}', status_code=404, media_type="application/json")
    headers = {**NO_STORE, "Content-Disposition": _receipt_attachment(found.at)}
    out: ReceiptOut = receipt_out(found)
    return Response(msgspec.json.encode(out), media_type="application/json", headers=headers)


def _receipt_attachment(at: datetime) -> str:
    return f'attachment; filename="onfile-receipt-{at.astimezone(UTC).strftime("%Y-%m-%d-%H%M%S")}.json"'
