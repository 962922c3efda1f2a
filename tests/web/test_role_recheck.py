"""Roles follow the identity provider: a dashboard session asks it again at least every
`ONFILE_ROLE_RECHECK`, with a real provider process behind a relay the test can cut: one that issues
refresh tokens, and one that does not (the session then asks userinfo with its access token). The
clock is the test's, so "six minutes later" takes no time."""

from __future__ import annotations

import asyncio
import dataclasses
import html
import re
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor
from tests.conftest import Clock
from tests.web.builders import make_record, page_of, seed
from tests.web.relay import Relay
from web.app import create_app
from web.demo.oidc_mock import MockProvider
from web.kit.identity.oidc import OidcClient
from web.kit.identity.sessions import SESSION_COOKIE, csrf_token, load_viewer
from web.services import Services, open_services
from web.settings import Settings

SECRET = "role-recheck-secret-key-long-enough-0123456789"
BASE = "http://127.0.0.1:8000"
UNCONFIRMED = "could not confirm your roles"
ELEVATED_PAGES = ["/admin", "/admin/audit", "/admin/people", "/support/preview"]
LENA_ADMIN = {"name": "Lena", "tenant": "berlin", "roles": ["onfile-admin", "onfile-support"]}


@pytest.fixture(scope="module", params=[True, False], ids=["refresh-token", "userinfo"])
def provider(request: pytest.FixtureRequest) -> Iterator[MockProvider]:
    mock = MockProvider(refresh_tokens=request.param).start()
    yield mock
    mock.stop()


@pytest.fixture
def relay(provider: MockProvider) -> Iterator[Relay]:
    line = Relay(provider.port).start()
    yield line
    line.cut()


@pytest.fixture
def clock() -> Clock:
    return Clock(now=datetime.now(UTC))


@pytest.fixture
async def services(tmp_path: Path, relay: Relay, clock: Clock) -> AsyncIterator[Services]:
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'recheck.sqlite3'}",
        base_url=BASE,
        secret_key=SECRET,
        oidc_issuer=relay.issuer,
        oidc_client_id="onfile-tests",
        oidc_client_secret="onfile-tests-secret",
        role_recheck=timedelta(minutes=5),
    )
    opened = await open_services(settings, migrate=True, clock=clock)
    yield opened
    await opened.close()


@pytest.fixture
async def client(services: Services) -> AsyncIterator[AsyncTestClient[Litestar]]:
    async with AsyncTestClient(app=create_app(services.settings, services=services), base_url=BASE) as test_client:
        test_client.follow_redirects = False
        yield test_client


async def sign_in(client: AsyncTestClient[Litestar], provider: MockProvider, sub: str) -> str:
    """The whole code flow, through the relay; the CSRF token of the new session."""
    start = await client.get("/login", params={"next": "/"})
    callback = urlsplit(provider.authorize(start.headers["location"], sub))
    back = await client.get(f"{callback.path}?{callback.query}")
    assert back.status_code == 303, back.text
    return csrf_token(SECRET, client.cookies[SESSION_COOKIE])


async def stored_actor(services: Services, client: AsyncTestClient[Litestar]) -> Any:
    session = await services.sessions.get(client.cookies[SESSION_COOKIE])
    assert session is not None
    return session.data["actor"]


def publish(client: AsyncTestClient[Litestar], token: str) -> Any:
    body = {"scope": "tenant:berlin", "key": "tone", "text": "formal"}
    return client.post("/admin/memories", json=body, headers={"X-CSRF-Token": token})


def times_asked(relay: Relay) -> int:
    """How often OnFile asked the provider about a person. (The provider answers a refresh without a
    new ID token, so a refresh is followed by userinfo too.)"""
    return relay.sent.count(b"GET /userinfo")


async def test_a_role_taken_away_at_the_provider_closes_every_elevated_act_at_the_next_recheck(
    client: AsyncTestClient[Litestar], provider: MockProvider, services: Services, clock: Clock
) -> None:
    provider.set_person("lena", LENA_ADMIN)
    token = await sign_in(client, provider, "lena")
    assert (await client.get("/admin")).status_code == 200
    provider.set_person("lena", {"name": "Lena", "tenant": "berlin", "roles": []})

    assert (await client.get("/admin")).status_code == 200, "not due yet: the roles of the sign-in hold"
    clock.advance(minutes=6)

    for path in ELEVATED_PAGES:
        assert (await client.get(path)).status_code == 403, path
    assert (await publish(client, token)).status_code == 403
    assert (await client.get("/")).status_code == 200
    assert await stored_actor(services, client) == {"id": "lena", "tenant_ref": "berlin", "roles": []}


