"""The run journal: a run's decisions stored once per position and read back on every replay.

A position is written at most once. `checkpoint` returns what is stored when there is something, and
otherwise computes, stores and returns — atomically: two processes racing on one position may both
compute, but only the first insert is kept and both get that stored answer back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from store.persistence.engine import reading, writing
from store.persistence.tables import RunCheckpointRow, table_of
from store.persistence.types import utc_now

__all__ = ("RunJournal",)

journal = table_of(RunCheckpointRow)


class RunJournal:
    """Checkpoints keyed by (run id, position); a payload is any JSON-able value."""

    def __init__(self, engine: AsyncEngine, *, clock: Callable[[], datetime] = utc_now) -> None:
        self._engine = engine
        self._clock = clock

    async def checkpoint(self, run_id: str, position: str, compute: Callable[[], Awaitable[Any]]) -> Any:
        """The payload stored at (run_id, position); when there is none, `compute()`'s result, stored.

        `compute` runs outside any transaction (it may be slow: a search, a model call), so it can run
        in two racing processes at once; the store keeps the first insert and everyone returns it."""
        async with reading(self._engine) as connection:
            found, stored = await _stored_payload(connection, run_id, position)
        if found:
            return stored
        payload = await compute()
        async with writing(self._engine) as connection:
            await connection.execute(_insert_once(connection.dialect.name, run_id, position, payload, self._clock()))
            found, stored = await _stored_payload(connection, run_id, position)
        if not found:  # pragma: no cover - the row was just inserted or already there, in this transaction
            msg = f"checkpoint {run_id}/{position} vanished while being written"
            raise RuntimeError(msg)
        return stored

    async def checkpoints(self, run_id: str) -> dict[str, Any]:
        """Every stored payload of `run_id`, by position, in the order they were written."""
        statement = (
            select(journal.c.position, journal.c.payload)
            .where(journal.c.run_id == run_id)
            .order_by(journal.c.created_at, journal.c.position)
        )
        async with reading(self._engine) as connection:
            result = await connection.execute(statement)
            return {str(position): payload for position, payload in result.all()}


async def _stored_payload(connection: AsyncConnection, run_id: str, position: str) -> tuple[bool, Any]:
    result = await connection.execute(
        select(journal.c.payload).where(journal.c.run_id == run_id, journal.c.position == position)
    )
    row = result.first()
    return (False, None) if row is None else (True, row[0])


def _insert_once(dialect_name: str, run_id: str, position: str, payload: Any, now: datetime) -> Any:
    values = {"run_id": run_id, "position": position, "payload": payload, "created_at": now}
    if dialect_name == "postgresql":
        return postgresql.insert(journal).values(values).on_conflict_do_nothing()
    return sqlite.insert(journal).values(values).on_conflict_do_nothing()
