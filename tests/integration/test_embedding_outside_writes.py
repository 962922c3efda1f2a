"""Embedding a memory never holds the writer: a journaled `remember`, an administrator's publish and
edit each embed before their write transaction opens, so a slow embedding service delays only its own
call, never another writer."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sqlalchemy.ext.asyncio import AsyncEngine

from store.admin import Administration
from store.domain.administration import RoleGate
from store.domain.types import Actor
from store.memory import MemoryConfig
from store.persistence import AuditTrail, ConversationRegistry, KnownPeople, RunJournal, SqlMemoryProvider
from store.persistence.engine import in_joined_writes
from store.runs import MemoryRuns
from tests.integration.builders import ADA


class Watching:
    """An embedder that notes, for every call, whether a write transaction on the engine was open."""

    name = "watching"

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.inside: list[bool] = []

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.inside.append(in_joined_writes(self.engine))
        return np.ones((len(texts), 4), dtype=np.float32)


LENA = Actor("lena", "berlin", ("onfile-admin",))


async def test_a_journaled_remember_and_an_administrators_writes_embed_outside_the_transaction(
    engine: AsyncEngine,
) -> None:
    watching = Watching(engine)
    provider = SqlMemoryProvider(engine, embedder=watching)
    config = MemoryConfig(provider=provider)
    runs = MemoryRuns(config, RunJournal(engine), ConversationRegistry(engine))
    admin = Administration(config, provider, RoleGate(), AuditTrail(engine), KnownPeople(engine))

    await runs.begin("run_1", actor=ADA, thread_id="thr_1", text="")
    remembered = await runs.remember("run_1", call_id="call_1", key="units", fact="  kilometres  ")
    published = await admin.publish(LENA, scope="tenant:berlin", key="tone", text="formal")
    assert published.record is not None
    edited = await admin.edit(LENA, published.record.id, text="formal, in full sentences")

    assert remembered.ok
    assert (published.status, edited.status) == ("done", "done")
    assert watching.inside == [False, False, False]
