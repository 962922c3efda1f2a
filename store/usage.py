"""When each memory was used, for the person's page: the last time it went into one of their prompts,
and in how many of their turns over the last `USAGE_WINDOW` (the rule is `store.domain.usage`).

Read for the memories one page shows only, in a bounded number of statements whatever the person
holds: their journaled digests still kept (one statement, the database unnesting the offered ids
and returning only those asked about) and the
counts pruning folded in from the runs it dropped (one statement per 500 memories). Nothing is written
on a turn's path.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from store.domain.types import Actor
from store.domain.usage import USAGE_WINDOW, Usage, Use, usage_of
from store.persistence import RunJournal
from store.persistence.usage import UsageCounts

__all__ = ("MemoryUsage",)


class MemoryUsage:
    def __init__(self, journal: RunJournal, counts: UsageCounts) -> None:
        self._journal = journal
        self._counts = counts

    async def usage(self, person: Actor, memory_ids: Sequence[str], now: datetime) -> dict[str, Usage]:
        """Each of `memory_ids`' use in `person`'s turns, at `now`."""
        if not memory_ids:
            return {}
        offered = await self._journal.offered_in(person.id, memory_ids)
        uses = [Use(memory_id, at, thread_id) for _, at, thread_id, memory_id in offered]
        counted = await self._counts.counted(person.id, memory_ids, since=(now - USAGE_WINDOW).date())
        return usage_of(memory_ids, uses, counted, now)
