"""`onfile demo`: a seeded database, a local identity provider on loopback, and the dashboard."""

from __future__ import annotations

import asyncio
from pathlib import Path

import uvicorn

from web.app import create_app
from web.demo import DEMO_PEOPLE, demo_database, demo_secret, seed_demo
from web.oidc_mock import MockProvider
from web.services import open_services
from web.settings import Settings

__all__ = ("run_demo",)


def run_demo(*, port: int, folder: Path) -> int:
    provider = MockProvider().start()
    try:
        for person in DEMO_PEOPLE:
            provider.set_person(
                person.sub,
                {
                    "name": person.name,
                    "email": f"{person.sub}@example.com",
                    "tenant": person.tenant,
                    "roles": list(person.roles),
                },
            )
        settings = Settings(
            database_url=demo_database(folder),
            base_url=f"http://127.0.0.1:{port}",
            secret_key=demo_secret(),
            oidc_issuer=provider.issuer,
            oidc_client_id="onfile-demo",
            oidc_client_secret="onfile-demo-secret",  # noqa: S106 - the local development provider's
        )
        asyncio.run(_seed(settings))
        print(_banner(settings, provider.issuer))
        uvicorn.run(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
    finally:
        provider.stop()
    return 0


async def _seed(settings: Settings) -> None:
    services = await open_services(settings, migrate=True)
    try:
        await seed_demo(services)
    finally:
        await services.close()


def _banner(settings: Settings, issuer: str) -> str:
    people = "\n".join(f"    {p.sub:<6} {p.name:<14} {p.who}" for p in DEMO_PEOPLE)
    return (
        f"\nOnFile demo: open {settings.base_url}/ and sign in.\n"
        f"The local sign-in page ({issuer}) asks for a user id; use one of:\n{people}\n"
        "Stop with Ctrl-C.\n"
    )
