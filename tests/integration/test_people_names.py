"""The names of the people seen, on SQLite and PostgreSQL: a login brings the name, an agent call
(which knows no name) keeps it, a page asks for many at once, and an erasure takes it away."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncEngine

from store import Actor, MemoryConfig
from store.persistence import ConversationRegistry, KnownPeople, RunJournal, SqlMemoryProvider
from store.runs import MemoryRuns
from tests.conftest import Clock
from tests.integration.text_scan import places_holding
from tests.statements_run import statements_run

ADA = Actor("ada", "berlin")


async def test_a_login_s_name_stays_through_agent_calls_until_a_later_login_brings_another(
    engine: AsyncEngine, clock: Clock
) -> None:
    people = KnownPeople(engine, clock=clock)

    await people.note(ADA, name="Ada Lovelace")
    await people.note(Actor("ada", "berlin", ("staff",)))  # an agent call: no name
    kept = await people.names_of(["ada"])
    await people.note(Actor("ada", "hamburg"), signed_in=True, name="Ada King")  # a later login

    assert kept == {"ada": "Ada Lovelace"}
    assert await people.names_of(["ada"]) == {"ada": "Ada King"}
    assert await people.find("ada") == Actor("ada", "hamburg")


async def test_a_new_run_notes_its_person_without_wiping_their_name(engine: AsyncEngine) -> None:
    people = KnownPeople(engine)
    provider = SqlMemoryProvider(engine)
    runs = MemoryRuns(MemoryConfig(provider=provider), RunJournal(engine), ConversationRegistry(engine), people)
    await people.note(ADA, name="Ada Lovelace")

    await runs.begin("run_1", actor=Actor("ada", "berlin", ("staff",)), thread_id="thr_1", text="")

    assert await people.names_of(["ada"]) == {"ada": "Ada Lovelace"}
    assert await people.find("ada") == Actor("ada", "berlin", ("staff",))


async def test_names_of_answers_the_people_with_a_known_name_in_one_statement(engine: AsyncEngine) -> None:
    people = KnownPeople(engine)
    await people.note(ADA, name="Ada Lovelace")
    await people.note(Actor("bob", "berlin"))
    await people.note(Actor("cy", "lyon"), name="Cy Twombly")
    with statements_run(engine) as statements:
        named = await people.names_of(["ada", "bob", "cy", "nobody", "ada"])
        none_asked = await people.names_of([])

    assert named == {"ada": "Ada Lovelace", "cy": "Cy Twombly"}
    assert none_asked == {}
    assert len(statements) == 1


async def test_names_of_answers_for_more_people_than_one_statement_binds(engine: AsyncEngine) -> None:
    people = KnownPeople(engine)
    for n in range(0, 2_500, 7):
        await people.note(Actor(f"p{n}", "berlin"), name=f"Person {n}")

    named = await people.names_of(f"p{n}" for n in range(2_500))

    assert named == {f"p{n}": f"Person {n}" for n in range(0, 2_500, 7)}


async def test_forgetting_a_person_forgets_their_name_everywhere(engine: AsyncEngine) -> None:
    people = KnownPeople(engine)
    await people.note(ADA, name="Quillon Vantablack")

    await people.forget("ada")

    assert await people.names_of(["ada"]) == {}
    assert await places_holding(engine, "Quillon") == []
