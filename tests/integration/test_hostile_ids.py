"""Ids, names and cookies no client should send, on SQLite and on PostgreSQL (which cannot even compare
a string holding a NUL): a control character in an address or an id is a 400 naming the problem, and a
corrupted session cookie sends the person to a fresh login. Never a 500."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor
from tests.web.conftest import AGENT_TOKEN, SECRET
from web.app import create_app
from web.kit.identity.oidc import Person
from web.kit.identity.sessions import SESSION_COOKIE, csrf_token, start_session
from web.services import open_services
from web.settings import Settings

SAM = Actor("sam", "berlin", ("onfile-support",))
AGENT = {"Authorization": f"Bearer {AGENT_TOKEN}"}
CORRUPTED_COOKIES = [
    pytest.param("%00", id="nul"),
    pytest.param("%0Aset-cookie", id="line-break"),
    pytest.param("garbage", id="short"),
    pytest.param("x" * 4000, id="huge"),
    pytest.param("%C3%A9t%C3%A9-%F0%9F%98%80", id="non-ascii"),
    pytest.param("%FF%FE", id="not-utf8"),
    pytest.param('"quoted"', id="quoted"),
    pytest.param("A" * 43, id="well-formed-but-unknown"),
]
NUL_BODIES = [
    pytest.param("/agent/runs/run_1/digest", {"actor": {"id": "a\u0000b"}}, id="actor-id"),
    pytest.param("/agent/runs/run_1/digest", {"actor": {"id": "ada", "tenantRef": "berlin\u0000"}}, id="tenant"),
    pytest.param("/agent/runs/run_1/digest", {"actor": {"id": "ada", "roles": ["staff\n"]}}, id="role"),
    pytest.param("/agent/runs/run_1/digest", {"actor": {"id": "ada"}, "threadId": "thr\u0000"}, id="thread"),
    pytest.param("/agent/runs/run_1/remember", {"callId": "c\u0000", "key": "k", "fact": "f"}, id="call-id"),
    pytest.param("/agent/threads/thr_1/dropped-runs", {"runIds": ["run\u0000"]}, id="run-ids"),
]


@pytest.fixture
def settings(database_url: str) -> Settings:
    return Settings(
        database_url=database_url,
        secret_key=SECRET,
        oidc_issuer="http://127.0.0.1:1",
        oidc_client_id="onfile",
        oidc_client_secret="client-secret",
        agent_tokens=AGENT_TOKEN,
    )


@pytest.fixture
async def client(settings: Settings) -> AsyncIterator[AsyncTestClient[Litestar]]:
    """The application over a fresh database on each backend, opening its own services."""
    async with AsyncTestClient(app=create_app(settings), base_url="http://127.0.0.1:8000") as test_client:
        yield test_client


def addresses_with_ids(app: Litestar) -> list[tuple[str, str]]:
    """Every (method, path) the application serves with an id in its path, the id a NUL."""
    found = []
    for route in app.routes:
        if "{" not in route.path:
            continue
        path = re.sub(r"\{[^}]+\}", "a%00b", route.path)
        found += [
            (method, path) for method in sorted(getattr(route, "methods", ())) if method not in {"HEAD", "OPTIONS"}
        ]
    return found


@pytest.mark.parametrize("cookie", CORRUPTED_COOKIES)
async def test_a_corrupted_session_cookie_is_a_fresh_login_not_a_server_error(
    client: AsyncTestClient[Litestar], cookie: str
) -> None:
    client.headers["Cookie"] = f"{SESSION_COOKIE}={cookie}"

    page = await client.get("/", follow_redirects=False)
    api = await client.get("/agent/memories")
    admin = await client.get("/admin", follow_redirects=False)
    unsafe = await client.delete("/agent/memories/mem_1", headers={"X-CSRF-Token": "0" * 64})

    assert (page.status_code, page.headers["location"]) == (303, "/login?next=/")
    assert (api.status_code, api.json()) == (401, {"error": "Log in to the dashboard first."})
    assert admin.status_code == 303
    assert unsafe.status_code in {401, 403}


async def test_an_id_in_an_address_holding_a_control_character_is_a_400(
    client: AsyncTestClient[Litestar],
) -> None:
    addresses = addresses_with_ids(client.app)
    assert len(addresses) >= 10, addresses

    for method, path in addresses:
        answer = await client.request(method, path, headers=AGENT, json={})
        assert answer.status_code == 400, (method, path, answer.status_code, answer.text[:200])
        assert "control character" in answer.text


@pytest.mark.parametrize(("path", "body"), NUL_BODIES)
async def test_an_id_in_a_body_holding_a_control_character_is_a_400_naming_it(
    client: AsyncTestClient[Litestar], path: str, body: dict[str, object]
) -> None:
    answer = await client.post(path, json=body, headers=AGENT)

    assert answer.status_code == 400, answer.text
    assert re.search(r"(control character|line break) \(U\+00", answer.text), answer.text


@pytest.mark.parametrize("field", ["actor_id", "thread_id"])
async def test_the_preview_forms_id_or_thread_holding_a_control_character_is_a_400(
    client: AsyncTestClient[Litestar], settings: Settings, field: str
) -> None:
    services = await open_services(settings)
    try:
        session_id = await start_session(services, Person(SAM, "Sam", "sam@example.com", ""), None)
    finally:
        await services.close()
    client.cookies.set(SESSION_COOKIE, session_id)
    form = {"actor_id": "ada", "text": "units", "csrf_token": csrf_token(SECRET, session_id)}

    answer = await client.post("/support/preview/show", data={**form, field: "a\x00b"})

    assert answer.status_code == 400, answer.status_code