async def test_a_role_granted_at_the_provider_takes_effect_at_the_next_recheck(
    client: AsyncTestClient[Litestar], provider: MockProvider, services: Services, clock: Clock
) -> None:
    provider.set_person("ada", {"name": "Ada", "tenant": "berlin", "roles": ["staff"]})
    token = await sign_in(client, provider, "ada")
    assert (await client.get("/admin")).status_code == 403
    provider.set_person("ada", {"name": "Ada", "tenant": "berlin", "roles": ["staff", "onfile-admin"]})

    clock.advance(minutes=6)

    assert (await client.get("/admin")).status_code == 200
    assert (await publish(client, token)).status_code == 201
    assert (await stored_actor(services, client))["roles"] == ["staff", "onfile-admin"]


async def test_an_organisation_changed_at_the_provider_is_taken_up(
    client: AsyncTestClient[Litestar], provider: MockProvider, services: Services, clock: Clock
) -> None:
    await seed(services, make_record("m_hh", "office", "Hamburg harbour", scope="tenant:hamburg", actor_ref=None))
    provider.set_person("sam", {"name": "Sam", "tenant": "berlin"})
    await sign_in(client, provider, "sam")
    provider.set_person("sam", {"name": "Sam", "tenant": "hamburg"})

    clock.advance(minutes=6)
    page = page_of(await client.get("/"))

    assert [row["data-key"] for row in page.find_all("li", {"data-entry": True})] == ["office"]
    assert (await stored_actor(services, client))["tenant_ref"] == "hamburg"
    # the provider's word moves the person for everyone, audited where they left and where they joined
    assert await services.people.find("sam") == Actor("sam", "hamburg")
    moves = await services.audit.at_scopes(["tenant:berlin", "tenant:hamburg"])
    assert sorted((e.action, e.scope) for e in moves) == [("move", "tenant:berlin"), ("move", "tenant:hamburg")]


async def test_the_provider_is_asked_once_an_interval(
    client: AsyncTestClient[Litestar], provider: MockProvider, relay: Relay, clock: Clock
) -> None:
    provider.set_person("lena", LENA_ADMIN)
    await sign_in(client, provider, "lena")
    clock.advance(minutes=6)

    answers = [await client.get("/admin") for _ in range(3)]
    clock.advance(minutes=4)
    answers += [await client.get("/admin") for _ in range(3)]

    assert {a.status_code for a in answers} == {200}
    assert times_asked(relay) == 1
    clock.advance(minutes=2)
    assert (await client.get("/admin")).status_code == 200
    assert times_asked(relay) == 2


async def test_of_requests_arriving_together_when_the_roles_are_due_one_asks_and_the_rest_go_on(
    client: AsyncTestClient[Litestar], provider: MockProvider, relay: Relay, services: Services, clock: Clock
) -> None:
    provider.set_person("lena", LENA_ADMIN)
    await sign_in(client, provider, "lena")
    clock.advance(minutes=6)
    oidc = OidcClient(
        issuer=relay.issuer,
        client_id="onfile-tests",
        client_secret="onfile-tests-secret",
        redirect_uri=f"{BASE}/auth/callback",
        scopes="openid profile email",
        tenant_claim="tenant",
        roles_claim="roles",
    )
    try:
        # as a worker's concurrent requests meet; which of them asks is the database's to decide
        viewers = await asyncio.gather(
            *(load_viewer(services, client.cookies[SESSION_COOKIE], provider=oidc) for _ in range(8))
        )
    finally:
        await oidc.aclose()

    assert all(viewer is not None and viewer.roles_confirmed for viewer in viewers)
    assert times_asked(relay) == 1


