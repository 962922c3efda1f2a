"""A person's name comes from their ID token at each login, through a real OpenID Connect provider:
the `name` claim, else `preferred_username`, else their id — never their email — plain visible text
whatever the provider sent. An agent call, which knows no name, keeps the one a login brought."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from tests.web.admin_builders import tree
from tests.web.oidc_flow import BASE, log_in, settings_for
from web.app import create_app
from web.demo.oidc_mock import MockProvider
from web.services import Services, open_services
from web.settings import Settings

AGENT_TOKEN = "agent-token-for-the-name-tests-0123456789"
LENA = {"name": "Lena Vogt", "tenant": "berlin", "groups": ["onfile-admin"]}


@pytest.fixture(scope="module")
def provider() -> Iterator[MockProvider]:
    mock = MockProvider().start()
    mock.set_person("lena", LENA)
    yield mock
    mock.stop()


@pytest.fixture
def settings(tmp_path: Path, provider: MockProvider) -> Settings:
    return settings_for(tmp_path, provider.issuer).replace(agent_tokens=AGENT_TOKEN)


@pytest.fixture
async def services(settings: Settings) -> AsyncIterator[Services]:
    opened = await open_services(settings, migrate=True)
    yield opened
    await opened.close()


@pytest.fixture
async def client(settings: Settings, services: Services) -> AsyncIterator[AsyncTestClient[Litestar]]:
    async with AsyncTestClient(app=create_app(settings, services=services), base_url=BASE) as test_client:
        test_client.follow_redirects = False  # a browser leaves for the provider; the test plays that part
        yield test_client


async def people_page_names(client: AsyncTestClient[Litestar], provider: MockProvider) -> dict[str, str]:
    """How Lena's list of people names each of them, logged in as her."""
    await log_in(client, provider, "lena")
    page = tree(await client.get("/admin/people"))
    return {
        li["data-person"]: li.one(attrs={"data-named": True}).text for li in page.find_all("li", {"data-person": True})
    }


async def test_the_name_comes_from_the_id_token_and_changes_when_the_provider_s_does(
    client: AsyncTestClient[Litestar], provider: MockProvider, services: Services
) -> None:
    claims = {"preferred_username": "ada.l", "email": "ada@example.com", "tenant": "berlin"}
    provider.set_person("ada", {**claims, "name": "Ada Lovelace"})
    await log_in(client, provider, "ada")
    first = await people_page_names(client, provider)

    provider.set_person("ada", {**claims, "name": "Ada King"})
    await log_in(client, provider, "ada")
    header = tree(await client.get("/")).one(attrs={"data-viewer-name": True}).text
    second = await people_page_names(client, provider)

    assert first == {"lena": "Lena Vogt (lena)", "ada": "Ada Lovelace (ada)"}
    assert header == "Ada King"
    assert second == {"lena": "Lena Vogt (lena)", "ada": "Ada King (ada)"}
    assert await services.people.names_of(["ada", "lena"]) == {"ada": "Ada King", "lena": "Lena Vogt"}


async def test_without_a_name_the_username_names_them_and_without_that_their_id_never_their_email(
    client: AsyncTestClient[Litestar], provider: MockProvider, services: Services
) -> None:
    provider.set_person("bea", {"preferred_username": "bea.k", "email": "bea@example.com", "tenant": "berlin"})
    provider.set_person("cy", {"email": "cy@example.com", "tenant": "berlin"})
    await log_in(client, provider, "bea")
    await log_in(client, provider, "cy")

    shown = await people_page_names(client, provider)

    assert await services.people.names_of(["bea", "cy"]) == {"bea": "bea.k", "cy": "cy"}
    assert (shown["bea"], shown["cy"]) == ("bea.k (bea)", "cy")


async def test_control_and_direction_characters_never_reach_the_stored_name(
    client: AsyncTestClient[Litestar], provider: MockProvider, services: Services
) -> None:
    provider.set_person("dov", {"name": "\u202eDov\x00 \n Levi\u2066\u200b", "tenant": "berlin"})
    provider.set_person("eli", {"name": "\u202e\u2069 ", "preferred_username": "eli.m", "tenant": "berlin"})
    await log_in(client, provider, "dov")
    await log_in(client, provider, "eli")

    assert await services.people.names_of(["dov", "eli"]) == {"dov": "Dov Levi", "eli": "eli.m"}


async def test_an_agent_call_for_the_person_keeps_the_name_their_login_brought(
    client: AsyncTestClient[Litestar], provider: MockProvider, services: Services
) -> None:
    provider.set_person("fay", {"name": "Fay Wray", "tenant": "berlin"})
    await log_in(client, provider, "fay")
    body = {"actor": {"id": "fay", "tenantRef": "berlin", "roles": ["staff"]}, "threadId": "thr_1", "text": "hi"}

    answer = await client.post(
        "/agent/runs/run_1/digest", json=body, headers={"Authorization": f"Bearer {AGENT_TOKEN}"}
    )

    assert answer.status_code == 200
    assert await services.people.names_of(["fay"]) == {"fay": "Fay Wray"}
    assert (await people_page_names(client, provider))["fay"] == "Fay Wray (fay)"
