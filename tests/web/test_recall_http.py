"""Recall by meaning over HTTP, as an agent runtime and a person meet it: the turn whose words differ
from the memory, a ranked digest replayed, and a forget that leaves no vector in the database file."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from litestar import Litestar
from litestar.testing import AsyncTestClient
from sqlalchemy import text

from store import Actor, MemoryOrigin, MemoryRecord
from store.persistence.engine import checkpoints_settled
from tests.builders import T0, UNRELATED_FACTS
from tests.web.conftest import AGENT_TOKEN, LoginAs
from web.app import create_app
from web.services import Services, open_services
from web.settings import Settings

AUTH = {"Authorization": f"Bearer {AGENT_TOKEN}"}
ADA = {"id": "ada", "tenantRef": "berlin", "roles": ["staff"]}
AGENT = MemoryOrigin(author="agent", thread_id="thr_0", run_id="run_0", actor_ref="ada")
TOPICS = UNRELATED_FACTS[:10]


def mine(key: str, fact: str, n: int = 0) -> MemoryRecord:
    return MemoryRecord(f"mem_{key}", key, fact, "actor:ada", AGENT, T0 + timedelta(minutes=n))


async def digest(client: AsyncTestClient[Litestar], run: str, turn: str) -> Any:
    return await client.post(
        f"/agent/runs/{run}/digest", json={"actor": ADA, "threadId": "thr_1", "text": turn}, headers=AUTH
    )


async def test_a_person_with_one_memory_gets_it_on_a_turn_that_shares_no_word_with_it(
    client: AsyncTestClient[Litestar], services: Services
) -> None:
    await services.provider.add([mine("distance-units", "they report distances in kilometres")])

    response = await digest(client, "run_1", "how far is it")

    assert response.status_code == 200
    body = response.json()
    assert [entry["key"] for entry in body["entries"]] == ["distance-units"]
    assert "distance-units: they report distances in kilometres" in body["block"]
    assert "not in this list" not in body["block"]
    assert (body["omitted"], body["recalled"]) == (0, False)


async def test_above_the_ceiling_the_turn_gets_the_memory_nearest_in_meaning_and_a_replay_is_byte_identical(
    settings: Settings,
) -> None:
    settings = replace(settings, max_memories=4)
    services = await open_services(settings, migrate=True)
    try:
        await services.provider.add(
            [mine("distance-units", "they report distances in kilometres", 59)]
            + [mine(f"note-{n}", fact, n) for n, fact in enumerate(TOPICS)]
        )
        async with AsyncTestClient(app=create_app(settings, services=services), base_url=settings.base_url) as client:
            first = await digest(client, "run_1", "how far away is the depot?")
            await services.provider.add([mine("distance-units", "distances in miles now"), mine("how-far", "far")])
            again = await digest(client, "run_1", "something else entirely")
    finally:
        await services.close()

    body = first.json()
    assert "distance-units" in [entry["key"] for entry in body["entries"]]
    assert len(body["entries"]) == 4
    assert (body["omitted"], body["recalled"]) == (7, True)
    assert "not in this list" in body["block"]
    assert again.status_code == 200
    assert again.content == first.content


async def test_a_forgotten_memorys_vector_is_not_left_in_the_database_file(
    client: AsyncTestClient[Litestar], services: Services, settings: Settings, login_as: LoginAs
) -> None:
    await services.provider.add([mine("distance-units", "they report distances in kilometres")])
    await services.provider.add([mine(f"note-{n}", fact, n) for n, fact in enumerate(TOPICS)])
    engine = services.provider.engine
    async with engine.connect() as connection:
        query = text("SELECT embedding FROM agent_memory WHERE key = 'distance-units'")
        vector = (await connection.execute(query)).scalar_one()
    path = Path(settings.sqlite_file or "")
    assert vector in await _file_after_checkpoint(services, path)
    token = await login_as(Actor(id="ada", tenant_ref="berlin", roles=("staff",)))

    response = await client.post("/memories/mem_distance-units/forget", data={"csrf_token": token})

    assert response.status_code == 200
    assert vector not in await _file_after_checkpoint(services, path)


async def _file_after_checkpoint(services: Services, path: Path) -> bytes:
    engine = services.provider.engine
    await checkpoints_settled(engine)
    async with engine.connect() as connection:
        await connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    return await asyncio.to_thread(path.read_bytes)
