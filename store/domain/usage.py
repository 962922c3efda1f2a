"""When each memory was used: the last time it went into one of the person's prompts, and in how
many of their turns over the last `USAGE_WINDOW`.

Two sources, never overlapping: the run journal's recorded digests (`Use`, one per turn offered the
memory, for the runs still kept) and the counts that pruning folded in from the runs it dropped
(`Counted`, per day). Pure: both come in as data, and the time is a parameter.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

__all__ = ("USAGE_WINDOW", "Counted", "Usage", "Use", "usage_of")

USAGE_WINDOW = timedelta(days=30)


@dataclass(frozen=True, slots=True)
class Use:
    """One turn whose prompt was offered the memory, from the journal."""

    memory_id: str
    at: datetime
    thread_id: str | None


@dataclass(frozen=True, slots=True)
class Counted:
    """How many turns were offered the memory on one day (their runs pruned since), and the last."""

    memory_id: str
    day: date
    turns: int
    last_used_at: datetime
    last_thread_id: str | None


@dataclass(frozen=True, slots=True)
class Usage:
    """`last_used_at` None: never used (as far as the journal and the counts reach)."""

    last_used_at: datetime | None = None
    last_thread_id: str | None = None
    turns: int = 0
    """Turns offered it within `USAGE_WINDOW` of now."""

    @property
    def never(self) -> bool:
        return self.last_used_at is None


def usage_of(ids: Sequence[str], uses: Iterable[Use], counted: Iterable[Counted], now: datetime) -> dict[str, Usage]:
    """Each of `ids`' usage at `now`: every id gets one (never used, when nothing names it). A turn
    counts when it was within the window; a day's count when the day is (a day the window starts in
    counts whole). The last use is the latest of either source, with its conversation."""
    since = now - USAGE_WINDOW
    wanted = set(ids)
    turns = dict.fromkeys(ids, 0)
    last: dict[str, tuple[datetime, str | None]] = {}

    def seen(memory_id: str, at: datetime, thread_id: str | None) -> None:
        if memory_id not in last or at > last[memory_id][0]:
            last[memory_id] = (at, thread_id)

    for use in uses:
        if use.memory_id in wanted:
            turns[use.memory_id] += use.at >= since
            seen(use.memory_id, use.at, use.thread_id)
    for count in counted:
        if count.memory_id in wanted:
            turns[count.memory_id] += count.turns if count.day >= since.date() else 0
            seen(count.memory_id, count.last_used_at, count.last_thread_id)
    return {memory_id: Usage(*last[memory_id], turns[memory_id]) if memory_id in last else Usage() for memory_id in ids}
