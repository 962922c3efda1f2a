"""Expiry as the agent runtime sees it over HTTP, on SQLite and PostgreSQL: a memory the assistant
concluded leaves the digest the moment its organisation's lifetime has passed, while what the person
stated stays; the person's keep brings it back."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from litestar import Litestar
from sqlalchemy import text

from store import Actor, MemoryOrigin, ScopeContext
from tests.web.admin_builders import LENA
from tests.web.conftest import AGENT_TOKEN, SECRET
from web.housekeeping import prune
from web.services import Services
from web.settings import Settings

AUTH = {"Authorization": f"Bearer {AGENT_TOKEN}"}
ADA = Actor("ada", "berlin")
ADA_WIRE = {"id": "ada", "tenantRef": "berlin", "roles": []}


@pytest.fixture
async def client(app: Litestar, services: Services) -> AsyncIterator[httpx.AsyncClient]:
    """The application on the test's own event loop, without its start-up (the services are these)."""
    app.state.services = services
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]  # Litestar types its scope narrower than httpx
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as on_this_loop:
        yield on_this_loop


@pytest.fixture
def settings(database_url: str) -> Settings:
    return Settings(
        database_url=database_url,
        base_url="http://127.0.0.1:8000",
        secret_key=SECRET,
        oidc_issuer="http://127.0.0.1:1",
        oidc_client_id="onfile",
        oidc_client_secret="client-secret",
        agent_tokens=AGENT_TOKEN,
    )


async def digest_keys(client: httpx.AsyncClient, run: str, turn: str = "") -> set[str]:
    body = {"actor": ADA_WIRE, "text": turn}
    response = await client.post(f"/agent/runs/{run}/digest", json=body, headers=AUTH)
    assert response.status_code == 200
    return {entry["key"] for entry in response.json()["entries"]}


async def digest_keys_of(client: httpx.AsyncClient, run: str, tenant: str | None) -> set[str]:
    """The keys of the digest for Ada as a member of `tenant` (None: of no organisation)."""
    body = {"actor": {**ADA_WIRE, "tenantRef": tenant}, "text": ""}
    response = await client.post(f"/agent/runs/{run}/digest", json=body, headers=AUTH)
    assert response.status_code == 200
    return {entry["key"] for entry in response.json()["entries"]}


async def remember(client: httpx.AsyncClient, run: str, key: str, fact: str) -> Any:
    body = {"callId": f"call_{key}", "key": key, "fact": fact}
    response = await client.post(f"/agent/runs/{run}/remember", json=body, headers=AUTH)
    assert response.status_code == 200
    return response.json()


async def expire_everything_concluded(services: Services) -> None:
    """As if the lifetime had passed: every memory that has an expiry reached it a minute ago."""
    past = datetime.now(UTC) - timedelta(minutes=1)
    async with services.provider.engine.begin() as connection:
        await connection.execute(
            text("UPDATE agent_memory SET expires_at = :past WHERE expires_at IS NOT NULL"), {"past": past}
        )


@pytest.fixture
async def concluded(client: httpx.AsyncClient, services: Services) -> str:
    """Ada's organisation keeps what the assistant concludes for 30 days; Ada stated one thing and the
    assistant concluded another. The concluded memory's id."""
    await services.expiry.set_lifetime(LENA, days=30)
    stated = MemoryOrigin(author="human", actor_ref="ada")
    await services.provider.write(
        key="units", text="kilometres", scope="actor:ada", origin=stated, ctx=ScopeContext(actor=ADA)
    )
    await digest_keys(client, "run_1")
    written = await remember(client, "run_1", "tone", "short answers")
    assert written["ok"] is True
    return str(written["record"]["id"])


@pytest.mark.usefixtures("concluded")
async def test_a_concluded_memory_is_in_the_digest_until_its_lifetime_passes(
    client: httpx.AsyncClient, services: Services
) -> None:
    assert await digest_keys(client, "run_2") == {"units", "tone"}

    await expire_everything_concluded(services)

    assert await digest_keys(client, "run_3") == {"units"}
    assert await digest_keys(client, "run_4", "short answers about units") == {"units"}


async def test_a_kept_memory_is_back_in_the_next_digest(
    client: httpx.AsyncClient, services: Services, concluded: str
) -> None:
    await expire_everything_concluded(services)

    assert await services.expiry.keep(ADA, concluded)

    assert await digest_keys(client, "run_2") == {"units", "tone"}


@pytest.mark.usefixtures("concluded")
async def test_a_run_resolved_before_the_expiry_replays_its_recorded_digest(
    client: httpx.AsyncClient, services: Services
) -> None:
    assert await digest_keys(client, "run_2") == {"units", "tone"}

    await expire_everything_concluded(services)

    assert await digest_keys(client, "run_2") == {"units", "tone"}


@pytest.mark.usefixtures("concluded")
async def test_a_run_whose_expired_memory_was_pruned_is_told_why_it_cannot_replay(
    client: httpx.AsyncClient, services: Services
) -> None:
    assert await digest_keys(client, "run_2") == {"units", "tone"}
    await expire_everything_concluded(services)

    await prune(services)

    replay = await client.post("/agent/runs/run_2/digest", json={"actor": ADA_WIRE, "text": ""}, headers=AUTH)
    assert replay.status_code == 410
    assert "a memory it named expired" in replay.json()["error"]
    assert await digest_keys(client, "run_5") == {"units"}


@pytest.mark.usefixtures("concluded")
async def test_a_person_moved_to_an_organisation_without_a_lifetime_has_their_expired_memory_back(
    client: httpx.AsyncClient, services: Services
) -> None:
    await expire_everything_concluded(services)

    assert await services.admin.move_person("operator", "ada", "hamburg") is not None

    assert await digest_keys_of(client, "run_2", "hamburg") == {"units", "tone"}


@pytest.mark.usefixtures("concluded")
async def test_a_person_who_signs_in_with_an_organisation_that_keeps_conclusions_gets_its_lifetime(
    client: httpx.AsyncClient, services: Services
) -> None:
    await services.admin.move_person("operator", "ada", None)
    assert await digest_keys_of(client, "run_2", None) == {"units", "tone"}
    await expire_everything_concluded(services)  # nothing has an expiry in no organisation
    assert await digest_keys_of(client, "run_3", None) == {"units", "tone"}

    await services.admin.signed_in(ADA)

    assert await digest_keys(client, "run_4") == {"units", "tone"}
    await expire_everything_concluded(services)
    assert await digest_keys(client, "run_5") == {"units"}
