"""A person's next turn, on both databases, when their memories have not changed since the last one:
it is given the last turn's very digest and block without running the rules again — and after any
change to what applies (a new note, a rewrite, a forget, a pin, an organisation fact, an expiry) it
is given exactly what a turn that remembers nothing is given."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from store import MemoryConfig, memory_for_turn
from store import memory as memory_module
from store.domain.precedence import resolve_shortlist
from store.persistence import shortlist as shortlist_module
from store.persistence.provider import SqlMemoryProvider
from tests.integration.builders import ADA, BEA, agent_origin, ctx, make_record, scopes_of, seed

RECORDS = [
    make_record("units", "kilometres", "global", days_ago=3),
    make_record("units", "miles", "actor:ada", author="agent", days_ago=1),
    make_record("tone", "short answers", "actor:ada", author="agent", days_ago=2),
    make_record("manifest", "never without a printed manifest", "tenant:berlin", days_ago=5),
]

ADA_SCOPES = scopes_of(ADA)

Change = Callable[[SqlMemoryProvider], Awaitable[object]]


async def _note(provider: SqlMemoryProvider) -> object:
    return await provider.write(key="lunch", text="eats at noon", scope="actor:ada", origin=agent_origin(), ctx=ctx())


async def _rewrite(provider: SqlMemoryProvider) -> object:
    return await provider.write(key="tone", text="long answers", scope="actor:ada", origin=agent_origin(), ctx=ctx())


async def _forget(provider: SqlMemoryProvider) -> object:
    return await provider.forget(id=RECORDS[1].id, ctx=ctx())


async def _pin(provider: SqlMemoryProvider) -> object:
    return await provider.pin(RECORDS[2].id, True)


async def _organisation_fact(provider: SqlMemoryProvider) -> object:
    await seed(provider, [make_record("fiscal-year", "starts in October", "tenant:berlin", days_ago=0)])
    return None


async def _expiry(provider: SqlMemoryProvider) -> object:
    """The override's time runs out: the database's clock drops it from every prompt, with no write by OnFile."""
    async with provider._engine.begin() as connection:
        expired = text("UPDATE agent_memory SET expires_at = :at WHERE id = :id")
        return await connection.execute(expired, {"at": datetime.now(UTC) - timedelta(minutes=1), "id": RECORDS[1].id})


CHANGES: dict[str, Change] = {
    "a new note": _note,
    "a rewritten note": _rewrite,
    "a forgotten override": _forget,
    "a pin": _pin,
    "an organisation fact": _organisation_fact,
    "an expiry": _expiry,
}


@pytest.fixture
def rules_run(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times a listed turn's rules ran."""
    ran: list[int] = []

    def counted(*args: object, **kwargs: object) -> object:
        ran.append(1)
        return resolve_shortlist(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(memory_module, "resolve_shortlist", counted)
    return ran


@pytest.fixture
async def stored(engine: AsyncEngine) -> SqlMemoryProvider:
    """A provider over `RECORDS`: Ada's three keys, one overridden, one her organisation's."""
    provider = SqlMemoryProvider(engine)
    await seed(provider, RECORDS)
    return provider


@pytest.mark.parametrize(
    ("recent_turns", "rules_ran", "same_objects"),
    [(128, 1, True), (0, 2, False)],
    ids=["remembering the last turn", "remembering none"],
)
async def test_two_turns_in_a_row_with_nothing_changed_are_given_the_same_block(
    stored: SqlMemoryProvider, rules_run: list[int], recent_turns: int, rules_ran: int, same_objects: bool
) -> None:
    config = MemoryConfig(provider=stored, max_memories=2, recent_turns=recent_turns)

    first = await memory_for_turn(config, ctx(), run_id=None)
    again = await memory_for_turn(config, ctx(), run_id=None)

    assert len(rules_run) == rules_ran
    assert again.block == first.block
    assert (again.digest is first.digest, again.block is first.block) == (same_objects, same_objects)
    assert first.digest.omitted == 1  # a real selection: two of three keys


@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
async def test_after_any_change_the_next_turn_is_what_a_turn_remembering_nothing_is_given(
    stored: SqlMemoryProvider, change: Change
) -> None:
    remembering = MemoryConfig(provider=stored, max_memories=3)
    forgetful = MemoryConfig(provider=stored, max_memories=3, recent_turns=0)
    before = await memory_for_turn(remembering, ctx(), run_id=None)

    await change(stored)
    after = await memory_for_turn(remembering, ctx(), run_id=None)

    fresh = await memory_for_turn(forgetful, ctx(), run_id=None)
    assert after.block == fresh.block
    assert after.digest == fresh.digest
    assert after.digest != before.digest


async def test_each_person_is_given_their_own_turn(engine: AsyncEngine, rules_run: list[int]) -> None:
    provider = SqlMemoryProvider(engine)
    await seed(provider, [*RECORDS, make_record("tone", "bea's own tone", "actor:bea")])
    config = MemoryConfig(provider=provider)

    ada = await memory_for_turn(config, ctx(ADA), run_id=None)
    bea = await memory_for_turn(config, ctx(BEA), run_id=None)
    ada_again = await memory_for_turn(config, ctx(ADA), run_id=None)

    assert "bea's own tone" in bea.block
    assert "bea's own tone" not in ada.block
    assert ada_again.block is ada.block
    assert len(rules_run) == 2


@pytest.mark.parametrize("whole_list_at_most", [200, 0], ids=["read whole", "chosen by the database"])
async def test_a_provider_gives_the_last_shortlist_for_the_same_rows_only(
    engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch, whole_list_at_most: int
) -> None:
    monkeypatch.setattr(shortlist_module, "WHOLE_LIST_AT_MOST", whole_list_at_most)
    provider = SqlMemoryProvider(engine)
    forgetful = SqlMemoryProvider(engine, recent_reads=0)
    await seed(provider, RECORDS)

    first = await provider.shortlist(scopes=ADA_SCOPES, limit=2, ctx=ctx())
    again = await provider.shortlist(scopes=ADA_SCOPES, limit=2, ctx=ctx())
    other_limit = await provider.shortlist(scopes=ADA_SCOPES, limit=3, ctx=ctx())
    await _rewrite(provider)
    changed = await provider.shortlist(scopes=ADA_SCOPES, limit=2, ctx=ctx())

    assert again is first
    assert other_limit is not first
    assert changed != first
    assert changed == await forgetful.shortlist(scopes=ADA_SCOPES, limit=2, ctx=ctx())
    assert await forgetful.shortlist(scopes=ADA_SCOPES, limit=2, ctx=ctx()) is not changed


def test_a_provider_cannot_keep_a_negative_number_of_reads(engine: AsyncEngine) -> None:
    with pytest.raises(ValueError, match="recent_reads cannot be negative"):
        SqlMemoryProvider(engine, recent_reads=-1)
