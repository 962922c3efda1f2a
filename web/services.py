"""What the web layer runs on: the database, the memory configuration and the repositories, built once
per application from the settings and closed with it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial

from store import Diagnostics, MemoryConfig
from store.admin import Administration, Stores
from store.consent import Consent
from store.embedding import Embedder
from store.expiry import Expiry
from store.importing import Imports
from store.persistence import (
    AuditTrail,
    ConversationRegistry,
    DashboardSessions,
    ForgottenStash,
    KnownPeople,
    MemoryControlStore,
    RunJournal,
    SqlMemoryProvider,
    open_engine,
    upgrade_engine,
)
from store.persistence.usage import UsageCounts
from store.personal import PersonalMemories
from store.runs import DIGEST_POSITION, MemoryRuns, offered
from store.usage import MemoryUsage
from web.metrics import MemoryMetrics
from web.plugins import load_embedder, load_gate, load_resolver
from web.settings import Settings

__all__ = ("PRUNE_EVERY", "Services", "open_services")

PRUNE_EVERY = timedelta(minutes=15)
"""How often a serving process removes what expired (`onfile prune` does it at once)."""


@dataclass(frozen=True, slots=True)
class Services:
    settings: Settings
    memory: MemoryConfig
    provider: SqlMemoryProvider
    sessions: DashboardSessions
    registry: ConversationRegistry
    journal: RunJournal
    runs: MemoryRuns
    admin: Administration
    consent: Consent
    expiry: Expiry
    imports: Imports
    """A person's pause, the notes waiting for their approval, who looked; organisations' approval setting."""
    audit: AuditTrail
    people: KnownPeople
    personal: PersonalMemories
    """The person's own acts: forgetting one or many, undoing that, correcting a text."""
    stash: ForgottenStash
    usage: MemoryUsage
    """When each memory went into the person's prompts, and how often lately."""
    metrics: MemoryMetrics
    close: Callable[[], Awaitable[None]]
    """Closes the database connections: call it once, when the application stops."""
    clock: Callable[[], datetime]
    """The time sessions are kept by: their expiry, their age and when their roles are next asked for."""


def _utc_now() -> datetime:
    return datetime.now(UTC)


async def open_services(
    settings: Settings, *, migrate: bool | None = None, clock: Callable[[], datetime] = _utc_now
) -> Services:
    """Connect to the database (migrating it first when it is the embedded SQLite default, or when
    `migrate` says so) and build the repositories over it. `clock` is for tests that move time."""
    engine = open_engine(settings.database_url, pool_size=settings.database_pool_size)
    try:
        if migrate if migrate is not None else settings.database_url.startswith("sqlite"):
            await upgrade_engine(engine)
        embedder = load_embedder(settings)
        warm = getattr(embedder, "load", None)
        if warm is not None:  # a model shipped in a package loads here, once, rather than on the first turn
            await asyncio.to_thread(warm)
    except BaseException:  # nothing is served: the connections opened so far are closed, not left to the collector
        await engine.dispose()
        raise
    provider = SqlMemoryProvider(engine, embedder=embedder)
    diagnostics = Diagnostics()
    metrics = MemoryMetrics()
    diagnostics.subscribe(metrics)
    memory = MemoryConfig(
        provider=provider,
        scopes=load_resolver(settings),
        max_memories=settings.max_memories,
        max_fact_chars=settings.max_fact_chars,
        diagnostics=diagnostics,
    )
    registry = ConversationRegistry(engine)
    journal = RunJournal(engine, offered=offered, offered_at=DIGEST_POSITION)
    audit = AuditTrail(engine)
    people = KnownPeople(engine)
    sessions = DashboardSessions(engine, clock=clock)
    controls = MemoryControlStore(engine, approval_by_default=settings.approval_required)
    gate = load_gate(settings)
    stash = ForgottenStash(engine, clock=clock)
    return Services(
        settings=settings,
        memory=memory,
        provider=provider,
        sessions=sessions,
        registry=registry,
        journal=journal,
        runs=MemoryRuns(memory, journal, registry, people, controls),
        admin=Administration(
            memory,
            provider,
            gate,
            audit,
            people,
            Stores(journal, registry, sessions, controls=controls, stash=stash),
            support_everywhere=settings.support_all_tenants,
        ),
        consent=Consent(memory, provider, controls, audit, gate),
        expiry=Expiry(provider, controls, journal, audit, gate),
        imports=Imports(memory, provider, audit),
        audit=audit,
        people=people,
        personal=PersonalMemories(
            memory,
            provider,
            stash,
            audit,
            journal=journal,
            waiting=controls,
            retention_hours=settings.journal_retention_hours,
            clock=clock,
        ),
        stash=stash,
        usage=MemoryUsage(journal, UsageCounts(engine)),
        metrics=metrics,
        close=partial(_close, engine.dispose, embedder),
        clock=clock,
    )


async def _close(dispose: Callable[[], Awaitable[None]], embedder: Embedder | None) -> None:
    await dispose()
    closing = getattr(embedder, "close", None)
    if closing is not None:  # an embedding service's connections
        await closing()
