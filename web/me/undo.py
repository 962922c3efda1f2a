"""The personal page's notices, and the short window in which a forget can be undone.

Undoing a forget writes the same key, text and origin back at the person's own scope through the
provider, authorised by `memory_write_verdict` like any other write. It is a new write, not a
resurrection: the record gets a new id and "updated" becomes the moment of the undo; a pin set in
the console is not restored. The undo is refused when the key has been written at the person's own
scope again since (restoring would overwrite something newer) and after `UNDO_SECONDS`.

What the undo needs rides in a token sealed for the session (`web.kit.sealed`), so it cannot be read
(it holds a fact the person just forgot), forged or replayed from another session, and nothing is
stored on the server. A notice for the page after a plain form's redirect rides the same way, in a
short-lived cookie (`NOTICES`), and so does how many memories a forget-all deleted, in the address of
the page that says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from store import DigestEntry, MemoryOrigin, ScopeContext, restore_memory
from web.kit.identity.sessions import Viewer
from web.kit.notices import NoticeCookie
from web.kit.sealed import seal, unseal
from web.services import Services

__all__ = (
    "NOTICES",
    "NOTICE_COOKIE",
    "UNDO_SECONDS",
    "RestoreOutcome",
    "forget_all_receipt",
    "read_forget_all_receipt",
    "restore_forgotten",
    "undo_token",
)

NOTICE_COOKIE = "onfile_notice"
UNDO_SECONDS = 10 * 60
NOTICES = NoticeCookie(
    NOTICE_COOKIE,
    purpose="notice",
    kinds=frozenset({"forgotten", "restored", "published", "problem"}),
    seconds=UNDO_SECONDS,
)
"""The personal page's notices, in a cookie of their own: a forget's carries its undo for as long as it lasts."""


def undo_token(services: Services, viewer: Viewer, entry: DigestEntry, now: datetime) -> str:
    """What undoing the forget of `entry` will need, sealed for this session."""
    origin = entry.record.origin
    data = {
        "key": entry.key,
        "text": entry.text,
        "origin": [origin.author, origin.thread_id, origin.run_id, origin.actor_ref],
    }
    return seal(services.settings.secret_key, viewer.session_id, "undo", data, now)


@dataclass(frozen=True, slots=True)
class RestoreOutcome:
    status: Literal["restored", "expired", "superseded", "refused"]
    key: str = ""
    reason: str = ""


async def restore_forgotten(services: Services, viewer: Viewer, token: str, now: datetime) -> RestoreOutcome:
    data = unseal(services.settings.secret_key, viewer.session_id, "undo", token, now, seconds=UNDO_SECONDS)
    if data is None:
        return RestoreOutcome("expired", reason="It is too late to undo that: it can be undone for ten minutes.")
    key, text = str(data["key"]), str(data["text"])
    author, thread_id, run_id, actor_ref = data["origin"]
    origin = MemoryOrigin(
        author="human" if author == "human" else "agent", thread_id=thread_id, run_id=run_id, actor_ref=actor_ref
    )
    restored = await restore_memory(
        services.memory, ScopeContext(actor=viewer.actor), key=key, text=text, origin=origin
    )
    return RestoreOutcome(restored.status, key, restored.reason)


def forget_all_receipt(services: Services, viewer: Viewer, count: int, now: datetime) -> str:
    """How many memories a forget-all deleted, sealed for this session: the page that says so believes
    no count it was not given by the forget-all itself."""
    return seal(services.settings.secret_key, viewer.session_id, "forget-all", {"count": count}, now)


def read_forget_all_receipt(services: Services, viewer: Viewer, token: str, now: datetime) -> int | None:
    """The count sealed by `forget_all_receipt`, or None when there is none, or it is forged, another
    session's or older than `UNDO_SECONDS`."""
    data = (
        unseal(services.settings.secret_key, viewer.session_id, "forget-all", token, now, seconds=UNDO_SECONDS)
        if token
        else None
    )
    count = data.get("count") if data else None
    return count if isinstance(count, int) and count >= 0 else None
