"""The rules written plainly, without the product's shortcuts, as the oracle the fast ones must match
exactly (`test_fast_rules.py`); what reads as the block's tags is the product's own
(`neutralise_tags`). Not used by the product."""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from store.domain.block import (
    BLOCK_CLOSE,
    BLOCK_OPEN,
    CONCLUDED_HEADING,
    PARTIAL_NOTICE,
    PREAMBLE,
    REMEMBER_INVITATION,
    STATED_HEADING,
)
from store.domain.lookalikes import neutralise_tags
from store.domain.precedence import DEFAULT_MAX_MEMORIES
from store.domain.scopes import normalise_scopes, scope_ranks
from store.domain.types import DigestEntry, MemoryDigest, MemoryRecord, Override


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


_OVERRIDE_INDENT = "    ↳ "
_WHITESPACE_RUN = re.compile(r" {2,}")
# Unicode's control characters (Cc), line and paragraph separators (Zl, Zp) and lone surrogates (Cs).
_LINE_BREAKING = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
# Anything neutralise could change; most stored text has none of it and is returned as it is.
_SUSPECT = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff<\ufe64\uff1c]|  |^\\s|\\s$")


def neutralise(text: str) -> str:
    """One line of plain text: control characters and line or paragraph separators become spaces
    (runs of spaces fold to one), and what reads as a `<memory>` or `</memory>` tag loses its opening
    bracket to `‹`."""
    if not _SUSPECT.search(text):
        return text
    flat = _WHITESPACE_RUN.sub(" ", _LINE_BREAKING.sub(" ", text)).strip()
    return neutralise_tags(flat)


def build_memory_block(digest: MemoryDigest, *, writable: bool) -> str:
    """Render a digest. No entries: no block at all (the empty string). Lines joined by newlines,
    no trailing newline. The partial-selection notice appears whenever the ceiling bit or a search
    selected; the invitation to `remember` only when the provider can write."""
    if not digest.entries:
        return ""
    ordered = in_render_order(digest)
    stated = [e for e in ordered if e.author == "human"]
    concluded = [e for e in ordered if e.author != "human"]

    lines = [BLOCK_OPEN, PREAMBLE]
    if digest.is_partial:
        lines.append(PARTIAL_NOTICE)
    if writable:
        lines.append(REMEMBER_INVITATION)
    for heading, section in ((STATED_HEADING, stated), (CONCLUDED_HEADING, concluded)):
        if section:
            lines.append(heading)
            for entry in section:
                lines.extend(_entry_lines(entry))
    lines.append(BLOCK_CLOSE)
    return "\n".join(lines)


def in_render_order(digest: MemoryDigest) -> list[DigestEntry]:
    """Pinned first, then scope order (narrowest first), then key: the order people and the model read."""
    ranks = scope_ranks(digest.scopes)

    def order(entry: DigestEntry) -> tuple[bool, int, str]:
        return (not entry.pinned, ranks.get(entry.scope, len(ranks)), entry.key)

    return sorted(digest.entries, key=order)


def _entry_lines(entry: DigestEntry) -> list[str]:
    head = f"- [{neutralise(entry.scope)}] {neutralise(entry.key)}: {neutralise(entry.text)}"
    return [head, *(_override_line(o) for o in entry.overrides if o.text != entry.text)]


def _override_line(override: Override) -> str:
    says = "a person stated" if override.author == "human" else "instead has"
    return f"{_OVERRIDE_INDENT}[{neutralise(override.scope)}] {says}: {neutralise(override.text)}"
