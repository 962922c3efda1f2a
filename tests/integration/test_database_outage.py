"""The database stops in the middle of a run: every route says so with a 503 (JSON for the APIs, a
page for people), nothing half-done is left behind, and service resumes by itself once the database
is back — no restart of OnFile.

The PostgreSQL server here is this module's own (the session's shared one must keep running).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor, MemoryOrigin, MemoryRecord
from tests.builders import T0
from tests.postgres_server import PostgresServer, missing_binaries
from tests.web.conftest import AGENT_TOKEN, SECRET
from web.app import create_app
from web.kit.errors import DATABASE_UNAVAILABLE
from web.kit.identity.oidc import Person
from web.kit.identity.sessions import SESSION_COOKIE, csrf_token, start_session
from web.services import Services, open_services
from web.settings import Settings

pytestmark = pytest.mark.postgres

AGENT = {"Authorization": f"Bearer {AGENT_TOKEN}"}
ADA = Actor("ada", "berlin")
_databases = itertools.count()
BODY = {"actor": {"id": "ada", "tenantRef": "berlin"}, "threadId": "thr_1", "text": "units"}


@pytest.fixture(scope="module")
def outage_server() -> Iterator[PostgresServer]:
    reason = missing_binaries()
    if reason is not None:
        pytest.skip(reason)
    server = PostgresServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def outage_url(outage_server: PostgresServer) -> str:
    return outage_server.create_database(f"outage_{next(_databases)}")


@pytest.fixture
async def services(outage_url: str) -> AsyncIterator[Services]:
    settings = Settings(
        database_url=outage_url,
        secret_key=SECRET,
        oidc_issuer="http://127.0.0.1:1",
        oidc_client_id="onfile",
        oidc_client_secret="client-secret",
        agent_tokens=AGENT_TOKEN,
    )
    opened = await open_services(settings, migrate=True)
    try:
        yield opened
    finally:
        await opened.close()


@pytest.fixture
async def client(services: Services) -> AsyncIterator[AsyncTestClient[Litestar]]:
    """The application opens its own services, on the event loop it serves from (asyncpg's
    connections belong to one loop); the test's own `services` seed and log in."""
    async with AsyncTestClient(app=create_app(services.settings)) as test_client:
        yield test_client


async def test_an_outage_answers_503_everywhere_and_service_resumes_when_the_database_is_back(
    outage_server: PostgresServer, services: Services, client: AsyncTestClient[Litestar]
) -> None:
    await services.provider.add([MemoryRecord("m1", "units", "kilometres", "tenant:berlin", MemoryOrigin("human"), T0)])
    session_id = await start_session(services, Person(ADA, "Ada", "ada@example.com", ""), None)
    client.cookies.set(SESSION_COOKIE, session_id)
    csrf = {"X-CSRF-Token": csrf_token(SECRET, session_id)}
    first = await client.post("/agent/runs/run_1/digest", json=BODY, headers=AGENT)
    assert first.status_code == 200

    await asyncio.to_thread(outage_server.pause)
    try:
        during = {
            "digest": await client.post("/agent/runs/run_2/digest", json=BODY, headers=AGENT),
            "replay": await client.post("/agent/runs/run_1/digest", json=BODY, headers=AGENT),
            "remember": await client.post(
                "/agent/runs/run_1/remember", json={"callId": "c1", "key": "tone", "fact": "short"}, headers=AGENT
            ),
            "read-back": await client.get("/agent/memories"),
            "forget": await client.delete("/agent/memories/m1", headers=csrf),
            "readiness": await client.get("/readyz"),
        }
        alive = await client.get("/healthz")
        probed = (await client.head("/healthz"), await client.head("/readyz"))
        page = await client.get("/", headers={"Accept": "text/html"})
    finally:
        await asyncio.to_thread(outage_server.resume)

    for name, answer in during.items():
        assert answer.status_code == 503, (name, answer.text)
        assert answer.json() == {"error": DATABASE_UNAVAILABLE}, name
        assert answer.headers["retry-after"]
    assert alive.status_code == 200, "the process is up: /healthz says only that"
    assert [p.status_code for p in probed] == [200, 503], "a probe asking with HEAD is told the same"
    assert probed[1].headers["retry-after"]
    assert page.status_code == 503
    assert page.headers["content-type"].startswith("text/html")
    assert 'data-testid="unavailable"' in page.text
    assert "cannot reach its database" in page.text

    recovered = await until_ok(client, "/agent/memories")
    assert (await client.get("/readyz")).json() == {"status": "ready"}
    assert [e["text"] for e in recovered.json()] == ["kilometres"]
    replay = await client.post("/agent/runs/run_1/digest", json=BODY, headers=AGENT)
    assert replay.content == first.content, "the run replays byte for byte after the outage"
    remembered = await client.post(
        "/agent/runs/run_1/remember", json={"callId": "c1", "key": "tone", "fact": "short"}, headers=AGENT
    )
    assert remembered.json()["ok"] is True, "the call refused during the outage was not half-done"
    assert (await client.post("/agent/runs/run_2/digest", json=BODY, headers=AGENT)).status_code == 200


async def until_ok(client: AsyncTestClient[Litestar], path: str, *, within: float = 15.0) -> httpx.Response:
    deadline = time.monotonic() + within
    while True:
        answer = await client.get(path)
        if answer.status_code == 200 or time.monotonic() > deadline:
            assert answer.status_code == 200, f"still {answer.status_code} {within} s after the database came back"
            return answer
        assert answer.status_code == 503, answer.text
        await asyncio.sleep(0.2)


async def test_once_the_database_is_back_a_refusal_or_two_at_most_and_then_every_answer(
    outage_server: PostgresServer, services: Services, client: AsyncTestClient[Litestar]
) -> None:
    """Every connection the pool held died with the server: the first that fails has the pool replace
    them all, so a restart costs at most one request, not one per pooled connection."""
    await services.provider.add([MemoryRecord("m1", "units", "kilometres", "tenant:berlin", MemoryOrigin("human"), T0)])
    warm = await asyncio.gather(
        *(client.post(f"/agent/runs/warm_{n}/digest", json=BODY, headers=AGENT) for n in range(24))
    )
    assert {answer.status_code for answer in warm} == {200}

    await asyncio.to_thread(outage_server.pause)
    await asyncio.to_thread(outage_server.resume)
    answers = [
        (await client.post(f"/agent/runs/after_{n}/digest", json=BODY, headers=AGENT)).status_code for n in range(30)
    ]
    replays = [
        (await client.post(f"/agent/runs/warm_{n}/digest", json=BODY, headers=AGENT)).status_code for n in range(24)
    ]

    assert answers.count(503) <= 1, answers
    assert set(answers[answers.index(200) :]) == {200}, answers
    assert set(replays) == {200}
