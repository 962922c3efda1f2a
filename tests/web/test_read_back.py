"""The read-back API over HTTP: everything on file about me, no cap; forgetting my own only."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor, MemoryOrigin, MemoryRecord
from tests.web.conftest import LoginAs
from web.services import Services

ADA = Actor(id="ada", tenant_ref="berlin")
T = datetime(2026, 9, 1, 9, 12, 44, tzinfo=UTC)


def record(id: str, key: str, text: str, scope: str, author: str = "agent", **origin: str) -> MemoryRecord:
    return MemoryRecord(
        id=id,
        key=key,
        text=text,
        scope=scope,
        origin=MemoryOrigin(author="human" if author == "human" else "agent", actor_ref="ada", **origin),
        updated_at=T,
    )


async def seed(services: Services, *records: MemoryRecord) -> None:
    await services.provider.add(records)


async def test_the_read_back_lists_everything_with_overrides_and_dangling_origins(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(
        services,
        record(
            "mem_1", "fiscal-year", "they report on the calendar year", "actor:ada", thread_id="thr_1", run_id="run_1"
        ),
        record("mem_2", "fiscal-year", "the fiscal year starts in October", "global", "human"),
        record("mem_3", "tone", "short answers", "actor:ada", thread_id="thr_gone", run_id="run_9"),
        record("mem_4", "labels", "customer number first", "tenant:hamburg", "human"),
        *(record(f"mem_x{i:02d}", f"k{i:02d}", "v", "actor:ada") for i in range(30)),
    )
    await services.registry.register_run("run_1", "thr_1", "ada")
    await services.registry.delete_thread("thr_gone")
    await login_as(ADA)

    response = await client.get("/agent/memories")

    assert response.status_code == 200
    body = response.json()
    assert len(body) == 32  # no ceiling: more than max_memories
    by_key = {e["key"]: e for e in body}
    assert "labels" not in by_key
    assert by_key["fiscal-year"] == {
        "id": "mem_1",
        "key": "fiscal-year",
        "text": "they report on the calendar year",
        "scope": "actor:ada",
        "pinned": False,
        "origin": {
            "author": "agent",
            "threadId": "thr_1",
            "runId": "run_1",
            "actorRef": "ada",
            "promotedFrom": None,
            "resolves": True,
        },
        "updatedAt": "2026-09-01T09:12:44Z",
        "overrides": [{"scope": "global", "text": "the fiscal year starts in October", "author": "human"}],
        "expiresAt": None,
    }
    assert by_key["tone"]["origin"]["resolves"] is False


async def test_the_read_back_needs_a_login(client: AsyncTestClient[Litestar]) -> None:
    response = await client.get("/agent/memories")

    assert response.status_code == 401


async def test_forgetting_answers_200_403_or_one_404_for_everything_else(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(
        services,
        record("mem_mine", "units", "miles", "actor:ada"),
        record("mem_beaten", "units", "kilometres", "global", "human"),
        record("mem_org", "tone", "formal", "tenant:berlin", "human"),
        record("mem_bob", "tone", "casual", "actor:bob"),
    )
    token = await login_as(ADA)
    headers = {"X-CSRF-Token": token}

    not_found = [
        await client.delete(f"/agent/memories/{i}", headers=headers) for i in ("mem_beaten", "mem_bob", "nope")
    ]
    org = await client.delete("/agent/memories/mem_org", headers=headers)
    mine = await client.delete("/agent/memories/mem_mine", headers=headers)

    assert (mine.status_code, mine.json()) == (200, {"forgotten": True})
    assert org.status_code == 403
    assert org.json() == {"error": "Managed by your organisation: only its administrators can change or remove it."}
    assert {r.status_code for r in not_found} == {404}
    assert len({r.text for r in not_found}) == 1
    keys = [e["key"] for e in (await client.get("/agent/memories")).json()]
    assert keys == ["tone", "units"]  # the wider units value now shows


async def test_forgetting_without_the_csrf_token_changes_nothing(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, record("mem_mine", "units", "miles", "actor:ada"))
    await login_as(ADA)

    response = await client.delete("/agent/memories/mem_mine", headers={"X-CSRF-Token": "forged"})

    assert response.status_code == 403
    assert len((await client.get("/agent/memories")).json()) == 1


async def test_an_address_the_read_back_cannot_take_is_refused_in_its_error_shape(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    token = await login_as(ADA)

    nul = await client.delete("/agent/memories/a%00b", headers={"X-CSRF-Token": token})
    unknown = await client.delete("/agent/memories/nothing-here", headers={"X-CSRF-Token": token})

    assert nul.status_code == 400
    assert list(nul.json()) == ["error"]
    assert unknown.status_code == 404
    assert list(unknown.json()) == ["error"]


async def test_forgetting_an_id_sent_with_an_encoded_slash_forgets_nothing(
    client: AsyncTestClient[Litestar], login_as: LoginAs, services: Services
) -> None:
    await seed(services, record("mem_1", "tone", "short answers", "actor:ada"))
    token = await login_as(ADA)

    refused = await client.delete("/agent/memories/mem_1%2F", headers={"X-CSRF-Token": token})

    assert refused.status_code == 400
    assert refused.json()["error"].startswith("memory id contains '/' (sent as %2F)")
    assert [m["id"] for m in (await client.get("/agent/memories")).json()] == ["mem_1"]
    assert (await client.get("/?q=km%2Fh")).status_code == 200, "a '/' in the query is only a search's"


@pytest.mark.parametrize(
    ("thread", "said"),
    [
        ("a%01", "invisible or control character"),
        ("a%E2%80%8D", "invisible or control character"),
        ("t" * 201, "201 characters long"),
        ("+a", "starts or ends with a space"),
        ("a/b", "contains '/'"),
        ("", "threadId is empty"),
    ],
)
async def test_a_thread_id_the_agent_api_would_refuse_is_refused_by_the_read_back_too(
    client: AsyncTestClient[Litestar], login_as: LoginAs, services: Services, thread: str, said: str
) -> None:
    await seed(services, record("mem_1", "tone", "short answers", "actor:ada", thread_id="thr_1"))
    await login_as(ADA)

    refused = await client.get(f"/agent/memories?threadId={thread}")
    named = await client.get("/agent/memories?threadId=thr_1")

    assert refused.status_code == 400
    assert said in refused.json()["error"]
    assert "threadId" in refused.json()["error"]
    assert [m["id"] for m in named.json()] == ["mem_1"]


async def test_the_openapi_document_describes_the_read_back_refusals_and_credentials(
    client: AsyncTestClient[Litestar],
) -> None:
    paths = (await client.get("/schema/openapi.json")).json()["paths"]

    listing = paths["/agent/memories"]["get"]
    forgetting = paths["/agent/memories/{memory_id}"]["delete"]

    assert listing["security"] == [{"dashboardSession": []}]
    assert forgetting["security"] == [{"dashboardSession": [], "csrfToken": []}]
    assert "401" in listing["responses"]
    assert {"200", "401", "403", "404"} <= set(forgetting["responses"])
    for status in ("401", "403", "404"):
        content = forgetting["responses"][status]["content"]["application/json"]
        assert content["schema"] == {"$ref": "#/components/schemas/ProblemOut"}
        assert all(list(example["value"]) == ["error"] for example in content["examples"].values())
