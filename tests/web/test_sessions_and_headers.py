"""Sessions end when idle or too old; every response carries the security headers; a form posted
after the session ended returns to a page after login, not to the form's target."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor
from tests.web.admin_builders import LENA, SAM
from tests.web.conftest import LoginAs
from web.kit.identity.sessions import SESSION_COOKIE, load_viewer
from web.services import Services

ADA = Actor(id="ada", tenant_ref="berlin")


async def test_a_session_past_its_maximum_age_is_ended(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await login_as(ADA)
    session_id = client.cookies[SESSION_COOKIE]
    later = datetime.now(UTC) + timedelta(hours=services.settings.session_max_hours, minutes=1)

    assert await load_viewer(services, session_id, now=later) is None
    assert await services.sessions.get(session_id) is None


async def test_a_session_idle_too_long_is_not_accepted(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await login_as(ADA)
    session_id = client.cookies[SESSION_COOKIE]
    live = await services.sessions.get(session_id)
    assert live is not None

    await services.sessions.touch(session_id, ttl=timedelta(seconds=-1))  # its idle time ran out

    assert (await client.get("/agent/memories")).status_code == 401
    assert await load_viewer(services, session_id) is None


async def test_a_session_in_use_is_extended(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await login_as(ADA)
    session_id = client.cookies[SESSION_COOKIE]
    before = await services.sessions.get(session_id)
    assert before is not None

    viewer = await load_viewer(services, session_id, now=datetime.now(UTC) + timedelta(minutes=5))
    after = await services.sessions.get(session_id)

    assert viewer is not None
    assert after is not None
    assert after.expires_at > before.expires_at


async def test_every_response_carries_the_security_headers(client: AsyncTestClient[Litestar]) -> None:
    for path in ("/signed-out", "/healthz", "/agent/memories", "/static/onfile.css"):
        response = await client.get(path)
        policy = response.headers["content-security-policy"]
        assert "script-src 'self'" in policy, path
        assert "unsafe-inline" not in policy
        assert "frame-ancestors 'none'" in policy
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["referrer-policy"] == "same-origin"


async def test_every_json_answer_about_a_signed_in_person_is_kept_by_no_cache(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.people.note(ADA)
    sam = {"X-CSRF-Token": await login_as(SAM)}
    asked = [
        await client.get("/agent/memories", headers=sam),
        await client.get("/agent/memories/waiting", headers=sam),
        await client.post("/support/preview", json={"actor": {"id": "ada"}, "text": ""}, headers=sam),
    ]
    lena = {"X-CSRF-Token": await login_as(LENA)}
    body = {"scope": "tenant:berlin", "key": "tone", "text": "formal"}
    asked.append(await client.post("/admin/memories", json=body, headers=lena))

    assert [answer.status_code for answer in asked] == [200, 200, 200, 201]
    assert [answer.headers.get("cache-control") for answer in asked] == ["no-store"] * len(asked)


async def test_a_form_posted_without_a_session_returns_to_the_page_after_login(
    client: AsyncTestClient[Litestar],
) -> None:
    response = await client.post("/memories/mem_1/forget", data={"csrf_token": "x"}, follow_redirects=False)

    assert response.status_code == 303
    assert response.headers["location"] == "/login?next=/"


async def test_a_page_requested_without_a_session_returns_there_after_login(client: AsyncTestClient[Litestar]) -> None:
    response = await client.get("/?q=pallet", follow_redirects=False)

    assert response.headers["location"] == "/login?next=/%3Fq%3Dpallet"
    assert response.content == b"", "a redirect, not a JSON null"
    assert not response.headers.get("content-type", "").startswith("application/json")
