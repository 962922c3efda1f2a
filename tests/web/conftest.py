"""An application over a fresh SQLite database, and people logged in to it without a browser.

`login_as` creates a dashboard session directly (the OIDC flow itself is tested on its own, against
a real identity provider process), so most web tests run at HTTP speed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Protocol

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor
from web.app import create_app
from web.kit.identity.oidc import Person
from web.kit.identity.sessions import SESSION_COOKIE, csrf_token, start_session
from web.services import Services, open_services
from web.settings import Settings

SECRET = "test-secret-key-that-is-long-enough-0123456789"
AGENT_TOKEN = "agent-token-current-0123456789"
AGENT_TOKEN_OLD = "agent-token-previous-0123456789"


class LoginAs(Protocol):
    """Log `actor` in on the test client under `name` (as their ID token would name them; their id in
    title case when none is given); returns the CSRF token for unsafe requests."""

    def __call__(self, actor: Actor, *, name: str | None = None) -> Awaitable[str]: ...


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'onfile.sqlite3'}",
        base_url="http://127.0.0.1:8000",
        secret_key=SECRET,
        oidc_issuer="http://127.0.0.1:1",  # nothing listens there: the flow is tested separately
        oidc_client_id="onfile",
        oidc_client_secret="client-secret",
        conversation_url="https://chat.example.com/threads/{thread_id}#{run_id}",
        agent_tokens=f"{AGENT_TOKEN_OLD}, {AGENT_TOKEN}",
    )


@pytest.fixture
async def services(settings: Settings) -> AsyncIterator[Services]:
    opened = await open_services(settings, migrate=True)
    try:
        yield opened
    finally:
        await opened.close()


@pytest.fixture
def app(settings: Settings, services: Services) -> Litestar:
    return create_app(settings, services=services)


@pytest.fixture
async def client(app: Litestar) -> AsyncIterator[AsyncTestClient[Litestar]]:
    async with AsyncTestClient(app=app, base_url="http://127.0.0.1:8000") as test_client:
        yield test_client


@pytest.fixture
def login_as(services: Services, client: AsyncTestClient[Litestar]) -> LoginAs:
    async def login(actor: Actor, *, name: str | None = None) -> str:
        person = Person(actor=actor, name=name or actor.id.title(), email=f"{actor.id}@example.com", id_token="")
        session_id = await start_session(services, person, client.cookies.get(SESSION_COOKIE))
        client.cookies.set(SESSION_COOKIE, session_id)
        return csrf_token(SECRET, session_id)

    return login
