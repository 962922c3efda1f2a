"""Pruning what OnFile no longer needs: run journals past their retention, expired sessions.

`onfile prune` does it on demand; a running server does it every few minutes (every worker may: it is
idempotent, and a run pruned by one is refused by all). Housekeeping only looks after a database that
exists: it never creates or migrates one, so a wrong path or URL is said, not pruned to "0 runs".
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from store.persistence import DATABASE_URL_VARIABLE, printable_url
from store.personal import UNDO_WINDOW
from web.services import Services, open_services
from web.settings import Settings

__all__ = ("NoDatabaseError", "Pruned", "existing_database", "prune", "pruning_every")

logger = logging.getLogger(__name__)


class NoDatabaseError(LookupError):
    """Housekeeping found no database where the settings point. The message names the file."""


@contextlib.asynccontextmanager
async def existing_database(settings: Settings) -> AsyncIterator[Services]:
    """The services over the database the settings name, as it is: a SQLite file that does not exist
    is refused (opening it would create it), and no schema is created or migrated."""
    path = settings.sqlite_file
    if path is not None and not path.is_file():
        msg = (
            f"there is no database at {path.absolute()} ({DATABASE_URL_VARIABLE}="
            f"{printable_url(settings.database_url)}); housekeeping never creates one"
        )
        raise NoDatabaseError(msg)
    services = await open_services(settings, migrate=False)
    try:
        yield services
    finally:
        await services.close()


@dataclass(frozen=True, slots=True)
class Pruned:
    runs: int
    sessions: int
    stashes: int = 0
    """Forgotten memories kept sealed for an undo whose window has passed."""
    expired: int = 0
    """Memories the assistant concluded that outlived their organisation's lifetime."""
    expired_runs: int = 0
    """Runs whose journal named one of those memories."""


async def prune(services: Services, *, now: datetime | None = None) -> Pruned:
    """Drop the journals of runs begun longer ago than the retention, every expired session, what
    was kept for undoing a forget once its window has passed, and every memory past its organisation's
    lifetime with the journals of the runs that named it."""
    now = now or datetime.now(UTC)
    cutoff = now - timedelta(hours=services.settings.journal_retention_hours)
    runs = await services.journal.prune(older_than=cutoff)
    sessions = await services.sessions.delete_expired()
    stashes = await services.stash.prune(older_than=now - UNDO_WINDOW)
    expired = await services.expiry.prune(now=now)
    pruned = Pruned(runs, sessions, stashes, expired=expired.memories, expired_runs=expired.runs)
    if pruned.runs or pruned.sessions or pruned.expired:
        logger.info(
            "pruned %d run journals, %d expired sessions and %d expired memories",
            pruned.runs,
            pruned.sessions,
            pruned.expired,
        )
    return pruned


@contextlib.asynccontextmanager
async def pruning_every(services: Services, interval: timedelta) -> AsyncIterator[None]:
    """Prune in the background while the block runs."""

    async def loop() -> None:
        while True:
            try:
                await prune(services)
            except Exception:
                logger.exception("pruning failed; trying again in %s", interval)
            await asyncio.sleep(interval.total_seconds())

    task = asyncio.create_task(loop())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
