"""Logging in with a real OpenID Connect provider process: the flow, each way it fails, logout."""

from __future__ import annotations

import html
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import closing
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey
from litestar import Litestar
from litestar.testing import AsyncTestClient

from tests.web.oidc_flow import BASE, SECRET, local, settings_for, start_login
from web.app import create_app
from web.demo.oidc_mock import MockProvider, free_port
from web.kit.identity.oidc import LoginError, LoginTransaction, OidcClient
from web.kit.identity.sessions import SESSION_COOKIE, csrf_token
from web.services import Services, open_services


@pytest.fixture(scope="module")
def provider() -> Iterator[MockProvider]:
    mock = MockProvider().start()
    mock.set_person("ada", {"name": "Ada Lovelace", "email": "ada@example.com", "tenant": "berlin", "roles": ["staff"]})
    mock.set_person("lena", {"name": "Lena", "tenant": "berlin", "groups": ["onfile-admin"]})
    yield mock
    mock.stop()


@pytest.fixture
async def services(tmp_path: Path, provider: MockProvider) -> AsyncIterator[Services]:
    opened = await open_services(settings_for(tmp_path, provider.issuer), migrate=True)
    yield opened
    await opened.close()


@pytest.fixture
async def client(
    tmp_path: Path, provider: MockProvider, services: Services
) -> AsyncIterator[AsyncTestClient[Litestar]]:
    app = create_app(settings_for(tmp_path, provider.issuer), services=services)
    async with AsyncTestClient(app=app, base_url=BASE) as test_client:
        test_client.follow_redirects = False  # a browser leaves for the provider; the test plays that part
        yield test_client


async def test_a_person_logs_in_with_pkce_state_and_nonce_and_lands_where_they_were_going(
    client: AsyncTestClient[Litestar], provider: MockProvider, services: Services
) -> None:
    authorize = await start_login(client)
    query = parse_qs(urlsplit(authorize).query)
    assert authorize.startswith(f"{provider.issuer}/oauth2/authorize")
    assert query["code_challenge_method"] == ["S256"]
    assert all(query[name][0] for name in ("code_challenge", "nonce", "state"))
    assert query["client_id"] == ["onfile-tests"]

    back = await client.get(local(provider.authorize(authorize, "ada")))

    assert back.status_code == 303
    assert back.headers["location"] == "/agent/memories"
    session = await services.sessions.get(client.cookies[SESSION_COOKIE])
    assert session is not None
    assert session.data["actor"] == {"id": "ada", "tenant_ref": "berlin", "roles": ["staff"]}
    assert session.data["name"] == "Ada Lovelace"
    assert (await client.get("/agent/memories")).status_code == 200


async def test_the_session_cookie_is_http_only_and_same_site_lax(
    client: AsyncTestClient[Litestar], provider: MockProvider
) -> None:
    back = await client.get(local(provider.authorize(await start_login(client), "ada")))

    cookie = next(h for h in back.headers.get_list("set-cookie") if h.startswith(f"{SESSION_COOKIE}="))
    assert "HttpOnly" in cookie
    assert "SameSite=lax" in cookie or "SameSite=Lax" in cookie
    assert "Secure" not in cookie  # the base URL is http


async def test_roles_are_read_from_the_groups_claim_too(
    client: AsyncTestClient[Litestar], provider: MockProvider, services: Services
) -> None:
    await client.get(local(provider.authorize(await start_login(client), "lena")))

    session = await services.sessions.get(client.cookies[SESSION_COOKIE])
    assert session is not None
    assert session.data["actor"]["roles"] == ["onfile-admin"]


async def test_the_session_id_rotates_at_login_and_the_old_one_stops_working(
    client: AsyncTestClient[Litestar], provider: MockProvider, services: Services
) -> None:
    await client.get(local(provider.authorize(await start_login(client), "ada")))
    first = client.cookies[SESSION_COOKIE]
    await client.get(local(provider.authorize(await start_login(client), "ada")))
    second = client.cookies[SESSION_COOKIE]

    assert first != second
    assert await services.sessions.get(first) is None
    assert await services.sessions.get(second) is not None


