"""Bringing memories back from a file (`/memories/import`): upload a JSON export, see what it would add
or replace — key by key, the value on file beside the file's — and only then apply it.

- `GET /memories/import` offers the upload.
- `POST /memories/import` (a file) answers the preview; a file that cannot be read, or a line that
  cannot be imported, answers it with each reason (400), and no way to apply it.
- `POST /memories/import/apply` writes what the preview showed, planned again from the person's values
  now (`store.importing.Imports`): every memory as stated by the person, at their own scope, in one
  transaction; then back to their page with a notice. Nothing is written when any line is in error.

The preview carries the file's text in its form, so applying needs no state kept between the two, and
works without JavaScript. Whatever the form carries is checked again, as any write of theirs is.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated

from litestar import get, post
from litestar.datastructures import UploadFile
from litestar.di import NamedDependency
from litestar.enums import RequestEncodingType
from litestar.params import Body
from litestar.response import Redirect, Template

from store.domain.importing import IMPORT_AT_MOST_BYTES, NOT_AN_EXPORT, ImportLine, ImportPlan
from web.kit.identity.sessions import Viewer
from web.kit.notices import NoticeView
from web.kit.words import count_words
from web.me.undo import NOTICES
from web.services import Services

__all__ = ("apply_import", "import_page", "preview_import")

_HEADERS = {"Cache-Control": "no-store"}
_WHAT = {
    "add": "Added",
    "replace": "Replaces yours",
    "same": "Already on file",
    "shared": "Left out",
    "error": "Can't be imported",
}


@dataclass(frozen=True, slots=True)
class ImportLineView:
    number: int
    key: str
    text: str
    action: str
    what: str
    old: str
    reason: str


@dataclass(frozen=True, slots=True)
class ImportPage:
    viewer_name: str
    csrf_token: str
    document: str = ""
    """The file's text, carried by the apply form."""
    lines: tuple[ImportLineView, ...] = ()
    error: str = ""
    summary: str = ""
    applicable: bool = False
    others: str = ""
    """Said when the file holds notes exported for someone else: whose, and what importing them does."""


def import_view(viewer: Viewer, document: str, plan: ImportPlan) -> ImportPage:
    lines = tuple(_line_view(line) for line in plan.lines)
    return ImportPage(
        viewer.name,
        viewer.csrf_token,
        document if plan.applicable else "",
        lines,
        plan.error,
        _summary(plan),
        plan.applicable,
        _others(plan.others),
    )


def _line_view(line: ImportLine) -> ImportLineView:
    return ImportLineView(
        line.number, line.key, line.text, line.action, _WHAT[line.action], line.old or "", line.reason
    )


def _others(ids: tuple[str, ...]) -> str:
    """Said of a file exported for other people. They are not named: an id is no name a person reads,
    and looking their names up would tell whoever uploads a file the name behind any id they write."""
    if not ids:
        return ""
    whose = "someone else" if len(ids) == 1 else count_words(len(ids), "other person", "other people")
    return (
        f"This file holds notes exported for {whose}, not for you. Importing them makes them yours, as "
        "written by you: check that this is the file you meant."
    )


def _summary(plan: ImportPlan) -> str:
    if plan.error:
        return "Nothing was imported."
    if plan.errors:
        lines = count_words(len(plan.errors), "line", "lines")
        return f"Nothing was imported: {lines} of the file can't be. Correct the file and upload it again."
    if not plan.writes:
        return "Everything in this file is already on file, or not yours to import: there is nothing to add."
    added = sum(1 for line in plan.writes if line.action == "add")
    replaced = len(plan.writes) - added
    return f"Importing adds {count_words(added)} and replaces {count_words(replaced)} of yours, as written by you."


def _status(plan: ImportPlan) -> int:
    return 400 if plan.error or plan.errors else 200


@get("/memories/import", name="import_page", include_in_schema=False)
async def import_page(viewer: NamedDependency[Viewer]) -> Template:
    page = ImportPage(viewer.name, viewer.csrf_token)
    return Template("me/import.html", context={"page": page}, headers=_HEADERS)


@dataclass
class UploadForm:
    file: UploadFile | None = None
    csrf_token: str = ""


@post("/memories/import", name="preview_import", status_code=200, include_in_schema=False)
async def preview_import(
    services: NamedDependency[Services],
    viewer: NamedDependency[Viewer],
    data: Annotated[UploadForm, Body(media_type=RequestEncodingType.MULTI_PART)],
) -> Template:
    document, plan = await _read_upload(services, viewer, data.file)
    page = import_view(viewer, document, plan)
    return Template("me/import.html", context={"page": page}, headers=_HEADERS, status_code=_status(plan))


@dataclass(frozen=True, slots=True)
class ApplyForm:
    document: str = ""
    csrf_token: str = ""


@post("/memories/import/apply", name="apply_import", status_code=303, include_in_schema=False)
async def apply_import(
    services: NamedDependency[Services],
    viewer: NamedDependency[Viewer],
    data: Annotated[ApplyForm, Body(media_type=RequestEncodingType.URL_ENCODED)],
) -> Template | Redirect:
    imported = await services.imports.apply(viewer.actor, data.document)
    if not imported.written:
        page = import_view(viewer, data.document, imported.plan)
        status = _status(imported.plan) if imported.plan.error or imported.plan.errors else 409
        return Template("me/import.html", context={"page": page}, headers=_HEADERS, status_code=status)
    notice = NoticeView(kind="done", message=f"Imported {count_words(imported.written)}, as written by you.")
    cookie = NOTICES.sealed(services, viewer, notice, datetime.now(UTC))
    return Redirect("/", status_code=303, headers=_HEADERS, cookies=[cookie])


async def _read_upload(services: Services, viewer: Viewer, file: UploadFile | None) -> tuple[str, ImportPlan]:
    """The uploaded file's text (UTF-8, a byte-order mark allowed) and its preview; a missing, empty,
    oversized or undecodable file is refused whole before anything is compared."""
    raw = b"" if file is None else await file.read(IMPORT_AT_MOST_BYTES + 1)
    if not raw:
        return "", ImportPlan(error="Choose the JSON file your page's “Download as JSON” gives.")
    if len(raw) > IMPORT_AT_MOST_BYTES:
        return "", ImportPlan(
            error=f"The file is larger than {IMPORT_AT_MOST_BYTES // 1_000_000} MB: import it in parts."
        )
    try:
        document = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return "", ImportPlan(error=NOT_AN_EXPORT)
    return document, await services.imports.preview(viewer.actor, document)
