"""`/metrics` and the API document are open by default and closed to the public by one setting,
`ONFILE_OPERATOR_TOKENS`: then only a request presenting one of those tokens reads them."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from tests.web.conftest import AGENT_TOKEN
from web.app import create_app
from web.services import Services, open_services
from web.settings import Settings

OPERATOR = "operator-token-0123456789"
OPERATOR_NEXT = "operator-token-next-0123456789"
CLOSED = ("/metrics", "/schema", "/schema/openapi.json")


@pytest.fixture
async def closed(settings: Settings) -> AsyncIterator[AsyncTestClient[Litestar]]:
    closed = settings.replace(operator_tokens=f"{OPERATOR}, {OPERATOR_NEXT}")
    services: Services = await open_services(closed, migrate=True)
    try:
        async with AsyncTestClient(app=create_app(closed, services=services), base_url=closed.base_url) as client:
            yield client
    finally:
        await services.close()


@pytest.mark.parametrize("path", CLOSED)
async def test_open_to_everyone_by_default(client: AsyncTestClient[Litestar], path: str) -> None:
    assert (await client.get(path)).status_code == 200


@pytest.mark.parametrize("path", CLOSED)
async def test_closed_by_the_setting_to_all_but_the_operators(closed: AsyncTestClient[Litestar], path: str) -> None:
    anonymous = await closed.get(path)
    agent = await closed.get(path, headers={"Authorization": f"Bearer {AGENT_TOKEN}"})
    not_bearer = await closed.get(path, headers={"Authorization": f"Basic {OPERATOR}"})
    operator = await closed.get(path, headers={"Authorization": f"Bearer {OPERATOR}"})
    rotated = await closed.get(path, headers={"Authorization": f"Bearer {OPERATOR_NEXT}"})

    for refused in (anonymous, agent, not_bearer):
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"] == 'Bearer realm="onfile-operator"'
        assert "ONFILE_OPERATOR_TOKENS" in refused.json()["error"]
        assert "onfile_" not in refused.text  # not a metric leaked alongside
    assert operator.status_code == rotated.status_code == 200


async def test_what_the_setting_does_not_close_stays_open(closed: AsyncTestClient[Litestar]) -> None:
    assert (await closed.get("/healthz")).status_code == 200
    ready = await closed.get("/readyz")
    assert (ready.status_code, ready.json()) == (200, {"status": "ready"})
    assert ready.headers["cache-control"] == "no-store"
    assert (await closed.get("/login", follow_redirects=False)).status_code in {303, 503}
    assert (await closed.get("/metricsx")).status_code == 404


@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
async def test_a_probe_may_ask_with_head(client: AsyncTestClient[Litestar], path: str) -> None:
    """Load balancers and uptime checks often probe with HEAD: the same status, no body."""
    answer = await client.head(path)
    asked = await client.get(path)

    assert answer.status_code == 200
    assert answer.content == b""
    assert answer.headers["content-length"] == asked.headers["content-length"]
