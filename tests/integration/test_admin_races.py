"""The elevated area's acts racing one another on one fact, on SQLite and PostgreSQL: an edit or a pin
never brings a deleted fact back or reports what did not happen, and the trail's `before` is always
the value the act replaced."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from store import Actor, MemoryConfig, MemoryRecord
from store.admin import NOT_ADMINISTERED, Administration
from store.domain.administration import RoleGate
from store.persistence import AuditTrail, KnownPeople, SqlMemoryProvider

LENA = Actor("lena", "berlin", ("onfile-admin",))
TRIES = 12


@pytest.fixture
def admin(engine: AsyncEngine) -> Administration:
    provider = SqlMemoryProvider(engine)
    return Administration(
        MemoryConfig(provider=provider), provider, RoleGate(), AuditTrail(engine), KnownPeople(engine)
    )


async def published(admin: Administration, key: str, text: str = "formal") -> str:
    outcome = await admin.publish(LENA, scope="tenant:berlin", key=key, text=text)
    assert outcome.record is not None
    return outcome.record.id


async def trail_of(admin: Administration, key: str) -> list[tuple[str, str | None, str | None]]:
    """The key's entries, oldest first: (action, text before, text after)."""
    entries = [e for e in await admin.audit_entries(LENA) if e.key == key]
    return [(e.action, (e.before or {}).get("text"), (e.after or {}).get("text")) for e in reversed(entries)]


async def test_an_edit_racing_a_delete_never_brings_the_fact_back(admin: Administration, engine: AsyncEngine) -> None:
    provider = SqlMemoryProvider(engine)
    for i in range(TRIES):
        key = f"tone-{i}"
        memory_id = await published(admin, key)

        deleted, edited = await asyncio.gather(
            admin.retire(LENA, memory_id), admin.edit(LENA, memory_id, text="edited")
        )

        assert deleted.ok
        assert await provider.at_scope_key("tenant:berlin", key) is None, "the deleted fact is back"
        if edited.ok:  # the edit came first, and the delete removed what it wrote
            assert edited.record is not None
            assert edited.record.id == memory_id
            assert await trail_of(admin, key) == [
                ("write", None, "formal"),
                ("edit", "formal", "edited"),
                ("delete", "edited", None),
            ]
        else:
            assert (edited.status, edited.reason) == ("not_found", NOT_ADMINISTERED)
            assert await trail_of(admin, key) == [("write", None, "formal"), ("delete", "formal", None)]


async def test_a_pin_racing_a_delete_is_done_before_it_or_not_at_all(admin: Administration) -> None:
    for i in range(TRIES):
        key = f"tone-{i}"
        memory_id = await published(admin, key)

        deleted, pinned = await asyncio.gather(admin.retire(LENA, memory_id), admin.pin(LENA, memory_id, pinned=True))

        assert deleted.ok
        actions = [action for action, _, _ in await trail_of(admin, key)]
        if pinned.ok:
            assert pinned.record is not None
            assert pinned.record.pinned
            assert actions == ["write", "pin", "delete"]
        else:
            assert (pinned.status, pinned.reason) == ("not_found", NOT_ADMINISTERED)
            assert actions == ["write", "delete"]


async def test_two_edits_at_once_each_record_the_value_they_replaced(admin: Administration) -> None:
    for i in range(TRIES):
        key = f"tone-{i}"
        memory_id = await published(admin, key)

        first, second = await asyncio.gather(
            admin.edit(LENA, memory_id, text="friendly"), admin.edit(LENA, memory_id, text="terse")
        )

        assert first.ok
        assert second.ok
        (_, *edits) = await trail_of(admin, key)
        assert edits[0][1] == "formal"
        assert edits[1][1] == edits[0][2], f"the trail lost a replaced value: {edits}"


async def test_two_publishes_of_a_new_key_at_once_each_record_the_value_they_replaced(admin: Administration) -> None:
    """Nothing is there to lock when neither has written yet: the key itself is locked first."""
    for i in range(TRIES):
        key = f"new-{i}"

        first, second = await asyncio.gather(
            admin.publish(LENA, scope="tenant:berlin", key=key, text="friendly"),
            admin.publish(LENA, scope="tenant:berlin", key=key, text="terse"),
        )

        assert first.record is not None
        assert second.record is not None
        writes = await trail_of(admin, key)
        assert [action for action, _, _ in writes] == ["write", "write"]
        assert writes[0][1] is None
        assert writes[1][1] == writes[0][2], f"the trail lost a replaced value: {writes}"


async def test_two_edits_of_the_same_version_read_one_goes_through_and_the_other_is_told_it_changed(
    admin: Administration, engine: AsyncEngine
) -> None:
    provider = SqlMemoryProvider(engine)
    for i in range(TRIES):
        key = f"version-{i}"
        memory_id = await published(admin, key)
        read = await provider.get(memory_id)
        assert read is not None

        def as_read(record: MemoryRecord, read: MemoryRecord = read) -> bool:
            return (record.text, record.updated_at, record.pinned) == (read.text, read.updated_at, read.pinned)

        first, second = await asyncio.gather(
            admin.edit(LENA, memory_id, text="first", still=as_read),
            admin.edit(LENA, memory_id, text="second", still=as_read),
        )

        assert sorted([first.status, second.status]) == ["changed", "done"]
        won, lost = (first, second) if first.ok else (second, first)
        assert won.record is not None
        assert lost.record is not None
        assert lost.record.text == won.record.text, "the loser is shown the version that won"
        stored = await provider.get(memory_id)
        assert stored is not None
        assert stored.text == won.record.text
        assert await trail_of(admin, key) == [("write", None, "formal"), ("edit", "formal", won.record.text)]


@pytest.mark.parametrize("act", ["edit", "pin", "delete"])
async def test_a_fact_that_changes_between_the_check_and_the_act_is_left_as_it_is(
    admin: Administration, engine: AsyncEngine, act: str
) -> None:
    """The version is checked again under the row's lock, in the act's own transaction: a change landing
    after the first check (here: the check answers yes once, then no) rolls the act back, unaudited."""
    provider = SqlMemoryProvider(engine)
    memory_id = await published(admin, "tone")
    answers = iter([True, False])

    def still(_: MemoryRecord) -> bool:
        return next(answers)

    if act == "edit":
        outcome = await admin.edit(LENA, memory_id, text="edited", still=still)
    elif act == "pin":
        outcome = await admin.pin(LENA, memory_id, pinned=True, still=still)
    else:
        outcome = await admin.retire(LENA, memory_id, still=still)

    assert outcome.status == "changed"
    stored = await provider.get(memory_id)
    assert stored is not None
    assert (stored.text, stored.pinned) == ("formal", False)
    assert outcome.record == stored
    assert await trail_of(admin, "tone") == [("write", None, "formal")]
