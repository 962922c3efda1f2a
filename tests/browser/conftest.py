"""A real OnFile server process, a real identity provider process, and Debian's chromium.

`playwright install` cannot download browsers here, so the tests drive the `chromium` on the PATH
(`make test` installs Debian's package when it is missing). Without it the tests skip, except under
`CI=true`, where a browser test that did not run is a failure. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Playwright, sync_playwright

from tests.browser.demo_server import demo_provider, demo_server
from tests.processes.servers import ServerProcess
from web.demo.oidc_mock import MockProvider

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
    with demo_provider() as provider:
        yield provider


@pytest.fixture
def server(tmp_path: Path, identity_provider: MockProvider) -> Iterator[ServerProcess]:
    """The dashboard over a fresh copy of the demo's data, with the demo's sign-in page."""
    with demo_server(tmp_path, identity_provider) as process:
        yield process


@pytest.fixture
def server_at_scale(tmp_path: Path, identity_provider: MockProvider) -> Iterator[ServerProcess]:
    """The dashboard over the demo's data with Max holding 10,000 memories."""
    with demo_server(tmp_path, identity_provider, max_memories=AT_SCALE) as process:
        yield process


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
