"""A page of the records on file for a person, asked of the database: what is asked, what comes back,
and the two rules the question needs besides the words (`store.domain.finding`).

- **The page starts inside the list.** A page number past the last page shows the last page; a list
  with nothing in it has one empty page (`page_start`).
- **The record that applies is found by the values it overrides too.** A key held at several scopes
  is answered by its narrowest record, and a search by words finds that record when each word is in
  it or in one of the wider values it beats (`found_beneath`); a record that is itself beaten is
  found by its own words only. Keys held at several scopes are few (the wider scopes' facts a person
  set otherwise), so this is decided here over their records, and the database is told which ids it
  holds for each word.
- **A date jump** lands on the page holding the first record last written on or before a day, in the
  newest-first order, or on or after it, oldest first (`jump_instant`: days are UTC days). The order
  by key has no dates to jump to.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from store.domain.finding import Order, folded, words_pattern
from store.domain.types import DigestEntry, MemoryRecord

__all__ = ("RecordsAsk", "RecordsMatching", "RecordsPage", "found_beneath", "jump_instant", "jump_page", "page_start")


@dataclass(frozen=True, slots=True)
class RecordsAsk:
    """What a page of records is asked for. Every record held at `scopes` is counted; those passing the
    filters are ordered by `order` and one page of `size` is shown: of `scope`'s records only when a
    scope is chosen, otherwise the first page of each scope with any passing."""

    scopes: tuple[str, ...]
    """The person's scopes, narrowest first."""
    actor_id: str
    own: str
    """The person's own scope: whether a memory is theirs reads it."""
    words: tuple[str, ...] = ()
    """The folded words of a search by words: each must match (`store.domain.finding.needles`)."""
    author: str = ""
    """`you`, `assistant` or `administrator` (as `web.kit.words.author_kind` names them), or any."""
    origin: str = ""
    """`present` or `gone`: whether the conversation a memory came from is still there; or any."""
    order: Order = "newest"
    scope: str | None = None
    page: int = 1
    size: int = 50
    jump: datetime | None = None
    """The date jump's instant (`jump_instant`): the chosen scope's page is the one holding the first
    record written before it (newest first), or at or after it (oldest first), instead of `page`."""


@dataclass(frozen=True, slots=True)
class RecordsPage:
    """What the database answered: per scope, how many records it holds and how many pass, the shown
    records from `starts` (their index among those passing); and every record of a key held at more
    than one scope, so the shown ones' entries can be resolved."""

    held: Mapping[str, int]
    matching: Mapping[str, int]
    shown: Mapping[str, tuple[MemoryRecord, ...]]
    starts: Mapping[str, int] = field(default_factory=dict)
    contested: tuple[MemoryRecord, ...] = ()


@dataclass(frozen=True, slots=True)
class RecordsMatching:
    """Every record passing an ask's filters at the scopes it shows (the chosen one, or all), for acting
    on them all at once. The person's own that apply are read (`own`, in the list's order); the others
    are counted (`shared`, those a narrower record overrides included: they match, and stay). `contested`
    is every record of a key held at more than one scope, so the own ones' entries can be resolved."""

    own: tuple[MemoryRecord, ...] = ()
    shared: int = 0
    contested: tuple[MemoryRecord, ...] = ()


def page_start(matching: int, page: int, size: int) -> int:
    """The index of the first record of page `page` (1 is the first) of `matching` records, `size` a
    page: a page past the last is the last."""
    last_page = max(1, -(-matching // size))
    return (min(max(page, 1), last_page) - 1) * size


def jump_instant(day: date, order: Order) -> datetime | None:
    """Where a jump to `day` cuts the list: newest first, the records written from the next day on
    come before it; oldest first, those written before the day. None in the order by key."""
    if order == "key":
        return None
    day = min(day, date.max - timedelta(days=1))  # the last day there is has no next day to cut at
    start = datetime(day.year, day.month, day.day, tzinfo=UTC)
    return start + timedelta(days=1) if order == "newest" else start


def jump_page(ahead: int, size: int) -> int:
    """The page a date jump lands on: the one holding the record after the `ahead` records that come
    before the date in the list's order."""
    return max(ahead, 0) // size + 1


def found_beneath(entries: Iterable[DigestEntry], words: Sequence[str]) -> dict[str, frozenset[str]]:
    """For each search word, the ids of the records that apply (`entries`' own) whose wider values hold
    it: the words a record is found by besides its own."""
    beneath = {e.record.id: "".join(folded(o.text) for o in e.overrides) for e in entries if e.overrides}
    return {word: frozenset(id for id, text in beneath.items() if words_pattern((word,)).match(text)) for word in words}
