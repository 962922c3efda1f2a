"""A person's name goes with them when they are erased: no table holds it any more, and the pages that
named them name them by their bare id."""

from __future__ import annotations

from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor
from tests.integration.text_scan import places_holding
from tests.web.admin_builders import tree
from tests.web.builders import make_record, seed
from tests.web.conftest import AGENT_TOKEN, LoginAs
from web.services import Services

LENA = Actor("lena", "berlin", ("onfile-admin", "onfile-support"))
ADA = Actor("ada", "berlin", ("onfile-admin",))
NAME = "Quillon Vantablack"


async def test_after_an_erasure_the_name_is_in_no_table_and_the_pages_fall_back_to_the_id(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("m_ada", "units", "miles", author="human"))
    token = await login_as(ADA, name=NAME)
    publish = {"scope": "tenant:berlin", "key": "tone", "text": "formal"}
    assert (await client.post("/admin/memories", json=publish, headers={"X-CSRF-Token": token})).status_code == 201
    body = {"actor": {"id": "ada", "tenantRef": "berlin"}, "threadId": "thr_1", "text": ""}
    agent = {"Authorization": f"Bearer {AGENT_TOKEN}"}
    assert (await client.post("/agent/runs/run_1/digest", json=body, headers=agent)).status_code == 200
    token = await login_as(LENA, name="Lena Vogt")
    await client.post("/support/preview/show", data={"csrf_token": token, "person": "ada"})
    before = tree(await client.get("/admin"))
    assert NAME in before.one("li", {"data-key": "tone"}).one(attrs={"data-written-by": True}).text

    done = await client.post("/admin/people/erase?person=ada", data={"csrf_token": token})

    assert done.status_code == 200
    assert await places_holding(services.provider.engine, NAME) == []
    assert await places_holding(services.provider.engine, "Quillon") == []
    facts = tree(await client.get("/admin"))
    audit = tree(await client.get("/admin/audit"))
    assert facts.one("li", {"data-key": "tone"}).one(attrs={"data-written-by": True}).text == "Written by ada"
    assert [e.text for e in audit.find_all(attrs={"data-named": "ada"})] == ["ada", "ada", "ada"]
    assert audit.one("tr", {"data-audit-action": "preview"}).one(attrs={"data-detail": True}).text == (
        "Looked at what the assistant is told about ada at Berlin"
    )
    assert NAME not in (await client.get("/admin/audit")).text
    assert NAME not in (await client.get("/admin/people")).text
