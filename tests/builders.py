"""Builders for test values: say only what a test is about, default the rest."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from store import Actor, Author, DigestEntry, MemoryDigest, MemoryOrigin, MemoryRecord, Override, Shortlist

__all__ = (
    "SCOPES",
    "T0",
    "UNRELATED_FACTS",
    "ada",
    "digest",
    "entry",
    "make_record",
    "override",
    "reference_shortlist",
)

T0 = datetime(2026, 9, 1, 9, 12, 44, tzinfo=UTC)

UNRELATED_FACTS = (
    "prefers tea over coffee in the morning",
    "invoices go to the Munich office",
    "the fiscal year starts in October",
    "likes meetings before noon",
    "writes dates as day month year",
    "their manager is called Priya",
    "uses a screen reader",
    "vegetarian, no fish either",
    "answers in German when asked in German",
    "prefers short bullet points",
    "works from Lisbon on Fridays",
    "their laptop runs Linux",
    "allergic to peanuts",
    "plays the cello in an orchestra",
    "keeps receipts in a shared folder",
    "reviews pull requests on Mondays",
    "wants prices with VAT included",
    "the team stand-up is at nine",
    "signs emails with first name only",
    "birthday in late March",
    "dislikes phone calls",
    "uses dark mode everywhere",
    "budget approvals go through Tomas",
    "the office closes on public holidays",
    "their cat is named Miso",
    "prefers Celsius for temperatures",
    "flies economy on company trips",
    "needs captions on videos",
    "calendar is shared with an assistant",
    "speaks Portuguese at home",
)
"""Memories about anything but distance: none shares a word with "how far is it" or "how far away is
the depot", so a test of recall by meaning has something to find the distance memory among."""
_ids = itertools.count(1)


def ada(tenant: str | None = "berlin", roles: tuple[str, ...] = ()) -> Actor:
    return Actor(id="ada", tenant_ref=tenant, roles=roles)


def make_record(
    key: str = "fiscal-year",
    text: str = "they report on the calendar year",
    scope: str = "actor:ada",
    *,
    author: Author = "agent",
    pinned: bool = False,
    age_days: float = 0,
    id: str | None = None,
    thread_id: str | None = None,
    run_id: str | None = None,
) -> MemoryRecord:
    return MemoryRecord(
        id=id or f"mem_{next(_ids):05d}",
        key=key,
        text=text,
        scope=scope,
        origin=MemoryOrigin(author=author, thread_id=thread_id, run_id=run_id, actor_ref="ada"),
        updated_at=T0 - timedelta(days=age_days),
        pinned=pinned,
    )


def override(scope: str, text: str, author: Author = "human") -> Override:
    return Override(scope=scope, text=text, author=author)


def entry(record: MemoryRecord, *overrides: Override, pinned: bool | None = None) -> DigestEntry:
    return DigestEntry(record=record, overrides=overrides, pinned=record.pinned if pinned is None else pinned)


SCOPES = ("actor:ada", "tenant:berlin", "global")


def digest(
    *entries: DigestEntry,
    scopes: tuple[str, ...] = SCOPES,
    omitted: int = 0,
    pinned_omitted: int = 0,
    recalled: bool = False,
) -> MemoryDigest:
    return MemoryDigest(
        scopes=scopes, entries=entries, omitted=omitted, pinned_omitted=pinned_omitted, recalled=recalled
    )


def reference_shortlist(records: Sequence[MemoryRecord], scopes: Sequence[str], limit: int) -> Shortlist:
    """A shortlist as its definition states it, the slow plain way: each key's record at its narrowest
    scope; keys pinned by any record first, then narrowest, newest, then by key; the best `limit`
    keys' records, and the totals."""
    ranks = {scope: rank for rank, scope in reversed(list(enumerate(scopes)))}
    applicable = [r for r in records if r.scope in ranks]
    winners: dict[str, MemoryRecord] = {}
    for record in sorted(applicable, key=lambda r: ranks[r.scope]):
        winners.setdefault(record.key, record)
    pinned = {r.key for r in applicable if r.pinned}
    order = sorted(
        winners.values(), key=lambda w: (w.key not in pinned, ranks[w.scope], -w.updated_at.timestamp(), w.key)
    )
    kept = {w.key for w in order[:limit]}
    return Shortlist(records=tuple(r for r in applicable if r.key in kept), keys=len(winners), pinned_keys=len(pinned))
