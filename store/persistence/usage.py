"""The counts of memory use that outlive the run journal (`memory_use_count`): folded in when pruning
drops runs, read for the memories one page shows, dropped with the person.

A count holds ids, a day, a number, a time and a conversation id: never a memory's text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, datetime
from typing import Any

from sqlalchemy import BindParameter, Date, Select, bindparam, case, delete, func, or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from store.domain.usage import Counted
from store.persistence.keyed import KeyedStatement, key_chunks
from store.persistence.tables import MemoryUseCountRow, table_of

__all__ = ("UsageCounts", "add_use_counts", "delete_memories_use_counts", "delete_use_counts")

counts = table_of(MemoryUseCountRow)
_AT_ONCE = 500


class UsageCounts:
    """Reads of the counts, for the person's page."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def counted(self, person_id: str, memory_ids: Sequence[str], *, since: date) -> list[Counted]:
        """For each of `memory_ids` (a page's worth): its counts of days from `since` on, and its latest
        day whatever its age (for when it was last used), in one statement per `key_chunks` piece
        (`store.persistence.keyed`: on a SQLite file, inline)."""
        found: list[Counted] = []
        values = {"person_id": person_id, "since": since}
        for chunk in key_chunks(list(dict.fromkeys(memory_ids))):
            found.extend(Counted(*row) for row in await _COUNTED.rows(self._engine, chunk, values=values))
        return found


def _counted(memory_ids: list[BindParameter[Any]]) -> Select[Any]:
    """The counts of the days from `since` on of the memories named, and each one's latest day."""
    latest = func.row_number().over(partition_by=counts.c.memory_id, order_by=counts.c.day.desc())
    ranked = (
        select(*counts.c, latest.label("latest"))
        .where(counts.c.person_id == bindparam("person_id"), counts.c.memory_id.in_(memory_ids))
        .subquery()
    )
    since = bindparam("since", type_=Date)
    return select(
        ranked.c.memory_id, ranked.c.day, ranked.c.turns, ranked.c.last_used_at, ranked.c.last_thread_id
    ).where(or_(ranked.c.day >= since, ranked.c.latest == 1))


_COUNTED = KeyedStatement(_counted)


async def add_use_counts(connection: AsyncConnection, uses: Iterable[tuple[str, str, datetime, str | None]]) -> None:
    """Add each (person, memory, time, conversation) use to its day's count, keeping the latest use's
    time and conversation: in the caller's transaction (pruning's, before the runs go)."""
    days: dict[tuple[str, str, date], dict[str, Any]] = {}
    for person_id, memory_id, at, thread_id in uses:
        key = (person_id, memory_id, at.date())
        row = days.get(key)
        if row is None:
            days[key] = {
                "person_id": person_id,
                "memory_id": memory_id,
                "day": at.date(),
                "turns": 1,
                "last_used_at": at,
                "last_thread_id": thread_id,
            }
        else:
            row["turns"] += 1
            if at > row["last_used_at"]:
                row["last_used_at"], row["last_thread_id"] = at, thread_id
    if not days:
        return
    insert: Any = postgresql.insert if connection.dialect.name == "postgresql" else sqlite.insert
    statement = insert(counts)
    newer = statement.excluded.last_used_at > counts.c.last_used_at
    statement = statement.on_conflict_do_update(
        index_elements=[counts.c.person_id, counts.c.memory_id, counts.c.day],
        set_={
            "turns": counts.c.turns + statement.excluded.turns,
            "last_used_at": case((newer, statement.excluded.last_used_at), else_=counts.c.last_used_at),
            "last_thread_id": case((newer, statement.excluded.last_thread_id), else_=counts.c.last_thread_id),
        },
    )
    rows = list(days.values())
    for start in range(0, len(rows), _AT_ONCE):
        await connection.execute(statement, rows[start : start + _AT_ONCE])


async def delete_use_counts(connection: AsyncConnection, person_id: str) -> None:
    """Every count of the person's use (their erasure)."""
    await connection.execute(delete(counts).where(counts.c.person_id == person_id))


async def delete_memories_use_counts(connection: AsyncConnection, memories: Iterable[tuple[str, str]]) -> None:
    """The counts of each (person, memory)'s use, for memories that are gone (expired and pruned)."""
    by_person: dict[str, list[str]] = {}
    for person_id, memory_id in memories:
        by_person.setdefault(person_id, []).append(memory_id)
    for person_id, memory_ids in by_person.items():
        for at in range(0, len(memory_ids), 500):
            chunk = memory_ids[at : at + 500]
            await connection.execute(
                delete(counts).where(counts.c.person_id == person_id, counts.c.memory_id.in_(chunk))
            )
