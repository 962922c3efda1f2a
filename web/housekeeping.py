"""Pruning what OnFile no longer needs: run journals past their retention, expired sessions.

`onfile prune` does it on demand; a running server does it every few minutes (every worker may: it is
idempotent, and a run pruned by one is refused by all).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from web.services import Services

__all__ = ("Pruned", "prune", "pruning_every")

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Pruned:
    runs: int
    sessions: int


async def prune(services: Services, *, now: datetime | None = None) -> Pruned:
    """Drop the journals of runs begun longer ago than the retention, and every expired session."""
    now = now or datetime.now(UTC)
    cutoff = now - timedelta(hours=services.settings.journal_retention_hours)
    pruned = Pruned(
        runs=await services.journal.prune(older_than=cutoff),
        sessions=await services.sessions.delete_expired(),
    )
    if pruned.runs or pruned.sessions:
        logger.info("pruned %d run journals and %d expired sessions", pruned.runs, pruned.sessions)
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
