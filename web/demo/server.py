"""`onfile demo`: a seeded database, a local identity provider on loopback, and the dashboard."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

import uvicorn

from web.app import create_app
from web.demo.content import DEMO_PEOPLE, demo_database, demo_secret, refuse_ports_in_use, seed_demo
from web.demo.oidc_mock import MockProvider
from web.demo.sign_in import demo_sign_in_for
from web.services import open_services
from web.settings import Settings

__all__ = ("run_demo",)


def run_demo(*, port: int, folder: Path) -> int:
    """Serve the demo until stopped. A port already in use is refused before any file is touched or
    anything printed. The identity provider is stopped on every way out (Ctrl-C, SIGTERM, SIGHUP, an
    error), never left running on its own."""
    provider = MockProvider()
    refuse_ports_in_use({"dashboard": port, "identity provider": provider.port})
    with _signals_exit():
        try:
            return _serve_demo(provider, port=port, folder=folder)
        finally:
            provider.stop()


@contextmanager
def _signals_exit() -> Iterator[None]:
    """SIGTERM raises SystemExit while the block runs, so that `finally` blocks run; SIGHUP is taken
    for SIGTERM. By default both end the process on the spot, and uvicorn, which catches SIGTERM to
    shut down gracefully, raises it again once it has: that ended the demo without its `finally`."""

    def exit_on(signum: int, _frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    def terminate(_signum: int, _frame: FrameType | None) -> None:
        signal.raise_signal(signal.SIGTERM)  # while uvicorn serves, its graceful shutdown answers

    previous = {
        signal.SIGTERM: signal.signal(signal.SIGTERM, exit_on),
        signal.SIGHUP: signal.signal(signal.SIGHUP, terminate),
    }
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _serve_demo(provider: MockProvider, *, port: int, folder: Path) -> int:
    provider.start()
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
        agent_tokens=demo_secret(),  # this run's alone, printed below for an agent runtime to try
        oidc_issuer=provider.issuer,
        oidc_client_id="onfile-demo",
        oidc_client_secret="onfile-demo-secret",  # noqa: S106 - the local development provider's
        demo_sign_in=True,
    )
    asyncio.run(_seed(settings))
    print(_banner(settings, provider.issuer))
    app = create_app(settings, demo_sign_in=demo_sign_in_for(settings))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
    return 0


async def _seed(settings: Settings) -> None:
    services = await open_services(settings, migrate=True)
    try:
        await seed_demo(services)
    finally:
        await services.close()


def _banner(settings: Settings, issuer: str) -> str:
    people = "\n".join(f"    {p.sub:<6} {p.name:<14} {p.who}" for p in DEMO_PEOPLE)
    [token] = settings.agent_token_list
    body = '{"actor": {"id": "ada", "tenantRef": "berlin"}, "threadId": "thr_1", "text": "How far is the depot?"}'
    return (
        f"\nOnFile demo: open {settings.base_url}/ and choose whom to sign in as:\n{people}\n"
        f"(Each button signs in through the demo's local identity provider at {issuer}.)\n"
        f"An agent runtime calls it with this run's token, {token}, as in:\n"
        f"    curl -X POST {settings.base_url}/agent/runs/run_1/digest \\\n"
        f'      -H "Authorization: Bearer {token}" -H "Content-Type: application/json" \\\n'
        f"      -d '{body}'\n"
        "Stop with Ctrl-C.\n"
    )
