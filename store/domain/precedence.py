"""Precedence and selection: from the records a provider returned to the entries one turn carries.

Precedence resolves a conflict — two records at one key — and scope decides it: the narrowest wins
and every beaten value rides along. Selection decides which keys appear at all under the ceiling:
pinned keys first, then relevance when a search ranked the candidates, otherwise the narrowest
scope and the newest within it (so the widest, then the stalest, are dropped first).

This runs on every turn over every applicable record, so it is written as few passes over plain
tuples: one pass groups the records by key, one builds each key's order as a tuple, and entries are
built only for the keys kept.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence

from msgspec import structs

from store.domain.scopes import normalise_scopes, scope_ranks
from store.domain.types import DigestEntry, MemoryDigest, MemoryRecord, Override, Shortlist

__all__ = ("DEFAULT_MAX_MEMORIES", "resolve_digest", "resolve_recalled", "resolve_shortlist")

DEFAULT_MAX_MEMORIES = 20

# A key before selection: (scope rank, newest first, key) — the order narrowest-then-newest sorts by,
# and keys are unique, so two candidates never compare equal and nothing past the key is compared.
_Candidate = tuple[int, float, str]


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
    winners, conflicts = _group_by_key(records, ranks)
    pinned_conflicts = _settle_conflicts(winners, conflicts, ranks)

    # In the winners' first-seen order, which is the relevance order when `ranked`.
    pinned: list[_Candidate] = []
    unpinned: list[_Candidate] = []
    for key, winner in winners.items():
        candidate = (ranks[winner.scope], -winner.updated_at.timestamp(), key)
        if winner.pinned or key in pinned_conflicts:
            pinned.append(candidate)
        else:
            unpinned.append(candidate)

    pinned.sort()
    ceiling = len(winners) if max_memories is None else max_memories
    kept_pinned = pinned[:ceiling]
    room = ceiling - len(kept_pinned)
    if ranked:
        kept_unpinned = unpinned[:room]
    elif room < len(unpinned):  # the budget usually keeps a few keys out of many: no full sort
        kept_unpinned = heapq.nsmallest(room, unpinned)
    else:
        kept_unpinned = sorted(unpinned)
    entries = [_entry(winners[key], conflicts.get(key), True) for _, _, key in kept_pinned]
    entries += [_entry(winners[key], conflicts.get(key), False) for _, _, key in kept_unpinned]
    return MemoryDigest(
        scopes=resolved_scopes,
        entries=tuple(entries),
        omitted=len(winners) - len(entries),
        pinned_omitted=len(pinned) - len(kept_pinned),
        recalled=ranked,
    )


def resolve_shortlist(shortlist: Shortlist, *, scopes: Sequence[str], max_memories: int) -> MemoryDigest:
    """The digest of a listed turn whose provider kept only the keys the ceiling can hold: exactly
    `resolve_digest` over every applicable record, its omissions counted from the shortlist's totals.

    A shortlist that cannot be one is refused (`ValueError`), never rendered: totals below what it
    holds, or fewer keys kept than the ceiling holds while more applied — a block short of entries it
    had room for would look whole to the model."""
    digest = resolve_digest(shortlist.records, scopes=scopes, max_memories=max_memories)
    kept = len(digest.entries)
    kept_pinned = sum(1 for entry in digest.entries if entry.pinned)
    held = kept + digest.omitted
    held_pinned = kept_pinned + digest.pinned_omitted
    if shortlist.keys < held or shortlist.pinned_keys < held_pinned or shortlist.pinned_keys > shortlist.keys:
        msg = (
            f"a shortlist of {held} keys ({held_pinned} pinned) cannot total {shortlist.keys} keys "
            f"({shortlist.pinned_keys} pinned)"
        )
        raise ValueError(msg)
    if kept < min(max_memories, shortlist.keys):
        msg = f"a shortlist kept {kept} keys of {shortlist.keys} under a ceiling of {max_memories}"
        raise ValueError(msg)
    return structs.replace(digest, omitted=shortlist.keys - kept, pinned_omitted=shortlist.pinned_keys - kept_pinned)


def resolve_recalled(
    records: Iterable[MemoryRecord], *, keys: int, pinned_keys: int, scopes: Sequence[str], max_memories: int
) -> MemoryDigest:
    """The digest of a turn a provider ranked for: `resolve_digest` over the records of the keys it
    chose, in their rank order, with its omissions counted from how many keys (`keys`) and pinned keys
    (`pinned_keys`) applied in all — so a turn that drew twenty of two thousand says so, instead of
    "twenty of the twenty it was handed". Totals below what the records hold count as what they hold."""
    digest = resolve_digest(records, scopes=scopes, max_memories=max_memories, ranked=True)
    kept = len(digest.entries)
    kept_pinned = sum(1 for entry in digest.entries if entry.pinned)
    return structs.replace(
        digest,
        omitted=max(keys - kept, digest.omitted),
        pinned_omitted=max(pinned_keys - kept_pinned, digest.pinned_omitted),
    )


def _group_by_key(
    records: Iterable[MemoryRecord], ranks: dict[str, int]
) -> tuple[dict[str, MemoryRecord], dict[str, list[MemoryRecord]]]:
    """Each applicable key's first record, in first-seen order, and every record of the keys held
    more than once (most keys are held once, and pay for no list)."""
    winners: dict[str, MemoryRecord] = {}
    conflicts: dict[str, list[MemoryRecord]] = {}
    first = winners.setdefault
    for record in records:
        if record.scope in ranks:
            key = record.key
            held = first(key, record)
            if held is not record:
                group = conflicts.get(key)
                if group is None:
                    conflicts[key] = [held, record]
                else:
                    group.append(record)
    return winners, conflicts


def _settle_conflicts(
    winners: dict[str, MemoryRecord], conflicts: dict[str, list[MemoryRecord]], ranks: dict[str, int]
) -> set[str]:
    """Order each conflict's records winner first (narrowest, newest, lowest id), make the winner
    the key's, and return the keys pinned by any of their records."""

    def winner_order(record: MemoryRecord) -> tuple[int, float, str]:
        return (ranks[record.scope], -record.updated_at.timestamp(), record.id)

    pinned: set[str] = set()
    for key, group in conflicts.items():
        group.sort(key=winner_order)
        winners[key] = group[0]  # replacing a value keeps the key's first-seen place
        if any(r.pinned for r in group):
            pinned.add(key)
    return pinned


def _entry(winner: MemoryRecord, group: list[MemoryRecord] | None, pinned: bool) -> DigestEntry:
    if group is None:
        return DigestEntry(record=winner, pinned=pinned)
    overrides = tuple(Override(scope=r.scope, text=r.text, author=r.origin.author) for r in group[1:])
    return DigestEntry(record=winner, overrides=overrides, pinned=pinned)