async def test_a_sign_in_that_finds_the_roles_changed_ends_the_persons_other_sessions(
    client: AsyncTestClient[Litestar], provider: MockProvider, services: Services
) -> None:
    provider.set_person("nina", {"name": "Nina", "tenant": "berlin", "roles": ["onfile-admin"]})
    await client.get(local(provider.authorize(await start_login(client), "nina")))
    elsewhere = client.cookies[SESSION_COOKIE]
    client.cookies.clear()  # another browser
    await client.get(local(provider.authorize(await start_login(client), "nina")))
    unchanged = client.cookies[SESSION_COOKIE]
    assert await services.sessions.get(elsewhere) is not None, "signing in again unchanged ends no other session"
    client.cookies.clear()
    provider.set_person("nina", {"name": "Nina", "tenant": "berlin", "roles": []})

    await client.get(local(provider.authorize(await start_login(client), "nina")))

    assert await services.sessions.get(client.cookies[SESSION_COOKIE]) is not None
    assert await services.sessions.get(elsewhere) is None
    assert await services.sessions.get(unchanged) is None


async def test_logout_deletes_the_session_and_ends_it_at_the_provider(
    client: AsyncTestClient[Litestar], provider: MockProvider, services: Services
) -> None:
    await client.get(local(provider.authorize(await start_login(client), "ada")))
    session_id = client.cookies[SESSION_COOKIE]

    response = await client.post("/logout", data={"csrf_token": csrf_token(SECRET, session_id)})

    assert response.status_code == 303
    location = response.headers["location"]
    assert location.startswith(f"{provider.issuer}/oauth2/end_session?")
    query = parse_qs(urlsplit(location).query)
    assert query["post_logout_redirect_uri"] == [f"{BASE}/signed-out"]
    assert query["id_token_hint"][0].count(".") == 2
    assert await services.sessions.get(session_id) is None
    client.cookies.set(SESSION_COOKIE, session_id)
    assert (await client.get("/agent/memories")).status_code == 401


async def test_the_database_keeps_nothing_a_stolen_copy_could_sign_in_with(
    client: AsyncTestClient[Litestar], provider: MockProvider, tmp_path: Path
) -> None:
    await client.get(local(provider.authorize(await start_login(client), "ada")))
    cookie = client.cookies[SESSION_COOKIE]
    database = tmp_path / "login.sqlite3"

    with closing(sqlite3.connect(database)) as copy:
        rows = copy.execute("SELECT id, data, actor_id FROM dashboard_session").fetchall()
        copy.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    assert len(rows) == 1
    assert not any(cookie in str(cell) for cell in rows[0])
    for file in (database, database.with_name(f"{database.name}-wal")):
        assert not file.exists() or cookie.encode() not in file.read_bytes()
    client.cookies.set(SESSION_COOKIE, rows[0][0])  # what a leaked backup would offer
    assert (await client.get("/agent/memories")).status_code == 401


async def test_logout_without_the_csrf_token_is_refused(
    client: AsyncTestClient[Litestar], provider: MockProvider, services: Services
) -> None:
    await client.get(local(provider.authorize(await start_login(client), "ada")))

    response = await client.post("/logout", data={"csrf_token": "forged"})

    assert response.status_code == 403
    assert await services.sessions.get(client.cookies[SESSION_COOKIE]) is not None


@pytest.mark.parametrize("next_path", ["https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:x"])
async def test_the_return_address_never_leaves_the_site(
    client: AsyncTestClient[Litestar], provider: MockProvider, next_path: str
) -> None:
    back = await client.get(local(provider.authorize(await start_login(client, next_path), "ada")))

    assert back.headers["location"] == "/"


def error_page(response: httpx.Response) -> str:
    assert 'data-testid="login-error"' in response.text
    assert 'data-action="retry-login"' in response.text
    return html.unescape(response.text)


async def test_consent_denied_ends_on_a_page_that_offers_to_try_again(
    client: AsyncTestClient[Litestar], provider: MockProvider
) -> None:
    back = await client.get(local(provider.authorize(await start_login(client), "ada", deny=True)))

    assert back.status_code == 400
    assert "cancelled or not allowed" in error_page(back)
    assert SESSION_COOKIE not in client.cookies


async def test_a_state_that_does_not_match_is_refused(
    client: AsyncTestClient[Litestar], provider: MockProvider
) -> None:
    callback = local(provider.authorize(await start_login(client), "ada"))

    back = await client.get(callback.replace("state=", "state=x"))

    assert back.status_code == 400
    assert "does not belong to the sign-in you started" in error_page(back)


async def test_a_refusal_for_another_sign_in_is_refused_as_such_and_its_words_are_not_shown(
    client: AsyncTestClient[Litestar],
) -> None:
    await start_login(client)

    back = await client.get("/auth/callback?error=Call+0800+now&state=bogus")

    assert back.status_code == 400
    page = error_page(back)
    assert "does not belong to the sign-in you started" in page
    assert "0800" not in page


