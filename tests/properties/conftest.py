"""One application over SQLite per property test, reseeded for every generated world.

The deployment's resolver is `DepotResolver` (a minted `depot:` scope between the person and their
organisation), named in the settings as an operator names it, so every path — the agent API, the
read-back, the pages, the preview and the elevated area — answers from it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor
from tests.properties.world import PERSON_IDS, SCOPE_POOL, World
from tests.web.conftest import AGENT_TOKEN, SECRET
from web.app import create_app
from web.kit.identity.oidc import Person
from web.kit.identity.sessions import SESSION_COOKIE, csrf_token, start_session
from web.services import Services, open_services
from web.settings import Settings

AGENT = {"Authorization": f"Bearer {AGENT_TOKEN}"}


@pytest.fixture
def world_settings(tmp_path: Path) -> Settings:
    return Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'worlds.sqlite3'}",
        secret_key=SECRET,
        oidc_issuer="http://127.0.0.1:1",  # never asked: sessions are started directly
        oidc_client_id="onfile",
        oidc_client_secret="client-secret",
        agent_tokens=AGENT_TOKEN,
        scope_resolver="tests.properties.world:DepotResolver",
    )


@pytest.fixture
async def world_services(world_settings: Settings) -> AsyncIterator[Services]:
    opened = await open_services(world_settings, migrate=True)
    try:
        yield opened
    finally:
        await opened.close()


@pytest.fixture
async def world_client(world_settings: Settings, world_services: Services) -> AsyncIterator[AsyncTestClient[Litestar]]:
    app = create_app(world_settings, services=world_services)
    async with AsyncTestClient(app=app, base_url="http://127.0.0.1:8000") as client:
        yield client


async def reseed(services: Services, world: World) -> None:
    """The store holds exactly the world's records, and knows exactly the world's people, each in
    their own organisation."""
    for scope in SCOPE_POOL:
        await services.provider.retire_scope(scope)
    await services.provider.add(world.records)
    for person_id in PERSON_IDS:
        await services.people.forget(person_id)
    for person in world.people:
        await services.people.note(person, signed_in=True)


async def log_in(services: Services, client: AsyncTestClient[Litestar], actor: Actor) -> str:
    """`actor` is now the client's session; returns the CSRF token for unsafe requests."""
    person = Person(actor=actor, name=actor.id, email=f"{actor.id}@example.com", id_token="")
    session_id = await start_session(services, person, client.cookies.get(SESSION_COOKIE))
    client.cookies.set(SESSION_COOKIE, session_id)
    return csrf_token(SECRET, session_id)


def actor_json(actor: Actor) -> dict[str, object]:
    return {"id": actor.id, "tenantRef": actor.tenant_ref, "roles": list(actor.roles)}
