"""The personal page's notices, and the short window in which a forget can be undone.

Forgetting one memory or many is one act with one undo (`store.personal`): what went is kept in the
database encrypted with a key only this token holds, for `UNDO_SECONDS`. Undoing puts every memory
back as it was — its id, text, origin and date — except one whose key has been written at the
person's own scope since (restoring would overwrite something newer).

The token is sealed for the session (`web.kit.sealed`), so it cannot be read, forged or replayed from
another session, and it stays small however many memories went: it names the stash and carries its
key, never the memories. A notice for the page after a plain form's redirect rides the same way, in a
short-lived cookie (`NOTICES`); a forget's stays there, for every page load, until it is undone or
its window closes, also after a forget in place.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from store.personal import UNDO_WINDOW, UndoTicket
from web.kit.identity.sessions import Viewer
from web.kit.notices import NoticeCookie
from web.kit.sealed import seal, unseal
from web.kit.words import count_words
from web.services import Services

__all__ = (
    "NOTICES",
    "NOTICE_COOKIE",
    "UNDO_SECONDS",
    "RestoreOutcome",
    "restore_forgotten",
    "undo_token",
)

NOTICE_COOKIE = "onfile_notice"
UNDO_SECONDS = int(UNDO_WINDOW.total_seconds())
NOTICES = NoticeCookie(
    NOTICE_COOKIE,
    purpose="notice",
    kinds=frozenset({"forgotten", "restored", "published", "problem", "done"}),
    seconds=UNDO_SECONDS,
)
"""The personal page's notices, in a cookie of their own: a forget's carries its undo for as long as it lasts."""
_TOO_LATE = "It is too late to undo that: it can be undone for ten minutes."
_ALREADY = "That has already been undone: what it forgot is back on file, unless it was forgotten again since."


def undo_token(services: Services, viewer: Viewer, ticket: UndoTicket, now: datetime) -> str:
    """What undoing one act of forgetting will need, sealed for this session."""
    data = {"stash": ticket.stash, "key": ticket.key}
    return seal(services.settings.secret_key, viewer.session_id, "undo", data, now)


@dataclass(frozen=True, slots=True)
class RestoreOutcome:
    """What an undo did, in words: `restored` (everything, or some with `reason` saying which stayed
    as newly written), `superseded` (nothing came back: every key was written again), or why not."""

    status: Literal["restored", "expired", "used", "superseded", "refused"]
    message: str = ""
    reason: str = ""
    keys: tuple[str, ...] = ()
    """The keys put back."""
    ids: tuple[str, ...] = ()
    """The memories put back, in the order of `keys`."""


async def restore_forgotten(services: Services, viewer: Viewer, token: str, now: datetime) -> RestoreOutcome:
    data = unseal(services.settings.secret_key, viewer.session_id, "undo", token, now, seconds=UNDO_SECONDS)
    stash, key = (data.get("stash"), data.get("key")) if data else (None, None)
    if not isinstance(stash, str) or not isinstance(key, str):
        return RestoreOutcome("expired", reason=_TOO_LATE)
    undone = await services.personal.undo(viewer.actor, UndoTicket(stash, key))
    secret, session = services.settings.secret_key, viewer.session_id
    if undone.status == "expired" and unseal(secret, session, "undo", token, now, seconds=UNDO_SECONDS - 2):
        # Still well within its ten minutes (its token, sealed just after the forget, says so), so
        # what it would put back is gone because an undo already put it back (a second click, a tab).
        return RestoreOutcome("used", reason=_ALREADY)
    if undone.status != "restored":
        return RestoreOutcome(undone.status, reason=undone.reason)
    kept = [r.key for r in undone.superseded]
    newer = (
        f"“{kept[0]}” has been written again since it was forgotten, so the newer value was kept."
        if len(kept) == 1
        else f"{len(kept):,} have been written again since they were forgotten, so the newer values were kept."
    )
    restored = [r.key for r in undone.restored]
    if not restored:
        return RestoreOutcome("superseded", reason=newer)
    message = (
        f"“{restored[0]}” is back on file." if len(restored) == 1 else f"{count_words(len(restored))} are back on file."
    )
    return RestoreOutcome(
        "restored",
        message=message,
        reason=newer if kept else "",
        keys=tuple(restored),
        ids=tuple(r.id for r in undone.restored),
    )
