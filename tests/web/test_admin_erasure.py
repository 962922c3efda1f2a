"""Erasing a person from the elevated area: who may, what the confirmation says, what goes."""

from __future__ import annotations

from datetime import UTC, datetime

from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor, MemoryOrigin, MemoryRecord
from tests.web.conftest import AGENT_TOKEN, LoginAs
from web.services import Services

LENA = Actor("lena", "berlin", ("onfile-admin",))
JONAS = Actor("jonas", "hamburg", ("onfile-admin",))
ADA = Actor("ada", "berlin")
T = datetime(2026, 9, 1, tzinfo=UTC)


async def seed(client: AsyncTestClient[Litestar], services: Services) -> None:
    await services.provider.add(
        [
            MemoryRecord("m1", "health", "zebraquartz", "actor:ada", MemoryOrigin("agent", "thr_1", "r", "ada"), T),
            MemoryRecord("m2", "tone", "formal", "tenant:berlin", MemoryOrigin("human", actor_ref="lena"), T),
        ]
    )
    auth = {"Authorization": f"Bearer {AGENT_TOKEN}"}
    body = {"actor": {"id": "ada", "tenantRef": "berlin"}, "threadId": "thr_1"}
    assert (await client.post("/agent/runs/run_1/digest", json=body, headers=auth)).status_code == 200


async def test_a_tenant_administrator_erases_a_person_of_their_organisation(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(client, services)
    token = await login_as(LENA)

    listed = await client.get("/admin/people")
    confirm = await client.get("/admin/people/ada/erase")
    done = await client.post("/admin/people/ada/erase", data={"csrf_token": token})

    assert 'data-person="ada"' in listed.text
    assert 'data-erasure="confirm"' in confirm.text
    assert "the 1 memory held about them alone" in confirm.text
    assert done.status_code == 200
    assert 'data-erasure="done"' in done.text
    assert await services.provider.get("m1") is None
    assert await services.provider.get("m2") is not None
    assert await services.journal.checkpoints("run_1") == {}
    assert next(e.action for e in await services.audit.at_scopes(["tenant:berlin"])) == "erase"


async def test_another_organisations_administrator_cannot_erase_and_sees_nobody(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(client, services)
    token = await login_as(JONAS)

    listed = await client.get("/admin/people")
    confirm = await client.get("/admin/people/ada/erase")
    refused = await client.post("/admin/people/ada/erase", data={"csrf_token": token})

    assert 'data-person="ada"' not in listed.text
    assert (confirm.status_code, refused.status_code) == (403, 403)
    assert await services.provider.get("m1") is not None


async def test_an_end_user_is_refused_and_csrf_is_enforced(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(client, services)
    await login_as(ADA)
    assert (await client.get("/admin/people")).status_code == 403

    await login_as(LENA)
    forged = await client.post("/admin/people/ada/erase", data={"csrf_token": "forged"})

    assert forged.status_code == 403
    assert await services.provider.get("m1") is not None
