"""The audit trail and dashboard sessions."""

from __future__ import annotations

import asyncio
import hashlib
from datetime import timedelta

import pytest
from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncEngine

from store.persistence.audit import AuditTrail
from store.persistence.sessions import DashboardSessions
from store.persistence.tables import DashboardSessionRow, table_of
from tests.conftest import Clock

TTL = timedelta(hours=1)


async def test_the_audit_trail_keeps_who_did_what_with_before_and_after(engine: AsyncEngine, clock: Clock) -> None:
    trail = AuditTrail(engine, clock=clock)
    before = {"text": "the fiscal year starts in October", "pinned": False}
    after = {"text": "the fiscal year starts in April", "pinned": True}

    written = await trail.append(
        who="lena", action="edit", scope="tenant:berlin", key="fiscal-year", before=before, after=after
    )

    (entry,) = await trail.at_scopes(["tenant:berlin"])
    assert entry == written
    assert (entry.who, entry.action, entry.scope, entry.key, entry.at) == (
        "lena",
        "edit",
        "tenant:berlin",
        "fiscal-year",
        clock.now,
    )
    assert (entry.before, entry.after) == (before, after)


async def test_the_audit_trail_lists_only_the_scopes_asked_for_newest_first(engine: AsyncEngine, clock: Clock) -> None:
    trail = AuditTrail(engine, clock=clock)
    await trail.append(who="lena", action="write", scope="tenant:berlin", key="a", after={"text": "one"})
    clock.advance(minutes=1)
    await trail.append(who="otto", action="write", scope="tenant:hamburg", key="b", after={"text": "two"})
    clock.advance(minutes=1)
    await trail.append(who="lena", action="delete", scope="tenant:berlin", key="a", before={"text": "one"})
    clock.advance(minutes=1)
    await trail.append(who="lena", action="preview", scope="actor:ada", key=None)

    berlin = await trail.at_scopes(["tenant:berlin", "actor:ada"])

    assert [(e.action, e.scope) for e in berlin] == [
        ("preview", "actor:ada"),
        ("delete", "tenant:berlin"),
        ("write", "tenant:berlin"),
    ]
    assert [e.action for e in await trail.at_scopes(["tenant:berlin"], limit=1)] == ["delete"]
    assert await trail.at_scopes([]) == []


async def test_the_audit_trail_refuses_an_unknown_action(engine: AsyncEngine) -> None:
    with pytest.raises(ValueError, match="unknown audit action"):
        await AuditTrail(engine).append(who="lena", action="obliterate", scope="global", key="k")  # type: ignore[arg-type]


async def test_a_session_is_created_read_and_ended(engine: AsyncEngine, clock: Clock) -> None:
    sessions = DashboardSessions(engine, clock=clock)

    created = await sessions.create({"actor": "ada", "csrf": "x"}, ttl=TTL)

    assert len(created.id) >= 40
    assert await sessions.get(created.id) == created
    assert await sessions.delete(created.id)
    assert await sessions.get(created.id) is None
    assert not await sessions.delete(created.id)


async def test_touching_a_session_extends_it_and_may_replace_its_data(engine: AsyncEngine, clock: Clock) -> None:
    sessions = DashboardSessions(engine, clock=clock)
    created = await sessions.create({"actor": "ada"}, ttl=TTL)
    clock.advance(minutes=50)

    assert await sessions.touch(created.id, ttl=TTL, data={"actor": "ada", "flash": "saved"})
    clock.advance(minutes=50)

    live = await sessions.get(created.id)
    assert live is not None
    assert (live.data, live.last_seen_at, live.created_at) == (
        {"actor": "ada", "flash": "saved"},
        clock.now - timedelta(minutes=50),
        created.created_at,
    )


