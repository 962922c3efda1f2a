"""What the browser tests and the screenshots both start: the local identity provider with the demo
people, and `onfile serve` over a freshly seeded copy of the demo's data, with the demo's sign-in
page."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.processes.servers import ServerProcess
from web.demo.content import DEMO_PEOPLE, seed_demo
from web.demo.oidc_mock import MockProvider
from web.services import open_services
from web.settings import Settings

__all__ = ("AGENT_TOKEN", "DATABASE_FILE", "SECRET", "demo_provider", "demo_server")

SECRET = "browser-test-secret-key-long-enough-0123456789"
AGENT_TOKEN = "browser-test-agent-token-0123456789"
DATABASE_FILE = "browser.sqlite3"
"""The SQLite file `demo_server` serves, in its folder (a test may change it under the server)."""
_CLIENT_ID = "onfile-browser"
_CLIENT_SECRET = "onfile-browser-secret"


@contextmanager
def demo_provider() -> Iterator[MockProvider]:
    """The local identity provider, knowing each demo person with their name, organisation and roles."""
    provider = MockProvider().start()
    try:
        for person in DEMO_PEOPLE:
            claims = {"name": person.name, "tenant": person.tenant, "roles": list(person.roles)}
            provider.set_person(person.sub, {**claims, "email": f"{person.sub}@x.test"})
        yield provider
    finally:
        provider.stop()


@contextmanager
def demo_server(folder: Path, provider: MockProvider, *, max_memories: int = 2_400) -> Iterator[ServerProcess]:
    """`onfile serve` over the demo's data seeded into a fresh database in `folder` (Max holding
    `max_memories`), signing people in through `provider`; the agent API accepts `AGENT_TOKEN`."""
    database_url = f"sqlite+aiosqlite:///{folder / DATABASE_FILE}"
    process = ServerProcess(
        {
            "ONFILE_DATABASE_URL": database_url,
            "ONFILE_SECRET_KEY": SECRET,
            "ONFILE_OIDC_ISSUER": provider.issuer,
            "ONFILE_OIDC_CLIENT_ID": _CLIENT_ID,
            "ONFILE_OIDC_CLIENT_SECRET": _CLIENT_SECRET,
            "ONFILE_AGENT_TOKENS": AGENT_TOKEN,
            "ONFILE_DEMO_SIGN_IN": "true",
        },
        folder / "server.log",
    )
    settings = Settings(
        database_url=database_url,
        base_url=process.base_url,
        secret_key=SECRET,
        oidc_issuer=provider.issuer,
        oidc_client_id=_CLIENT_ID,
        oidc_client_secret=_CLIENT_SECRET,
    )
    # Playwright's sync API may keep an event loop on this thread, so the seeding runs on its own.
    seeding = threading.Thread(target=asyncio.run, args=(_seed(settings, max_memories),))
    seeding.start()
    seeding.join()
    process.start()
    try:
        yield process
    finally:
        process.stop()


async def _seed(settings: Settings, max_memories: int) -> None:
    services = await open_services(settings, migrate=True)
    try:
        await seed_demo(services, max_memories=max_memories)
    finally:
        await services.close()
