"""The demo's own sign-in page in front of a real local identity provider process, and a real
deployment's /login, which goes straight to its provider."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from tests.web.html_tree import parse
from tests.web.oidc_flow import BASE, SECRET, local, settings_for
from web.app import create_app
from web.demo.content import DEMO_PEOPLE
from web.demo.oidc_mock import MockProvider, free_port
from web.demo.sign_in import demo_sign_in_for
from web.kit.identity.sessions import SESSION_COOKIE, csrf_token
from web.services import Services, open_services
from web.settings import Settings, SettingsError


@pytest.fixture(scope="module")
def provider() -> Iterator[MockProvider]:
    mock = MockProvider().start()
    for person in DEMO_PEOPLE:
        mock.set_person(person.sub, {"name": person.name, "tenant": person.tenant, "roles": list(person.roles)})
    yield mock
    mock.stop()


@pytest.fixture
async def demo(tmp_path: Path, provider: MockProvider) -> AsyncIterator[tuple[AsyncTestClient[Litestar], Services]]:
    settings = settings_for(tmp_path, provider.issuer).replace(demo_sign_in=True)
    services = await open_services(settings, migrate=True)
    app = create_app(settings, services=services, demo_sign_in=demo_sign_in_for(settings))
    async with AsyncTestClient(app=app, base_url=BASE) as client:
        client.follow_redirects = False
        yield client, services
    await services.close()


@pytest.fixture
async def real(tmp_path: Path, provider: MockProvider) -> AsyncIterator[AsyncTestClient[Litestar]]:
    settings = settings_for(tmp_path, provider.issuer)
    services = await open_services(settings, migrate=True)
    async with AsyncTestClient(app=create_app(settings, services=services), base_url=BASE) as client:
        client.follow_redirects = False
        yield client
    await services.close()


async def test_the_demo_sign_in_page_lists_each_demo_person_with_what_they_are_and_one_button(
    demo: tuple[AsyncTestClient[Litestar], Services],
) -> None:
    client, _ = demo
    page = await client.get("/login")

    assert page.status_code == 200
    tree = parse(page.text)
    buttons = tree.find_all("button", {"data-action": "sign-in-as"})
    assert [b["value"] for b in buttons] == [p.sub for p in DEMO_PEOPLE]
    for person in DEMO_PEOPLE:
        row = tree.one("li", {"data-person": person.sub})
        assert person.name in row.text
        assert person.who in row.text
    form = tree.one("form", {"data-sign-in-form": True})
    assert (form["method"], form["action"]) == ("get", "/login")


async def test_a_demo_button_runs_the_code_flow_at_the_local_provider_and_signs_that_person_in(
    demo: tuple[AsyncTestClient[Litestar], Services],
) -> None:
    client, services = demo
    pressed = await client.get("/login", params={"person": "sam", "next": "/support/preview"})

    assert pressed.status_code == 303
    callback = pressed.headers["location"]
    assert callback.startswith(f"{BASE}/auth/callback?")
    assert set(parse_qs(urlsplit(callback).query)) == {"code", "state"}  # the provider's code, for our state
    back = await client.get(local(callback))
    assert (back.status_code, back.headers["location"]) == (303, "/support/preview")
    session = await services.sessions.get(client.cookies[SESSION_COOKIE])
    assert session is not None
    assert session.data["actor"] == {"id": "sam", "tenant_ref": "berlin", "roles": ["onfile-support"]}
    assert session.data["name"] == "Sam Okafor"


async def test_the_code_the_provider_issued_is_exchanged_once_so_a_replayed_callback_signs_nobody_in(
    demo: tuple[AsyncTestClient[Litestar], Services],
) -> None:
    client, _ = demo
    callback = local((await client.get("/login", params={"person": "ada"})).headers["location"])
    first = await client.get(callback)
    assert first.status_code == 303
    client.cookies.delete(SESSION_COOKIE)

    again = await client.get(callback)

    assert again.status_code == 400
    assert SESSION_COOKIE not in client.cookies


async def test_an_unknown_person_on_the_demo_sign_in_page_is_told_plainly_and_offered_the_list(
    demo: tuple[AsyncTestClient[Litestar], Services],
) -> None:
    client, _ = demo
    page = await client.get("/login", params={"person": "mallory"})

    assert page.status_code == 400
    tree = parse(page.text)
    assert "No one with the id “mallory” is in this demo" in tree.one(attrs={"data-error": True}).text
    assert len(tree.find_all("button", {"data-action": "sign-in-as"})) == len(DEMO_PEOPLE)
    assert "location" not in page.headers


async def test_signing_out_of_the_demo_ends_on_onfiles_signed_out_page_without_the_providers(
    demo: tuple[AsyncTestClient[Litestar], Services],
) -> None:
    client, services = demo
    await client.get(local((await client.get("/login", params={"person": "ada"})).headers["location"]))
    session_id = client.cookies[SESSION_COOKIE]

    out = await client.post("/logout", data={"csrf_token": csrf_token(SECRET, session_id)})

    assert (out.status_code, out.headers["location"]) == (303, "/signed-out")
    assert await services.sessions.get(session_id) is None


async def test_a_real_deployments_login_goes_straight_to_its_provider_whatever_person_is_asked(
    real: AsyncTestClient[Litestar], provider: MockProvider
) -> None:
    for params in ({}, {"person": "ada"}):
        response = await real.get("/login", params=params)

        assert response.status_code == 303
        assert response.headers["location"].startswith(f"{provider.issuer}/oauth2/authorize?")


def test_the_demo_sign_in_refuses_to_start_with_a_provider_that_is_not_on_loopback(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, "https://login.example.com").replace(demo_sign_in=True)

    with pytest.raises(SettingsError, match="ONFILE_DEMO_SIGN_IN"):
        settings.require_server_settings()


def test_the_demo_sign_in_page_is_given_exactly_when_the_setting_asks_for_it(tmp_path: Path) -> None:
    on = settings_for(tmp_path, "http://127.0.0.1:9").replace(demo_sign_in=True)
    off = settings_for(tmp_path, "http://127.0.0.1:9")

    assert demo_sign_in_for(off) is None
    with pytest.raises(ValueError, match="go together"):
        create_app(on)
    with pytest.raises(ValueError, match="go together"):
        create_app(off, demo_sign_in=demo_sign_in_for(on))
    assert Settings.from_mapping({"ONFILE_DEMO_SIGN_IN": "true"}).demo_sign_in


async def test_a_demo_button_while_the_local_provider_is_down_says_so_and_offers_to_try_again(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, f"http://127.0.0.1:{free_port()}").replace(demo_sign_in=True)
    services = await open_services(settings, migrate=True)
    app = create_app(settings, services=services, demo_sign_in=demo_sign_in_for(settings))
    async with AsyncTestClient(app=app, base_url=BASE) as client:
        response = await client.get("/login", params={"person": "ada"}, follow_redirects=False)
    await services.close()

    assert response.status_code == 503
    page = parse(response.text)
    assert page.one(attrs={"data-testid": "login-error"}) is not None
    assert page.one("a", {"data-action": "retry-login"})["href"] == "/login"


async def test_the_signed_out_page_opened_while_signed_in_says_who_still_is_and_signs_out(
    demo: tuple[AsyncTestClient[Litestar], Services],
) -> None:
    client, services = demo
    await client.get(local((await client.get("/login", params={"person": "ada"})).headers["location"]))
    session_id = client.cookies[SESSION_COOKIE]

    still = parse((await client.get("/signed-out")).text)

    assert still.find(attrs={"data-testid": "signed-out"}) is None
    assert still.one(attrs={"data-still-signed-in": True}).text == "Ada Lindqvist"
    assert still.one("h1").text == "You are still signed in"
    token = still.one("main").one("form", {"action": "/logout"}).one("input", {"name": "csrf_token"})["value"]
    out = await client.post("/logout", data={"csrf_token": token})
    assert (out.status_code, out.headers["location"]) == (303, "/signed-out")
    assert await services.sessions.get(session_id) is None
    after = parse((await client.get("/signed-out")).text)
    assert after.one(attrs={"data-testid": "signed-out"}).one("h1").text == "You are signed out"


async def test_the_demo_sign_in_page_says_who_is_signed_in_already(
    demo: tuple[AsyncTestClient[Litestar], Services],
) -> None:
    client, _ = demo
    signed_out = parse((await client.get("/login")).text)
    await client.get(local((await client.get("/login", params={"person": "ada"})).headers["location"]))

    signed_in = parse((await client.get("/login")).text)

    assert signed_out.find(attrs={"data-signed-in-already": True}) is None
    assert signed_out.find(attrs={"data-account": True}) is None
    assert "Ada Lindqvist" in signed_in.one(attrs={"data-signed-in-already": True}).text
    assert signed_in.one(attrs={"data-account": True}).one(attrs={"data-viewer-name": True}).text == "Ada Lindqvist"
    assert len(signed_in.find_all("button", {"data-action": "sign-in-as"})) == len(DEMO_PEOPLE)
