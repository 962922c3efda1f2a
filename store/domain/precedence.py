"""Precedence and selection: from the records a provider returned to the entries one turn carries.

Precedence resolves a conflict — two records at one key — and scope decides it: the narrowest wins
and every beaten value rides along. Selection decides which keys appear at all under the ceiling:
pinned keys first, then relevance when a search ranked the candidates, otherwise the narrowest
scope and the newest within it (so the widest, then the stalest, are dropped first).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from store.domain.scopes import normalise_scopes, scope_ranks
from store.domain.types import DigestEntry, MemoryDigest, MemoryRecord, Override

__all__ = ("DEFAULT_MAX_MEMORIES", "resolve_digest")

DEFAULT_MAX_MEMORIES = 20


@dataclass(frozen=True, slots=True)
class _Candidate:
    entry: DigestEntry
    scope_rank: int
    first_seen: int


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
        by_key.setdefault(record.key, []).append(record)
        first_seen.setdefault(record.key, position)

    candidates = [_candidate(group, ranks, first_seen[key]) for key, group in by_key.items()]
    pinned = sorted((c for c in candidates if c.entry.pinned), key=_narrowest_then_newest)
    unpinned = [c for c in candidates if not c.entry.pinned]
    unpinned.sort(key=_by_relevance if ranked else _narrowest_then_newest)

    ceiling = len(candidates) if max_memories is None else max_memories
    kept_pinned = pinned[:ceiling]
    kept_unpinned = unpinned[: ceiling - len(kept_pinned)]
    kept = [c.entry for c in (*kept_pinned, *kept_unpinned)]
    return MemoryDigest(
        scopes=resolved_scopes,
        entries=tuple(kept),
        omitted=len(candidates) - len(kept),
        pinned_omitted=len(pinned) - len(kept_pinned),
        recalled=ranked,
    )


def _candidate(group: list[MemoryRecord], ranks: dict[str, int], first_seen: int) -> _Candidate:
    ordered = sorted(group, key=lambda r: (ranks[r.scope], -r.updated_at.timestamp(), r.id))
    winner, *beaten = ordered
    overrides = tuple(Override(scope=r.scope, text=r.text, author=r.origin.author) for r in beaten)
    entry = DigestEntry(record=winner, overrides=overrides, pinned=any(r.pinned for r in group))
    return _Candidate(entry=entry, scope_rank=ranks[winner.scope], first_seen=first_seen)


def _narrowest_then_newest(candidate: _Candidate) -> tuple[int, float, str]:
    record = candidate.entry.record
    return (candidate.scope_rank, -record.updated_at.timestamp(), record.key)


def _by_relevance(candidate: _Candidate) -> int:
    return candidate.first_seen
