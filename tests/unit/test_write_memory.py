"""`remember` carried out: own scope only, against the run's recorded scopes, mistakes as results."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from store import (
    Actor,
    DiagnosticEvent,
    Diagnostics,
    InMemoryMemoryProvider,
    MemoryConfig,
    MemoryDigest,
    MemoryOrigin,
    MemoryRecord,
    MemoryWritten,
    ScopeContext,
    WriteRefusedError,
    offer_memories,
    write_memory,
)
from tests.builders import make_record

ADA = Actor(id="ada", tenant_ref="berlin")
CTX = ScopeContext(actor=ADA, thread_id="thr_1")
NOW = datetime(2026, 12, 1, tzinfo=UTC)


def config(provider: object | None = None, hub: Diagnostics | None = None) -> MemoryConfig:
    return MemoryConfig(
        provider=provider or InMemoryMemoryProvider(clock=lambda: NOW),  # type: ignore[arg-type]
        diagnostics=hub or Diagnostics(),
    )


async def test_a_fact_is_stored_at_the_actors_own_scope_with_an_agent_origin() -> None:
    cfg = config()
    digest = await offer_memories(cfg, CTX)

    outcome = await write_memory(cfg, digest, key=" fiscal-year ", fact=" calendar year ", ctx=CTX, run_id="run_7")

    assert outcome.ok
    assert outcome.record is not None
    assert (outcome.record.scope, outcome.record.key, outcome.record.text) == (
        "actor:ada",
        "fiscal-year",
        "calendar year",
    )
    assert outcome.record.origin == MemoryOrigin(author="agent", thread_id="thr_1", run_id="run_7", actor_ref="ada")
    assert outcome.record.updated_at == NOW


@pytest.mark.parametrize(
    ("key", "fact", "error"),
    [
        ("", "x", "The key is empty"),
        ("k", "f" * 241, "the limit is 240"),
        ("k", "one\ntwo", "line break"),
    ],
)
async def test_a_models_mistake_is_an_outcome_and_nothing_is_written(key: str, fact: str, error: str) -> None:
    provider = InMemoryMemoryProvider()
    cfg = config(provider)

    outcome = await write_memory(cfg, await offer_memories(cfg, CTX), key=key, fact=fact, ctx=CTX, run_id="r")

    assert not outcome.ok
    assert outcome.error is not None
    assert error in outcome.error
    assert await provider.list(scopes=["actor:ada"], ctx=CTX) == ()


async def test_the_write_is_authorised_against_the_recorded_scopes_not_a_fresh_resolution() -> None:
    # The run was resolved when ada's own scope did not apply (say, memory was off for her then).
    recorded = MemoryDigest(scopes=("tenant:berlin", "global"))

    outcome = await write_memory(config(), recorded, key="k", fact="v", ctx=CTX, run_id="r")

    assert not outcome.ok
    assert outcome.error is not None
    assert "actor:ada does not apply to ada" in outcome.error


async def test_a_read_only_provider_refuses_with_a_readable_outcome() -> None:
    class ReadOnly:
        async def list(self, *, scopes: Sequence[str], ctx: ScopeContext) -> Sequence[MemoryRecord]:
            return ()

        async def forget(self, *, id: str, ctx: ScopeContext) -> bool:
            return False

    cfg = config(ReadOnly())

    outcome = await write_memory(cfg, MemoryDigest(scopes=("actor:ada",)), key="k", fact="v", ctx=CTX, run_id="r")

    assert outcome == type(outcome)(ok=False, error="Memory is read-only here: nothing can be saved.")


async def test_a_providers_own_refusal_becomes_an_outcome() -> None:
    class Refusing(InMemoryMemoryProvider):
        async def write(
            self, *, key: str, text: str, scope: str, origin: MemoryOrigin, ctx: ScopeContext
        ) -> MemoryRecord:
            raise WriteRefusedError("the store is frozen for an audit")

    cfg = config(Refusing())

    outcome = await write_memory(cfg, MemoryDigest(scopes=("actor:ada",)), key="k", fact="v", ctx=CTX, run_id="r")

    assert (outcome.ok, outcome.error) == (False, "the store is frozen for an audit")


async def test_a_rewrite_keeps_the_id_and_the_pin_so_the_delete_handle_stays_valid() -> None:
    provider = InMemoryMemoryProvider([make_record("tone", "long", "actor:ada", id="mem_tone", pinned=True)])
    cfg = config(provider)

    outcome = await write_memory(cfg, await offer_memories(cfg, CTX), key="tone", fact="short", ctx=CTX, run_id="r")

    assert outcome.record is not None
    assert (outcome.record.id, outcome.record.pinned, outcome.record.text) == ("mem_tone", True, "short")


class Counting(InMemoryMemoryProvider):
    """Counts the reads a write makes."""

    lists = 0

    async def list(self, *, scopes: Sequence[str], ctx: ScopeContext) -> Sequence[MemoryRecord]:
        self.lists += 1
        return await super().list(scopes=scopes, ctx=ctx)


@pytest.mark.parametrize(
    ("key", "reads"),
    [
        pytest.param("units", 0, id="latin-key-cannot-have-a-twin"),
        pytest.param("Größe 単位", 0, id="accents-and-ideographs-neither"),
        pytest.param("יחידות", 1, id="right-to-left-key-is-compared"),
        pytest.param("😀-mood", 1, id="emoji-key-is-compared"),
    ],
)
async def test_only_a_key_that_could_read_like_another_costs_a_read_of_its_scope(key: str, reads: int) -> None:
    provider = Counting()
    digest = MemoryDigest(scopes=("actor:ada",))

    outcome = await write_memory(config(provider), digest, key=key, fact="v", ctx=CTX, run_id="r")

    assert outcome.ok
    assert provider.lists == reads


async def test_a_key_differing_from_one_held_only_in_invisible_characters_is_an_outcome() -> None:
    provider = InMemoryMemoryProvider([make_record("יחידות", "kilometres", "actor:ada", id="mem_units")])
    cfg = config(provider)

    outcome = await write_memory(cfg, await offer_memories(cfg, CTX), key="יחידות\u200f", fact="m", ctx=CTX, run_id="r")

    assert not outcome.ok
    assert outcome.error is not None
    assert outcome.error.startswith("The key differs from “יחידות”, already on file at actor:ada, only in invisible")
    assert [r.text for r in await provider.list(scopes=["actor:ada"], ctx=CTX)] == ["kilometres"]


async def test_a_write_reports_its_scope_and_length_but_never_the_key_or_the_fact() -> None:
    hub = Diagnostics()
    events: list[DiagnosticEvent] = []
    hub.subscribe(events.append)
    cfg = config(hub=hub)

    await write_memory(cfg, await offer_memories(cfg, CTX), key="salary", fact="earns 90k", ctx=CTX, run_id="r9")

    assert events[-1] == MemoryWritten(run_id="r9", scope="actor:ada", chars=9)
    assert "salary" not in repr(events)
    assert "90k" not in repr(events)


def test_a_failing_listener_is_logged_and_never_breaks_the_turn(caplog: pytest.LogCaptureFixture) -> None:
    hub = Diagnostics()
    seen: list[DiagnosticEvent] = []

    def broken(event: DiagnosticEvent) -> None:
        raise RuntimeError("metrics backend down")

    hub.subscribe(broken)
    unsubscribe = hub.subscribe(seen.append)
    event = MemoryWritten(run_id=None, scope="actor:ada", chars=1)

    with caplog.at_level(logging.ERROR, logger="store.diagnostics"):
        hub.publish(event)
    unsubscribe()
    unsubscribe()
    hub.publish(event)

    assert seen == [event]
    assert "memory.written" in caplog.text
