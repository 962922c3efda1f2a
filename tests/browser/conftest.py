"""A real OnFile server process, a real identity provider process, and Debian's chromium.

`playwright install` cannot download browsers here, so the tests drive the `chromium` on the PATH
(`make test` installs Debian's package when it is missing). Without it the tests skip, except under
`CI=true`, where a browser test that did not run is a failure. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Playwright, sync_playwright

from tests.processes.servers import ServerProcess
from web.demo.content import DEMO_PEOPLE, seed_demo
from web.demo.oidc_mock import MockProvider
from web.services import open_services
from web.settings import Settings

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SECRET = "browser-test-secret-key-long-enough-0123456789"
AGENT_TOKEN = "browser-test-agent-token-0123456789"
"""The bearer token the served process accepts from agent runtimes."""
AT_SCALE = 10_000
"""How many memories Max holds on `server_at_scale`."""


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = shutil.which("chromium")
    if path is None:
        message = "Debian's chromium is not on the PATH (make test installs it with apt)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


# Playwright's sync API runs an event loop on this thread while it is open, so it must close with
# the browser tests' module, before other tests call asyncio.run.
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright: Playwright, chromium_path: str) -> Iterator[Browser]:
    launched = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
    yield launched
    launched.close()


@pytest.fixture(scope="session")
def identity_provider() -> Iterator[MockProvider]:
    provider = MockProvider().start()
    for person in DEMO_PEOPLE:
        provider.set_person(
            person.sub,
            {
                "name": person.name,
                "tenant": person.tenant,
                "roles": list(person.roles),
                "email": f"{person.sub}@x.test",
            },
        )
    yield provider
    provider.stop()


@pytest.fixture
def server(tmp_path: Path, identity_provider: MockProvider) -> Iterator[ServerProcess]:
    """The dashboard over a fresh copy of the demo's data, with the demo's sign-in page."""
    yield from _serve(tmp_path, identity_provider, max_memories=2_400)


@pytest.fixture
def server_at_scale(tmp_path: Path, identity_provider: MockProvider) -> Iterator[ServerProcess]:
    """The dashboard over the demo's data with Max holding 10,000 memories."""
    yield from _serve(tmp_path, identity_provider, max_memories=AT_SCALE)


def _serve(tmp_path: Path, identity_provider: MockProvider, *, max_memories: int) -> Iterator[ServerProcess]:
    database_url = f"sqlite+aiosqlite:///{tmp_path / 'browser.sqlite3'}"
    process = ServerProcess(
        {
            "ONFILE_DATABASE_URL": database_url,
            "ONFILE_SECRET_KEY": SECRET,
            "ONFILE_OIDC_ISSUER": identity_provider.issuer,
            "ONFILE_OIDC_CLIENT_ID": "onfile-browser",
            "ONFILE_OIDC_CLIENT_SECRET": "onfile-browser-secret",
            "ONFILE_AGENT_TOKENS": AGENT_TOKEN,
            "ONFILE_DEMO_SIGN_IN": "true",
        },
        tmp_path / "server.log",
    )
    settings = Settings(
        database_url=database_url,
        base_url=process.base_url,
        secret_key=SECRET,
        oidc_issuer=identity_provider.issuer,
        oidc_client_id="onfile-browser",
        oidc_client_secret="onfile-browser-secret",
    )
    # Playwright's sync API keeps an event loop on this thread, so the seeding runs on its own.
    seeding = threading.Thread(target=asyncio.run, args=(_seed(settings, max_memories),))
    seeding.start()
    seeding.join()
    yield process.start()
    process.stop()


async def _seed(settings: Settings, max_memories: int) -> None:
    services = await open_services(settings, migrate=True)
    try:
        await seed_demo(services, max_memories=max_memories)
    finally:
        await services.close()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
