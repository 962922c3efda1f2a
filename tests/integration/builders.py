"""Builders for the integration tests: people, records, and seeding any provider the same way."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta

from store.domain.scopes import GLOBAL_SCOPE, own_scope
from store.domain.types import Actor, Author, MemoryOrigin, MemoryRecord, ScopeContext
from store.in_memory import InMemoryMemoryProvider
from store.persistence.provider import SqlMemoryProvider

Provider = InMemoryMemoryProvider | SqlMemoryProvider

ADA = Actor(id="ada", tenant_ref="berlin")
BEA = Actor(id="bea", tenant_ref="hamburg")
CAL = Actor(id="cal", tenant_ref="berlin")
BASE_TIME = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
ADMIN = MemoryOrigin(author="human", actor_ref="lena")

_ids = itertools.count(1)


def ctx(actor: Actor = ADA) -> ScopeContext:
    return ScopeContext(actor=actor, thread_id="thr_1")


def scopes_of(actor: Actor) -> tuple[str, ...]:
    """What the default resolver answers: own scope, tenant, global."""
    return (own_scope(actor), f"tenant:{actor.tenant_ref}", GLOBAL_SCOPE)


def agent_origin(actor: Actor = ADA) -> MemoryOrigin:
    return MemoryOrigin(author="agent", thread_id="thr_1", run_id="run_1", actor_ref=actor.id)


def make_record(
    key: str,
    text: str,
    scope: str,
    *,
    pinned: bool = False,
    days_ago: float = 10,
    author: Author = "human",
    id: str | None = None,
) -> MemoryRecord:
    origin = ADMIN if author == "human" else MemoryOrigin(author="agent", thread_id="thr_0", run_id="run_0")
    return MemoryRecord(
        id=id or f"mem_seed_{next(_ids):05d}",
        key=key,
        text=text,
        scope=scope,
        origin=origin,
        updated_at=BASE_TIME - timedelta(days=days_ago),
        pinned=pinned,
    )


async def seed(provider: Provider, records: Iterable[MemoryRecord]) -> None:
    """Store `records` as they are, in whichever provider."""
    if isinstance(provider, InMemoryMemoryProvider):
        for record in records:
            provider.add(record)
    else:
        await provider.add(records)


async def created_at(provider: Provider, id: str) -> datetime | None:
    if isinstance(provider, InMemoryMemoryProvider):
        return provider.created_at(id)
    return await provider.created_at(id)


def scope_keys(records: Iterable[MemoryRecord]) -> set[tuple[str, str]]:
    return {(r.scope, r.key) for r in records}


def keys_in_order(records: Sequence[MemoryRecord]) -> list[str]:
    """Each key once, where its first record is: the rank the digest reads."""
    return list(dict.fromkeys(r.key for r in records))
