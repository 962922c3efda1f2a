"""Builders for test values: say only what a test is about, default the rest."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

from store import Actor, Author, DigestEntry, MemoryDigest, MemoryOrigin, MemoryRecord, Override

__all__ = ("SCOPES", "T0", "ada", "digest", "entry", "make_record", "override")

T0 = datetime(2026, 9, 1, 9, 12, 44, tzinfo=UTC)
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
