"""Logging in through a real OpenID Connect provider process (`web.demo.oidc_mock.MockProvider`), with the
test client playing the browser: the settings for it, and the steps a browser takes."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from litestar import Litestar
from litestar.testing import AsyncTestClient

from web.demo.oidc_mock import MockProvider
from web.settings import Settings

__all__ = ("BASE", "SECRET", "local", "log_in", "settings_for", "start_login")

SECRET = "login-test-secret-key-long-enough-0123456789"
BASE = "http://127.0.0.1:8000"


def settings_for(tmp_path: Path, issuer: str) -> Settings:
    return Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'login.sqlite3'}",
        base_url=BASE,
        secret_key=SECRET,
        oidc_issuer=issuer,
        oidc_client_id="onfile-tests",
        oidc_client_secret="onfile-tests-secret",
    )


def local(url: str) -> str:
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}" == BASE
    return f"{parts.path}?{parts.query}" if parts.query else parts.path


async def start_login(client: AsyncTestClient[Litestar], next_path: str = "/agent/memories") -> str:
    response = await client.get("/login", params={"next": next_path})
    assert response.status_code == 303
    return response.headers["location"]


async def log_in(client: AsyncTestClient[Litestar], provider: MockProvider, sub: str) -> None:
    """The whole flow for `sub`, as the provider's claims for them stand now; the client keeps the session."""
    back = await client.get(local(provider.authorize(await start_login(client, "/"), sub)))
    assert back.status_code == 303, back.text
