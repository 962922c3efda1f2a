"""Precedence and selection: from the records a provider returned to the entries one turn carries.

Precedence resolves a conflict — two records at one key — and scope decides it: the narrowest wins
and every beaten value rides along. Selection decides which keys appear at all under the ceiling:
pinned keys first, then relevance when a search ranked the candidates, otherwise the narrowest
scope and the newest within it (so the widest, then the stalest, are dropped first).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from store.domain.scopes import normalise_scopes, scope_ranks
from store.domain.types import DigestEntry, MemoryDigest, MemoryRecord, Override

__all__ = ("DEFAULT_MAX_MEMORIES", "resolve_digest")

DEFAULT_MAX_MEMORIES = 20


class _Candidate(NamedTuple):
    """A key before selection: just what the orders need, so entries are built only for kept keys."""

    scope_rank: int
    newest_first: float
    key: str
    first_seen: int
    pinned: bool
    group: list[MemoryRecord]


def resolve_digest(
    records: Iterable[MemoryRecord],
    *,
    scopes: Sequence[str],
    max_memories: int | None = DEFAULT_MAX_MEMORIES,
    ranked: bool = False,
) -> MemoryDigest:
    """Resolve precedence per key, then select under `max_memories` (None: no ceiling, the read-back).

    - A record at a scope outside `scopes` is dropped entirely: it is neither a winner nor an override.
    - Per key, the record at the narrowest scope wins (newest, then lowest id, among records at one
      scope); every other record becomes an override, widest last.
    - `ranked` says the records arrived in relevance order (a search): a key's rank is where its
      first record appears. The digest is then marked `recalled`.
    """
    if max_memories is not None and max_memories < 0:
        msg = f"max_memories must be zero or more, not {max_memories}"
        raise ValueError(msg)
    resolved_scopes = normalise_scopes(scopes)
    ranks = scope_ranks(resolved_scopes)

    by_key: dict[str, list[MemoryRecord]] = {}
    first_seen: dict[str, int] = {}
    for position, record in enumerate(records):
        if record.scope not in ranks:
            continue
        group = by_key.get(record.key)
        if group is None:
            by_key[record.key] = [record]
            first_seen[record.key] = position
        else:
            group.append(record)

    def winner_order(record: MemoryRecord) -> tuple[int, float, str]:
        return (ranks[record.scope], -record.updated_at.timestamp(), record.id)

    candidates = []
    for key, group in by_key.items():
        winner = group[0]
        pinned = winner.pinned
        if len(group) > 1:  # most keys are held at one scope: skip the work for them
            group.sort(key=winner_order)
            winner = group[0]
            pinned = any(r.pinned for r in group)
        stamp = -winner.updated_at.timestamp()
        candidates.append(_Candidate(ranks[winner.scope], stamp, key, first_seen[key], pinned, group))

    pinned_keys = sorted(c for c in candidates if c.pinned)
    unpinned = [c for c in candidates if not c.pinned]
    ceiling = len(candidates) if max_memories is None else max_memories
    kept_pinned = pinned_keys[:ceiling]
    room = ceiling - len(kept_pinned)
    order = _by_relevance if ranked else _narrowest_then_newest
    # The budget usually keeps a few keys out of many: pick them without sorting the rest.
    kept_unpinned = heapq.nsmallest(room, unpinned, key=order) if room < len(unpinned) else sorted(unpinned, key=order)
    return MemoryDigest(
        scopes=resolved_scopes,
        entries=tuple(_entry(c) for c in (*kept_pinned, *kept_unpinned)),
        omitted=len(candidates) - len(kept_pinned) - len(kept_unpinned),
        pinned_omitted=len(pinned_keys) - len(kept_pinned),
        recalled=ranked,
    )


def _by_relevance(candidate: _Candidate) -> int:
    return candidate.first_seen


def _narrowest_then_newest(candidate: _Candidate) -> tuple[int, float, str]:
    return (candidate.scope_rank, candidate.newest_first, candidate.key)


def _entry(candidate: _Candidate) -> DigestEntry:
    winner, *beaten = candidate.group
    overrides = tuple(Override(scope=r.scope, text=r.text, author=r.origin.author) for r in beaten)
    return DigestEntry(record=winner, overrides=overrides, pinned=candidate.pinned)
