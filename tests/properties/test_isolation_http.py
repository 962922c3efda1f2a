"""Isolation through HTTP, on SQLite: the agent digest (listed and searched), the read-back, the
personal page and the delete endpoint, for every person of generated worlds. Nobody is shown a record
outside their resolved scopes, and one 404 body answers unknown, foreign and beaten ids alike."""

from __future__ import annotations

import itertools

from hypothesis import given
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import ScopeContext
from tests.properties.conftest import AGENT, actor_json, log_in, reseed
from tests.properties.world import SCOPE_POOL, World, markers_in, property_settings, worlds
from web.services import Services

_runs = itertools.count()
UNKNOWN_IDS = ("mem_unknown", "mem_w999", "mem_w000 ", "mem_w000%20x", "MEM_W000")  # a NUL is a 400: test_hostile_ids


@property_settings(200)
@given(world=worlds())
async def test_the_agent_digest_carries_only_the_resolved_scopes_listed_or_searched(
    world_client: AsyncTestClient[Litestar], world_services: Services, world: World
) -> None:
    await reseed(world_services, world)
    for person in world.people:
        scopes = world.scopes_of(person)
        allowed = world.markers_at(scopes)
        for text in ("", world.turn_text):
            body = {"actor": actor_json(person), "threadId": "thr_1", "text": text}
            answer = await world_client.post(f"/agent/runs/iso-{next(_runs)}/digest", json=body, headers=AGENT)
            assert answer.status_code == 200, answer.text
            digest = answer.json()
            assert digest["scopes"] == list(scopes)
            for entry in digest["entries"]:
                assert entry["scope"] in scopes
                assert all(o["scope"] in scopes for o in entry["overrides"])
            assert markers_in(answer.text) <= allowed, "the digest shows a record from outside the scopes"


@property_settings(200)
@given(world=worlds())
async def test_the_read_back_and_the_personal_page_show_exactly_the_persons_own_answers(
    world_client: AsyncTestClient[Litestar], world_services: Services, world: World
) -> None:
    await reseed(world_services, world)
    for person in world.people:
        await log_in(world_services, world_client, person)
        allowed = world.markers_at(world.scopes_of(person))
        winners = world.winners(person)

        read_back = await world_client.get("/agent/memories")
        assert read_back.status_code == 200
        assert {e["id"] for e in read_back.json()} == {r.id for r in winners.values()}
        assert markers_in(read_back.text) <= allowed

        page = await world_client.get("/")
        assert page.status_code == 200
        shown = markers_in(page.text)
        assert shown <= allowed, "the personal page shows a record from outside the scopes"
        assert {world.marker(r) for r in winners.values()} <= shown


@property_settings(150)
@given(world=worlds())
async def test_deleting_an_unknown_foreign_or_beaten_id_answers_one_404_and_changes_nothing(
    world_client: AsyncTestClient[Litestar], world_services: Services, world: World
) -> None:
    await reseed(world_services, world)
    bodies: set[bytes] = set()
    for person in world.people:
        csrf = await log_in(world_services, world_client, person)
        unseen = [r.id for r in (*world.foreign(person)[:4], *world.beaten(person)[:4])]
        for id in (*UNKNOWN_IDS, *unseen):
            answer = await world_client.delete(f"/agent/memories/{id}", headers={"X-CSRF-Token": csrf})
            assert answer.status_code == 404, (id, answer.text)
            bodies.add(answer.content)
    assert len(bodies) <= 1, f"the 404 bodies differ: {bodies}"
    stored = await world_services.provider.list(scopes=SCOPE_POOL, ctx=ScopeContext(actor=world.people[0]))
    assert {r.id for r in stored} == {r.id for r in world.records}