async def test_an_expired_session_is_gone_before_and_after_the_sweep(engine: AsyncEngine, clock: Clock) -> None:
    sessions = DashboardSessions(engine, clock=clock)
    old = await sessions.create({"actor": "ada"}, ttl=TTL)
    clock.advance(minutes=30)
    young = await sessions.create({"actor": "bea"}, ttl=TTL)
    clock.advance(minutes=31)

    assert await sessions.get(old.id) is None
    assert not await sessions.touch(old.id, ttl=TTL), "an expired session cannot be revived"
    assert await sessions.delete_expired() == 1
    assert await sessions.get(young.id) == young
    assert await sessions.delete_expired() == 0


async def test_session_ids_are_unguessable_and_distinct(engine: AsyncEngine) -> None:
    sessions = DashboardSessions(engine)
    ids = {(await sessions.create({}, ttl=TTL)).id for _ in range(20)}

    assert len(ids) == 20


async def test_a_session_is_stored_under_a_hash_of_its_id_never_the_id_itself(engine: AsyncEngine) -> None:
    sessions = DashboardSessions(engine)
    created = await sessions.create({"actor": "ada"}, ttl=TTL, actor_id="ada")

    async with engine.connect() as connection:
        stored = (await connection.execute(select(table_of(DashboardSessionRow).c.id))).scalars().all()

    assert stored == [hashlib.sha256(created.id.encode()).hexdigest()]
    assert await sessions.get(stored[0]) is None, "the stored value is no key to the session"
    assert not await sessions.touch(stored[0], ttl=TTL)
    assert not await sessions.delete(stored[0])
    assert await sessions.get(created.id) == created


async def test_a_row_stored_under_a_raw_id_is_never_matched(engine: AsyncEngine, clock: Clock) -> None:
    sessions = DashboardSessions(engine, clock=clock)
    raw = "an-id-kept-as-it-was-issued-0123456789abcdef"
    async with engine.begin() as connection:
        await connection.execute(
            insert(table_of(DashboardSessionRow)).values(
                id=raw, data={}, created_at=clock.now, last_seen_at=clock.now, expires_at=clock.now + TTL
            )
        )

    assert await sessions.get(raw) is None
    clock.advance(hours=2)
    assert await sessions.delete_expired() == 1


async def test_of_racing_swaps_of_a_sessions_data_exactly_one_lands(engine: AsyncEngine) -> None:
    sessions = DashboardSessions(engine)
    created = await sessions.create({"actor": "ada", "checked": "09:00"}, ttl=TTL)

    landed = await asyncio.gather(
        *(sessions.swap_data(created.id, {"checked": f"09:05/{n}"}, key="checked", expected="09:00") for n in range(6))
    )

    assert sorted(landed) == [False] * 5 + [True]
    live = await sessions.get(created.id)
    assert live is not None
    assert live.data["checked"] == f"09:05/{landed.index(True)}"


async def test_a_swap_expecting_nothing_lands_only_where_the_key_is_absent_or_null(engine: AsyncEngine) -> None:
    sessions = DashboardSessions(engine)
    bare = await sessions.create({"actor": "ada"}, ttl=TTL)
    null = await sessions.create({"actor": "ada", "checked": None}, ttl=TTL)
    held = await sessions.create({"actor": "ada", "checked": "09:00"}, ttl=TTL)

    assert await sessions.swap_data(bare.id, {"checked": "09:05"}, key="checked", expected=None)
    assert await sessions.swap_data(null.id, {"checked": "09:05"}, key="checked", expected=None)
    assert not await sessions.swap_data(held.id, {"checked": "09:05"}, key="checked", expected=None)
    assert not await sessions.swap_data(bare.id, {"checked": "09:10"}, key="checked", expected=None)


async def test_a_swap_never_revives_an_expired_session(engine: AsyncEngine, clock: Clock) -> None:
    sessions = DashboardSessions(engine, clock=clock)
    created = await sessions.create({"checked": "09:00"}, ttl=TTL)
    clock.advance(hours=2)

    assert not await sessions.swap_data(created.id, {"checked": "11:00"}, key="checked", expected="09:00")
