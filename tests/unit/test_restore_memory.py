"""Putting back a forgotten memory (the dashboard's Undo): at the person's own scope, with its origin,
never over a newer value, and only where memory can be written at all."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from store import (
    Actor,
    InMemoryMemoryProvider,
    MemoryConfig,
    MemoryOrigin,
    MemoryRecord,
    ScopeContext,
    forget_memory,
    memories_on_file,
    restore_memory,
)
from tests.builders import make_record

ADA = Actor(id="ada", tenant_ref="berlin")
CTX = ScopeContext(actor=ADA)
NOW = datetime(2026, 12, 1, tzinfo=UTC)
ORIGIN = MemoryOrigin(author="agent", thread_id="thr_1", run_id="run_1", actor_ref="ada")


def config(*records: MemoryRecord) -> MemoryConfig:
    return MemoryConfig(provider=InMemoryMemoryProvider(records, clock=lambda: NOW))


async def test_a_forgotten_memory_comes_back_at_the_own_scope_with_its_origin() -> None:
    memory = config(make_record("k", "they cycle to work", id="m1"))
    await forget_memory(memory, CTX, "m1")

    outcome = await restore_memory(memory, CTX, key="k", text="they cycle to work", origin=ORIGIN)

    assert outcome.status == "restored"
    (entry,) = (await memories_on_file(memory, CTX)).entries
    assert (entry.key, entry.text, entry.scope, entry.record.origin) == ("k", "they cycle to work", "actor:ada", ORIGIN)


async def test_a_key_written_again_since_keeps_the_newer_value() -> None:
    memory = config(make_record("k", "they take the train now"))

    outcome = await restore_memory(memory, CTX, key="k", text="they cycle to work", origin=ORIGIN)

    assert outcome.status == "superseded"
    assert "newer value was kept" in outcome.reason
    (entry,) = (await memories_on_file(memory, CTX)).entries
    assert entry.text == "they take the train now"


class ReadOnly:
    """A provider that can list and forget, but not write."""

    async def list(self, *, scopes: Sequence[str], ctx: ScopeContext) -> Sequence[MemoryRecord]:
        return []

    async def forget(self, *, id: str, ctx: ScopeContext) -> bool:
        return False


async def test_nothing_is_put_back_where_memory_is_read_only() -> None:
    outcome = await restore_memory(
        MemoryConfig(provider=ReadOnly()),
        CTX,
        key="k",
        text="they cycle to work",
        origin=ORIGIN,
    )

    assert (outcome.status, outcome.reason) == ("refused", "Memory is read-only here.")
