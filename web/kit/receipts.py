"""Deletion receipts on the way to the browser: sealed for the session that did the act, shown as a
list of places with counts, and downloadable as JSON.

The browser carries the receipt (in the notice, or the address of the page that shows it) and the
server keeps nothing: it holds counts only, never a forgotten text, and opens for `RECEIPT_SECONDS`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, cast
from urllib.parse import urlencode

import msgspec

from store.domain.receipts import Act, DeletionReceipt, Removal, deletion_receipt
from web.kit.identity.sessions import Viewer
from web.kit.sealed import seal, unseal
from web.services import Services

__all__ = (
    "PLACE_NAMES",
    "RECEIPT_JSON",
    "RECEIPT_PAGE",
    "RECEIPT_SECONDS",
    "ReceiptLineOut",
    "ReceiptOut",
    "ReceiptView",
    "open_receipt",
    "receipt_href",
    "receipt_out",
    "receipt_view",
    "seal_receipt",
)

RECEIPT_PAGE = "/memories/receipt"
"""Where a person's receipt is shown; `RECEIPT_JSON` downloads it."""
RECEIPT_JSON = "/memories/receipt.json"
RECEIPT_SECONDS = 24 * 60 * 60
"""How long a receipt can be opened and downloaded after the act."""
_PURPOSE = "receipt"
_ACTS: tuple[Act, ...] = ("forget", "forget-all", "erasure")


def seal_receipt(services: Services, viewer: Viewer, receipt: DeletionReceipt) -> str:
    """The receipt's counts, sealed for this session."""
    data = {
        "act": receipt.act,
        "person": receipt.person,
        "at": receipt.at.isoformat(),
        "removal": dataclasses.asdict(receipt.removal),
    }
    return seal(services.settings.secret_key, viewer.session_id, _PURPOSE, data, receipt.at)


def open_receipt(services: Services, viewer: Viewer, token: str, now: datetime) -> DeletionReceipt | None:
    """The receipt sealed by `seal_receipt`, or None when there is none, or it is forged, another
    session's or older than `RECEIPT_SECONDS`."""
    data = (
        unseal(services.settings.secret_key, viewer.session_id, _PURPOSE, token, now, seconds=RECEIPT_SECONDS)
        if token
        else None
    )
    if data is None or data.get("act") not in _ACTS:
        return None
    try:
        counts = cast(dict[str, Any], data["removal"])
        removal = Removal(**{name: int(counts[name]) for name in (f.name for f in dataclasses.fields(Removal))})
        at = datetime.fromisoformat(str(data["at"]))
        act = cast(Act, data["act"])
        hours = services.settings.journal_retention_hours
        return deletion_receipt(act, str(data["person"]), at, removal, retention_hours=hours)
    except (KeyError, TypeError, ValueError):
        return None


class ReceiptLineOut(msgspec.Struct, frozen=True):
    place: str
    removed: int
    kept: int
    words: str


class ReceiptOut(msgspec.Struct, frozen=True):
    """A deletion receipt as downloaded: what was done about whom, when, and what went from where."""

    act: Literal["forget", "forget-all", "erasure"]
    person: str
    at: str
    places: list[ReceiptLineOut]


def receipt_out(receipt: DeletionReceipt) -> ReceiptOut:
    at = receipt.at.astimezone(UTC).isoformat().replace("+00:00", "Z")
    places = [ReceiptLineOut(line.place, line.removed, line.kept, line.words) for line in receipt.lines]
    return ReceiptOut(receipt.act, receipt.person, at, places)


@dataclass(frozen=True, slots=True)
class ReceiptView:
    """A receipt on a page: its lines, and where to download it."""

    lines: tuple[tuple[str, str, str], ...]
    """(place, its name in words, what went from it) in order."""
    download: str


PLACE_NAMES = {
    "memories": "Memories",
    "search-index": "Search index",
    "vectors": "Meaning vectors",
    "journal": "Conversation journal",
    "audit": "Audit trail",
    "waiting": "Notes waiting for approval",
    "undo": "Copy kept for Undo",
    "conversations": "Conversation records",
    "sessions": "Sign-in sessions",
}


def receipt_href(services: Services, viewer: Viewer, receipt: DeletionReceipt | None, path: str) -> str:
    """The address of the page showing `receipt`, sealed for this session ("" for none)."""
    return "" if receipt is None else f"{path}?{urlencode({'receipt': seal_receipt(services, viewer, receipt)})}"


def receipt_view(receipt: DeletionReceipt, token: str, path: str) -> ReceiptView:
    lines = tuple((line.place, PLACE_NAMES.get(line.place, line.place), line.words) for line in receipt.lines)
    return ReceiptView(lines, f"{path}?{urlencode({'receipt': token})}")