async def test_while_the_provider_cannot_be_reached_elevated_acts_are_refused_and_the_own_page_works(
    client: AsyncTestClient[Litestar], provider: MockProvider, relay: Relay, services: Services, clock: Clock
) -> None:
    await seed(services, make_record("m_own", "units", "kilometres", scope="actor:lena", actor_ref="lena"))
    provider.set_person("lena", LENA_ADMIN)
    token = await sign_in(client, provider, "lena")
    assert page_of(await client.get("/")).find(attrs={"data-action": "promote"}) is not None
    relay.cut()
    clock.advance(minutes=6)

    for path in ELEVATED_PAGES:
        refused = await client.get(path)
        assert refused.status_code == 403, path
        assert UNCONFIRMED in html.unescape(refused.text), path
    api = await publish(client, token)
    preview = await client.post(
        "/support/preview", json={"actor": {"id": "ada"}, "text": "hello"}, headers={"X-CSRF-Token": token}
    )
    erase = await client.post("/admin/people/erase", params={"person": "ada"}, data={"csrf_token": token})
    promote = await client.post("/memories/m_own/promote", data={"csrf_token": token, "scope": "tenant:berlin"})
    confirm = await client.get("/memories/m_own/promote", params={"scope": "tenant:berlin"})
    own = page_of(await client.get("/"))
    forgot = await client.post("/memories/m_own/forget", data={"csrf_token": token})

    assert (api.status_code, preview.status_code, erase.status_code, promote.status_code) == (403, 403, 403, 403)
    assert UNCONFIRMED in api.json()["error"]
    assert UNCONFIRMED in preview.json()["error"]
    assert (confirm.status_code, UNCONFIRMED in html.unescape(confirm.text)) == (403, True)
    assert [row["data-key"] for row in own.find_all("li", {"data-entry": True})] == ["units"]
    assert own.find(attrs={"data-action": "promote"}) is None
    assert own.find(attrs={"data-action": "administration"}) is None
    assert forgot.status_code == 303
    assert await services.provider.get("m_own") is None

    relay.start()
    clock.advance(minutes=6)
    assert (await client.get("/admin")).status_code == 200, "the next recheck that gets through restores them"


async def test_tokens_the_provider_withdrew_leave_the_roles_unconfirmed(
    client: AsyncTestClient[Litestar], provider: MockProvider, clock: Clock
) -> None:
    provider.set_person("lena", LENA_ADMIN)
    await sign_in(client, provider, "lena")
    provider.revoke_tokens("lena")

    clock.advance(minutes=6)
    refused = await client.get("/admin")

    assert refused.status_code == 403
    assert UNCONFIRMED in html.unescape(refused.text)
    assert (await client.get("/")).status_code == 200


async def test_the_provider_tokens_are_kept_encrypted_never_as_issued(
    client: AsyncTestClient[Litestar], provider: MockProvider, relay: Relay, tmp_path: Path
) -> None:
    provider.set_person("lena", LENA_ADMIN)
    await sign_in(client, provider, "lena")
    issued = re.findall(rb'"(?:access_token|refresh_token)": ?"([^"]+)"', bytes(relay.received))

    with closing(sqlite3.connect(tmp_path / "recheck.sqlite3")) as copy:
        (data,) = copy.execute("SELECT data FROM dashboard_session").fetchone()

    assert len(issued) == (2 if provider.refresh_tokens else 1)
    assert not any(token.decode() in data for token in issued)


async def test_signing_out_while_the_provider_cannot_be_reached_ends_the_session_on_the_signed_out_page(
    client: AsyncTestClient[Litestar], provider: MockProvider, relay: Relay, services: Services
) -> None:
    provider.set_person("lena", LENA_ADMIN)
    token = await sign_in(client, provider, "lena")
    session_id = client.cookies[SESSION_COOKIE]
    relay.cut()

    out = await client.post("/logout", data={"csrf_token": token})

    assert out.status_code == 303
    assert out.headers["location"] == "/signed-out"
    cleared = next(h for h in out.headers.get_list("set-cookie") if h.startswith(f"{SESSION_COOKIE}="))
    assert "Max-Age=0" in cleared
    assert await services.sessions.get(session_id) is None
    landing = await client.get("/signed-out")
    assert landing.status_code == 200
    assert page_of(landing).one(attrs={"data-testid": "signed-out"})


async def test_after_the_secret_key_changed_a_session_ends_at_its_recheck_and_the_person_signs_in_again(
    client: AsyncTestClient[Litestar], provider: MockProvider, services: Services, clock: Clock
) -> None:
    """Its provider tokens were sealed under the old key: no recheck can pass, so rather than an area
    refused "for a few minutes" for ever, the session ends and the person is asked to sign in."""
    provider.set_person("lena", LENA_ADMIN)
    await sign_in(client, provider, "lena")
    session_id = client.cookies[SESSION_COOKIE]
    rekeyed = dataclasses.replace(services.settings, secret_key="another-secret-key-after-rotation-0123456789")
    restarted = await open_services(rekeyed, migrate=False, clock=clock)
    try:
        async with AsyncTestClient(app=create_app(rekeyed, services=restarted), base_url=BASE) as after:
            after.follow_redirects = False
            after.cookies.set(SESSION_COOKIE, session_id)
            clock.advance(minutes=6)

            answer = await after.get("/admin")

            assert answer.status_code == 303
            assert answer.headers["location"] == "/login?next=/admin"
            assert await restarted.sessions.get(session_id) is None
    finally:
        await restarted.close()
