"""`ForgottenStash`: what a person just forgot, kept sealed for its undo (the `forgotten_stash` table).

It stores bytes it cannot read: the caller encrypts the records with a key it keeps elsewhere
(`store.personal`). A stash is read only by the scope it was forgotten from, while it is younger than
the undo window, and discarded once used; housekeeping deletes the older ones.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy import delete, insert, select
from sqlalchemy.ext.asyncio import AsyncEngine

from store.persistence.engine import reading, writing
from store.persistence.tables import ForgottenStashRow, table_of
from store.persistence.types import new_id, utc_now

__all__ = ("ForgottenStash",)

stash = table_of(ForgottenStashRow)


class ForgottenStash:
    def __init__(self, engine: AsyncEngine, *, clock: Callable[[], datetime] = utc_now) -> None:
        self._engine = engine
        self._clock = clock

    async def keep(self, *, owner: str, sealed: bytes) -> str:
        """Keep `sealed` for the scope `owner`; the stash's id. Inside the provider's `together()` it
        commits with the forget that made it."""
        id = new_id("fgt")
        async with writing(self._engine) as connection:
            await connection.execute(insert(stash).values(id=id, owner=owner, created_at=self._clock(), sealed=sealed))
        return id

    async def read(self, id: str, *, owner: str, kept_since: datetime) -> bytes | None:
        """The stash `id` of `owner`, when it was kept at or after `kept_since`; None for anything else."""
        statement = select(stash.c.sealed).where(
            stash.c.id == id, stash.c.owner == owner, stash.c.created_at >= kept_since
        )
        async with reading(self._engine) as connection:
            row = (await connection.execute(statement)).first()
        return None if row is None else bytes(row[0])

    async def discard(self, id: str, *, owner: str) -> bool:
        """Delete the stash `id` of `owner`; whether it was still there (of two undoing at once, one is)."""
        async with writing(self._engine) as connection:
            result = await connection.execute(delete(stash).where(stash.c.id == id, stash.c.owner == owner))
        return result.rowcount > 0

    async def prune(self, *, older_than: datetime) -> int:
        """Delete every stash kept before `older_than`; how many went."""
        async with writing(self._engine) as connection:
            result = await connection.execute(delete(stash).where(stash.c.created_at < older_than))
        return result.rowcount

    async def erase_owner(self, owner: str) -> int:
        """Delete every stash of the scope `owner` (a person's erasure); how many went."""
        async with writing(self._engine) as connection:
            result = await connection.execute(delete(stash).where(stash.c.owner == owner))
        return result.rowcount
