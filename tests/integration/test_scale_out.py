"""Two OnFile server processes sharing nothing but one PostgreSQL database."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from store import MemoryOrigin, MemoryRecord
from store.persistence import SqlMemoryProvider, open_engine
from tests.builders import T0
from tests.processes.servers import ServerProcess
from web.demo.oidc_mock import MockProvider

pytestmark = pytest.mark.postgres

TOKEN = "scale-out-agent-token-0123456789"
SECRET = "scale-out-secret-key-shared-by-every-worker-0123"


@pytest.fixture
def provider() -> Iterator[MockProvider]:
    mock = MockProvider().start()
    mock.set_person("ada", {"name": "Ada", "tenant": "berlin"})
    yield mock
    mock.stop()


@pytest.fixture
def servers(postgres_database_url: str, provider: MockProvider, tmp_path: Path) -> Iterator[list[ServerProcess]]:
    environment = {
        "ONFILE_DATABASE_URL": postgres_database_url,
        "ONFILE_SECRET_KEY": SECRET,
        "ONFILE_OIDC_ISSUER": provider.issuer,
        "ONFILE_OIDC_CLIENT_ID": "onfile-scale",
        "ONFILE_OIDC_CLIENT_SECRET": "onfile-scale-secret",
        "ONFILE_AGENT_TOKENS": TOKEN,
    }
    started: list[ServerProcess] = []
    try:
        # a runs two worker processes itself; b is a second host: three processes, one database
        started.append(ServerProcess(environment, tmp_path / "server-a.log", workers=2).start())
        started.append(ServerProcess(environment, tmp_path / "server-b.log").start())
        yield started
    finally:
        for server in started:
            server.stop()


async def test_a_run_begun_on_one_process_replays_byte_identically_on_the_other(
    servers: list[ServerProcess], postgres_database_url: str
) -> None:
    a, b = servers
    engine = open_engine(postgres_database_url)
    provider = SqlMemoryProvider(engine)
    origin = MemoryOrigin(author="human", actor_ref="lena")
    await provider.add([MemoryRecord("m1", "units", "kilometres", "tenant:berlin", origin, T0)])
    body = {"actor": {"id": "ada", "tenantRef": "berlin"}, "threadId": "thr_1", "text": "units"}
    auth = {"Authorization": f"Bearer {TOKEN}"}

    async with httpx.AsyncClient() as http:
        first = await http.post(f"{a.base_url}/agent/runs/run_1/digest", json=body, headers=auth)
        await provider.add([MemoryRecord("m1", "units", "miles", "tenant:berlin", origin, T0)])
        replay = await http.post(f"{b.base_url}/agent/runs/run_1/digest", json=body, headers=auth)
        call = {"callId": "c1", "key": "tone", "fact": "short"}
        wrote = await http.post(f"{a.base_url}/agent/runs/run_1/remember", json=call, headers=auth)
        rewrote = await http.post(f"{b.base_url}/agent/runs/run_1/remember", json=call, headers=auth)
    await engine.dispose()

    assert first.status_code == 200
    assert "kilometres" in first.json()["block"]
    assert replay.content == first.content
    assert wrote.json()["ok"] is True
    assert rewrote.content == wrote.content


def test_a_login_on_one_process_is_valid_on_the_other(servers: list[ServerProcess], provider: MockProvider) -> None:
    a, b = servers
    with httpx.Client() as browser:
        start = browser.get(f"{a.base_url}/login", params={"next": "/agent/memories"})
        callback = provider.authorize(start.headers["location"], "ada")
        assert urlsplit(callback).netloc == urlsplit(a.base_url).netloc
        landed = browser.get(callback)
        session = browser.cookies.get("onfile_session")
        assert landed.status_code == 303
        assert session

    with httpx.Client(cookies={"onfile_session": session}) as another_tab:
        on_b = another_tab.get(f"{b.base_url}/agent/memories")

    assert on_b.status_code == 200
    assert on_b.json() == []
