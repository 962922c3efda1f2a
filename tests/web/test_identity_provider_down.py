"""The identity provider goes down while people are signing in and out: each page says so plainly and
offers to try again; signing out still ends the session here. (A provider unreachable from the start
is `test_login.py::test_an_unreachable_provider_is_said_plainly`.)"""

from __future__ import annotations

import html
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from web.app import create_app
from web.demo.oidc_mock import MockProvider
from web.kit.identity.sessions import SESSION_COOKIE, csrf_token
from web.services import Services, open_services
from web.settings import Settings

SECRET = "provider-down-secret-key-long-enough-0123456789"
BASE = "http://127.0.0.1:8000"
UNREACHABLE = "could not reach your organisation's sign-in service"


@pytest.fixture
def provider() -> Iterator[MockProvider]:
    mock = MockProvider().start()
    mock.set_person("ada", {"name": "Ada", "tenant": "berlin"})
    yield mock
    mock.stop()


@pytest.fixture
async def services(tmp_path: Path, provider: MockProvider) -> AsyncIterator[Services]:
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'down.sqlite3'}",
        base_url=BASE,
        secret_key=SECRET,
        oidc_issuer=provider.issuer,
        oidc_client_id="onfile-tests",
        oidc_client_secret="onfile-tests-secret",
    )
    opened = await open_services(settings, migrate=True)
    yield opened
    await opened.close()


@pytest.fixture
async def client(services: Services) -> AsyncIterator[AsyncTestClient[Litestar]]:
    async with AsyncTestClient(app=create_app(services.settings, services=services), base_url=BASE) as test_client:
        test_client.follow_redirects = False
        yield test_client


def local(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def said(response: httpx.Response) -> str:
    text = html.unescape(response.text)
    assert 'data-action="retry-login"' in text
    return text


async def test_a_provider_that_goes_down_mid_sign_in_is_said_plainly_with_a_way_to_retry(
    client: AsyncTestClient[Litestar], provider: MockProvider
) -> None:
    start = await client.get("/login", params={"next": "/"})
    callback = local(provider.authorize(start.headers["location"], "ada"))
    provider.stop()  # the person is on their way back; the code can no longer be exchanged

    back = await client.get(callback)
    again = await client.get("/login", params={"next": "/"})

    assert back.status_code in {400, 503}
    assert UNREACHABLE in said(back)
    assert SESSION_COOKIE not in client.cookies
    # discovery is cached, so a new sign-in still starts; it is the provider's own page that is down
    assert again.status_code in {303, 503}


async def test_signing_out_while_the_provider_is_down_still_ends_the_session_here(
    client: AsyncTestClient[Litestar], provider: MockProvider, services: Services
) -> None:
    start = await client.get("/login", params={"next": "/"})
    await client.get(local(provider.authorize(start.headers["location"], "ada")))
    session_id = client.cookies[SESSION_COOKIE]
    provider.stop()

    out = await client.post("/logout", data={"csrf_token": csrf_token(SECRET, session_id)})

    assert out.status_code == 303
    # The session is over here whatever the provider says. Discovery is cached, but signing out asks
    # afresh, so the browser is not sent on to an end-session page that does not answer.
    assert out.headers["location"] == "/signed-out"
    assert await services.sessions.get(session_id) is None