@pytest.mark.parametrize(
    ("organisation", "known_as"),
    [(["berlin"], "berlin"), (["berlin", "hamburg"], None), ({"name": "berlin"}, None), ("berlin\nx", None)],
)
async def test_an_organisation_claim_is_one_plain_id_or_the_sign_in_says_why_it_cannot_be_used(
    client: AsyncTestClient[Litestar],
    provider: MockProvider,
    services: Services,
    organisation: object,
    known_as: str | None,
) -> None:
    provider.set_person("max", {"name": "Max", "tenant": organisation})

    back = await client.get(local(provider.authorize(await start_login(client), "max")))

    if known_as is not None:
        session = await services.sessions.get(client.cookies[SESSION_COOKIE])
        assert session is not None
        assert session.data["actor"]["tenant_ref"] == known_as
        return
    assert back.status_code == 400
    assert "names your organisation in a way OnFile cannot use" in error_page(back)
    assert "“tenant” claim" in error_page(back)
    assert SESSION_COOKIE not in client.cookies
    assert await services.people.find("max") is None


async def test_a_code_used_twice_is_refused(client: AsyncTestClient[Litestar], provider: MockProvider) -> None:
    authorize = await start_login(client)
    login_cookie = client.cookies["onfile_login"]
    callback = local(provider.authorize(authorize, "ada"))
    await client.get(callback)
    client.cookies.set("onfile_login", login_cookie, path="/auth")

    again = await client.get(callback)

    assert again.status_code == 400
    assert "did not accept the sign-in code" in error_page(again)


async def test_a_callback_without_the_login_cookie_is_refused(
    client: AsyncTestClient[Litestar], provider: MockProvider
) -> None:
    callback = local(provider.authorize(await start_login(client), "ada"))
    client.cookies.clear()

    back = await client.get(callback)

    assert back.status_code == 400
    assert "started too long ago or in another browser" in error_page(back)


async def test_an_unreachable_provider_is_said_plainly(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, f"http://127.0.0.1:{free_port()}")
    services = await open_services(settings, migrate=True)
    app = create_app(settings, services=services)
    async with AsyncTestClient(app=app, base_url=BASE) as client:
        client.follow_redirects = False
        response = await client.get("/login")
    await services.close()

    assert response.status_code == 503
    assert "could not reach your organisation's sign-in service" in error_page(response)


def oidc_client(provider: MockProvider) -> OidcClient:
    return OidcClient(
        issuer=provider.issuer,
        client_id="onfile-tests",
        client_secret="onfile-tests-secret",
        redirect_uri=f"{BASE}/auth/callback",
        scopes="openid profile email",
        tenant_claim="tenant",
        roles_claim="roles",
    )


async def test_an_id_token_signed_by_another_key_is_refused(provider: MockProvider) -> None:
    client = oidc_client(provider)
    forged = jwt.encode(
        {"alg": "RS256", "kid": "forged"},
        {"iss": provider.issuer, "aud": "onfile-tests", "sub": "ada", "exp": 4_000_000_000, "nonce": "n"},
        RSAKey.generate_key(2048, parameters={"kid": "forged"}),
    )
    try:
        with pytest.raises(LoginError, match="could not be verified"):
            await client._validated_claims(forged, "n")
    finally:
        await client.aclose()


async def test_rotated_provider_keys_are_fetched_again(provider: MockProvider) -> None:
    client = oidc_client(provider)
    try:
        url, transaction = await client.begin("/")
        client._keys = KeySet([RSAKey.generate_key(2048, parameters={"kid": "old"})])  # what it fetched before
        callback = provider.authorize(url, "ada")
        params = {k: v[0] for k, v in parse_qs(urlsplit(callback).query).items()}

        person = await client.complete(transaction, params)
    finally:
        await client.aclose()

    assert person.actor.id == "ada"


async def test_a_token_for_another_nonce_is_refused(provider: MockProvider) -> None:
    client = oidc_client(provider)
    try:
        url, transaction = await client.begin("/")
        params = {k: v[0] for k, v in parse_qs(urlsplit(provider.authorize(url, "ada")).query).items()}
        tampered = LoginTransaction(
            state=transaction.state, nonce="another", code_verifier=transaction.code_verifier, next_path="/"
        )
        with pytest.raises(LoginError, match="could not be verified"):
            await client.complete(tampered, params)
    finally:
        await client.aclose()


async def test_the_signed_out_page_offers_to_sign_in_again(client: AsyncTestClient[Litestar]) -> None:
    page = await client.get("/signed-out")

    assert page.status_code == 200
    assert 'data-action="login"' in page.text
