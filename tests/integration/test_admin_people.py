"""Whom an administrator may erase, on SQLite and PostgreSQL: the people of the organisations they
administer (everyone, for a global administrator), however many others were seen since."""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from store import Actor, MemoryConfig
from store.admin import Administration, Seen
from store.domain.administration import RoleGate
from store.persistence import AuditTrail, KnownPeople, SqlMemoryProvider
from tests.conftest import Clock

LENA = Actor("lena", "berlin", ("onfile-admin",))
JONAS = Actor("jonas", "hamburg", ("onfile-admin",))
GIL = Actor("gil", "hamburg", ("onfile-global-admin",))
ADA = Actor("ada", "berlin")


@pytest.fixture
def people(engine: AsyncEngine, clock: Clock) -> KnownPeople:
    return KnownPeople(engine, clock=clock)


@pytest.fixture
def admin(engine: AsyncEngine, people: KnownPeople) -> Administration:
    provider = SqlMemoryProvider(engine)
    return Administration(MemoryConfig(provider=provider), provider, RoleGate(), AuditTrail(engine), people)


async def see(people: KnownPeople, clock: Clock, *actors: Actor) -> None:
    for actor in actors:
        clock.advance(seconds=1)
        await people.note(actor)


async def test_a_person_seen_before_many_others_can_still_be_listed_and_erased(
    admin: Administration, people: KnownPeople, clock: Clock
) -> None:
    await see(people, clock, ADA, *(Actor(f"h{i}", "hamburg") for i in range(201)))

    listed = await admin.erasable_people(LENA)
    found = await admin.erasable_person(LENA, "ada")

    assert [p.id for p in listed.people] == ["ada"]
    assert not listed.more
    assert found == ADA
    assert await admin.erasable_person(JONAS, "ada") is None  # another organisation's
    assert await admin.erasable_person(LENA, "h3") is None
    assert await admin.erasable_person(LENA, "nobody") is None


async def test_the_list_is_cut_after_filtering_and_says_there_are_more(
    admin: Administration, people: KnownPeople, clock: Clock
) -> None:
    await see(people, clock, ADA, *(Actor(f"b{i}", "berlin") for i in range(3)), Actor("h0", "hamburg"))

    cut = await admin.erasable_people(LENA, limit=3)
    whole = await admin.erasable_people(LENA, limit=4)
    everyone = await admin.erasable_people(GIL, limit=10)
    sought = await admin.erasable_people(LENA, sought="ada", limit=1)
    elsewhere = await admin.erasable_people(JONAS, sought="ada")

    assert ([p.id for p in cut.people], cut.more) == (["b2", "b1", "b0"], True)
    assert ([p.id for p in whole.people], whole.more) == (["b2", "b1", "b0", "ada"], False)
    assert [p.id for p in everyone.people] == ["h0", "b2", "b1", "b0", "ada"]
    assert ([p.id for p in sought.people], sought.more) == (["ada"], False)
    assert elsewhere.people == ()
    assert (await admin.erasable_people(ADA)).people == ()  # administers nothing


async def test_an_administrator_finds_the_people_of_their_organisations_by_name_or_id(
    admin: Administration, people: KnownPeople, clock: Clock
) -> None:
    for actor, name in [(ADA, "Ada Lovelace"), (Actor("zoe", "berlin"), "Zoë Adams"), (JONAS, "Ada Jonas")]:
        clock.advance(seconds=1)
        await people.note(actor, signed_in=True, name=name)
    await see(people, clock, Actor("bob", "berlin"))  # never signed in: no name, found by id alone

    def ids(found: Seen) -> list[str]:
        return [p.id for p in found.people]

    assert ids(await admin.erasable_people(LENA, sought="ada")) == ["zoe", "ada"]  # newest first
    assert ids(await admin.erasable_people(LENA, sought="ada", limit=1)) == ["zoe"]
    assert ids(await admin.erasable_people(LENA, sought="LOVELACE a")) == ["ada"]
    assert ids(await admin.erasable_people(LENA, sought="zoe")) == ["zoe"]
    assert ids(await admin.erasable_people(LENA, sought="bob")) == ["bob"]
    assert ids(await admin.erasable_people(LENA, sought="jonas")) == []  # another organisation's
    assert ids(await admin.erasable_people(GIL, sought="ada")) == ["jonas", "zoe", "ada"]
