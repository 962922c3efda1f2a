"""The values memory is made of: who is asking, what is on file, and what one turn is shown.

Every type here is frozen: a record read from a provider is a snapshot, and a digest is the
decision about one turn, so neither may change after it is made. Records, origins, digests, their
entries and overrides are msgspec Structs rather than dataclasses because every turn builds one per
applicable memory (or per key it carries): a Struct is built several times faster, which is most of
the cost of reading thousands of them. Those that hold only text, times, flags and one another
(records, origins, overrides) are not tracked by the garbage collector: they can hold no cycle, and
a read-back of thousands of them sets off no collection that walks them all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

import msgspec

__all__ = (
    "Actor",
    "Author",
    "DigestEntry",
    "MemoryDigest",
    "MemoryOrigin",
    "MemoryRecord",
    "Override",
    "ScopeContext",
    "Shortlist",
)

Author = Literal["human", "agent"]
"""Who decided a fact: a person (the user about themselves, or an administrator) or the assistant."""


@dataclass(frozen=True, slots=True)
class Actor:
    """The person a turn runs for. `id` is stable across logins; `tenant_ref` names their organisation."""

    id: str
    tenant_ref: str | None = None
    roles: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ScopeContext:
    """What a scope resolver and a provider are told about the turn they serve."""

    actor: Actor
    thread_id: str | None = None


class MemoryOrigin(msgspec.Struct, frozen=True, gc=False):
    """Where a fact came from.

    `thread_id` and `run_id` point at the conversation and turn the fact was concluded in. They are
    pointers that may dangle: the conversation can be deleted or trimmed and the fact is kept.
    `actor_ref` is the person the fact was concluded for, or the person who wrote it.
    """

    author: Author
    thread_id: str | None = None
    run_id: str | None = None
    actor_ref: str | None = None
    promoted_from: str | None = None
    """For a fact a person republished at a wider scope: the id of the memory it was published from
    (`actor_ref` is then who promoted it)."""


class MemoryRecord(msgspec.Struct, frozen=True, gc=False):
    """One keyed fact held at one scope. There is at most one record per (scope, key)."""

    id: str
    key: str
    text: str
    scope: str
    origin: MemoryOrigin
    updated_at: datetime
    pinned: bool = False

    def __post_init__(self) -> None:
        if self.updated_at.tzinfo is None:
            msg = f"MemoryRecord {self.id!r}: updated_at must be timezone-aware"
            raise ValueError(msg)


class Override(msgspec.Struct, frozen=True, gc=False):
    """A wider value beaten by a narrower one, carried along so the model can name both."""

    scope: str
    text: str
    author: Author


class DigestEntry(msgspec.Struct, frozen=True):
    """One key as a turn sees it: the narrowest record, and every wider value it beat (widest last).

    `pinned` belongs to the key, not to the record that currently answers it: the entry is pinned
    when any record of the key is pinned.
    """

    record: MemoryRecord
    overrides: tuple[Override, ...] = ()
    pinned: bool = False

    @property
    def key(self) -> str:
        return self.record.key

    @property
    def text(self) -> str:
        return self.record.text

    @property
    def scope(self) -> str:
        return self.record.scope

    @property
    def author(self) -> Author:
        return self.record.origin.author


class MemoryDigest(msgspec.Struct, frozen=True):
    """The decision about one turn: which scopes applied and which entries survived selection.

    `omitted` counts every key that applied but was left out by the ceiling; `pinned_omitted` counts
    the pinned keys among them (the number to alert on). `recalled` is true when a search chose the
    candidates, so the entries are a selection by relevance.
    """

    scopes: tuple[str, ...]
    entries: tuple[DigestEntry, ...] = ()
    omitted: int = 0
    pinned_omitted: int = 0
    recalled: bool = False

    @property
    def offered(self) -> int:
        """How many entries the turn carries."""
        return len(self.entries)

    @property
    def is_partial(self) -> bool:
        """True when the model is reading a selection rather than everything that applies."""
        return self.omitted > 0 or self.recalled


@dataclass(frozen=True, slots=True)
class Shortlist:
    """A listed turn's records as a provider that applies the ceiling in its own query returns them:
    every record at the scopes of the keys it kept, and how many keys (`keys`), and how many pinned
    keys (`pinned_keys`), applied in all — what `omitted` and `pinned_omitted` are counted from.

    It keeps at least the best keys the ceiling holds, in the order selection uses when nothing
    ranked them: pinned keys first, then by the key's narrowest record, narrowest scope first and
    newest first, then by key. It may keep more (all of them, when there are few)."""

    records: Sequence[MemoryRecord]
    keys: int
    pinned_keys: int
