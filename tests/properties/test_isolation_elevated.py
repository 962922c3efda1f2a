"""Isolation in the elevated area, through HTTP on SQLite: the shared-facts list, its JSON API and
audit download, and the support preview (JSON and page), for every person of generated worlds.

An administrator sees exactly the records at the scopes they administer — never another organisation's
or a person's own — and the API answers one 404 body for an id that is unknown or held elsewhere. A
preview shows exactly what the previewed person's own scopes hold, whoever asks for it.
"""

from __future__ import annotations

import re

from hypothesis import given
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor, ScopeContext
from tests.properties.conftest import actor_json, log_in, reseed
from tests.properties.world import (
    ADMIN_ROLE,
    GLOBAL_ADMIN_ROLE,
    SCOPE_POOL,
    SUPPORT_ROLE,
    World,
    markers_in,
    property_settings,
    worlds,
)
from web.services import Services


def administered(world: World, actor: Actor) -> tuple[str, ...]:
    """What the default role gate lets `actor` administer among their own scopes."""
    wanted = set()
    if GLOBAL_ADMIN_ROLE in actor.roles:
        wanted.add("global")
    if ADMIN_ROLE in actor.roles and actor.tenant_ref:
        wanted.add(f"tenant:{actor.tenant_ref}")
    return tuple(s for s in world.scopes_of(actor) if s in wanted)


@property_settings(150)
@given(world=worlds())
async def test_an_administrator_sees_and_reaches_only_the_scopes_they_administer(
    world_client: AsyncTestClient[Litestar], world_services: Services, world: World
) -> None:
    await reseed(world_services, world)
    for person in world.people:
        csrf = await log_in(world_services, world_client, person)
        scopes = administered(world, person)
        held = world.markers_at(scopes)

        page = await world_client.get("/admin")
        assert page.status_code == (200 if scopes else 403)
        assert markers_in(page.text) == held, "the shared facts are exactly those at the administered scopes"

        trail = await world_client.get("/admin/audit.json")
        assert trail.status_code == (200 if scopes else 403)
        if scopes:
            assert {entry["scope"] for entry in trail.json()} <= set(scopes)

        elsewhere = [r.id for r in world.records if r.scope not in scopes][:5]
        bodies = set()
        for id in ("mem_unknown", *elsewhere):
            answer = await world_client.put(
                f"/admin/memories/{id}", json={"text": "overwritten"}, headers={"X-CSRF-Token": csrf}
            )
            assert answer.status_code == (404 if scopes else 403), answer.text
            bodies.add(answer.content)
        assert len(bodies) == 1, bodies

    stored = await world_services.provider.list(scopes=SCOPE_POOL, ctx=ScopeContext(actor=world.people[0]))
    assert sorted(stored, key=lambda r: r.id) == sorted(world.records, key=lambda r: r.id)


def without_the_form(page: str) -> str:
    """The page less its text area, which echoes the turn text the support person typed."""
    return re.sub(r"<textarea[^>]*>.*?</textarea>", "", page, flags=re.DOTALL)


@property_settings(150)
@given(world=worlds())
async def test_a_preview_shows_exactly_what_the_previewed_persons_scopes_hold(
    world_client: AsyncTestClient[Litestar], world_services: Services, world: World
) -> None:
    await reseed(world_services, world)
    for person in world.people:
        csrf = await log_in(world_services, world_client, person)
        may_preview = SUPPORT_ROLE in person.roles
        for target in world.people:
            # a colleague of the same organisation; anyone else is unknown, whatever the call claims
            sees = may_preview and person.tenant_ref is not None and person.tenant_ref == target.tenant_ref
            status = 200 if sees else 404 if may_preview else 403
            scopes = world.scopes_of(target)
            for claimed in (target.tenant_ref, person.tenant_ref, "lyon"):
                actor = {**actor_json(target), "tenantRef": claimed}
                body = {"actor": actor, "threadId": "thr_1", "text": world.turn_text}
                answer = await world_client.post("/support/preview", json=body, headers={"X-CSRF-Token": csrf})
                assert answer.status_code == status, answer.text
                assert markers_in(answer.text) <= world.markers_at(scopes if sees else ())
                if sees:
                    assert answer.json()["scopes"] == list(scopes)

            form = {"actor_id": target.id, "text": world.turn_text, "csrf_token": csrf}
            shown = await world_client.post("/support/preview/show", data=form)
            assert shown.status_code == status, shown.text[:300]
            assert markers_in(without_the_form(shown.text)) <= world.markers_at(scopes if sees else ())
