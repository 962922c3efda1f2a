"""CSRF on every unsafe route, found by enumerating the application's routes — so a route added
tomorrow is checked tomorrow without anyone remembering to. A request carrying the session cookie
but a missing or forged token (in the header or the form field) is refused and changes nothing; the
agent runtime's bearer-token routes refuse the cookie altogether.

Rotation of the session id at login and its revocation at logout are tested against a real identity
provider in `test_login.py` (`test_the_session_id_rotates_at_login_and_the_old_one_stops_working`,
`test_logout_deletes_the_session_and_ends_it_at_the_provider`).
"""

from __future__ import annotations

import re

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor, ScopeContext
from tests.web.builders import make_record, seed
from tests.web.conftest import SECRET, LoginAs
from web.kit.errors import CSRF_REFUSED_JSON
from web.kit.identity.sessions import SESSION_COOKIE, csrf_token
from web.services import Services

UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
BEARER_ONLY = ("/agent/runs/", "/agent/threads/")
REFUSED = "did not come from OnFile"
# Administers Berlin and the global scope and may preview: every route reaches past its own checks.
LENA = Actor("lena", "berlin", ("onfile-admin", "onfile-global-admin", "onfile-support"))
KNOWN = {
    ("POST", "/logout"),
    ("DELETE", "/agent/memories/{memory_id:str}"),
    ("POST", "/memories/{memory_id:str}/forget"),
    ("POST", "/admin/facts"),
    ("POST", "/admin/memories"),
    ("PUT", "/admin/memories/{memory_id:str}"),
    ("POST", "/support/preview"),
    ("POST", "/agent/runs/{run_id:str}/remember"),
}


def unsafe_routes(app: Litestar) -> list[tuple[str, str]]:
    return sorted(
        (method, route.path) for route in app.routes for method in getattr(route, "methods", ()) if method in UNSAFE
    )


def address(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "mem_lena", path)


def test_the_enumeration_finds_every_kind_of_unsafe_route(app: Litestar) -> None:
    found = set(unsafe_routes(app))

    assert found >= KNOWN, KNOWN - found
    assert len(found) >= 20


@pytest.mark.parametrize("how", ["no token", "forged header", "forged field", "another session's token"])
async def test_every_unsafe_route_refuses_a_session_without_its_token_and_changes_nothing(
    app: Litestar, client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs, how: str
) -> None:
    await seed(services, make_record("mem_lena", "units", "kilometres", "actor:lena", actor_ref="lena"))
    await login_as(LENA)
    session_id = client.cookies[SESSION_COOKIE]
    forged = {
        "no token": ({}, {}),
        "forged header": ({"X-CSRF-Token": "0" * 64}, {}),
        "forged field": ({}, {"csrf_token": "0" * 64}),
        "another session's token": ({"X-CSRF-Token": csrf_token(SECRET, "another-session-id-0123456789abc")}, {}),
    }
    headers, form = forged[how]

    for method, path in unsafe_routes(app):
        if path.startswith(BEARER_ONLY):
            continue
        data = {**form, "key": "units", "text": "changed", "scope": "tenant:berlin", "actor_id": "ada"}
        answer = await client.request(method, address(path), headers=headers, data=data)
        assert answer.status_code == 403, (method, path, answer.status_code)
        assert REFUSED in answer.text, (method, path)

    assert await services.sessions.get(session_id) is not None, "logout without the token ended the session"
    held = await services.provider.list(scopes=["actor:lena", "tenant:berlin"], ctx=ScopeContext(actor=LENA))
    assert [(r.key, r.text) for r in held] == [("units", "kilometres")]
    assert await services.audit.at_scopes(["tenant:berlin", "global", "actor:lena"]) == []


async def test_with_its_token_each_of_those_routes_gets_past_the_check(
    app: Litestar, client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    for method, path in unsafe_routes(app):
        if path.startswith(BEARER_ONLY):
            continue
        csrf = await login_as(LENA)  # afresh each time: one of the routes is the logout
        answer = await client.request(method, address(path), headers={"X-CSRF-Token": csrf}, data={"x": "y"})
        assert REFUSED not in answer.text, (method, path)


async def test_the_agent_runtimes_routes_refuse_a_session_cookie_even_with_its_token(
    app: Litestar, client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    csrf = await login_as(LENA)
    bearer_only = [(m, p) for m, p in unsafe_routes(app) if p.startswith(BEARER_ONLY)]
    assert len(bearer_only) >= 4

    for method, path in bearer_only:
        answer = await client.request(
            method, address(path), headers={"X-CSRF-Token": csrf}, json={"actor": {"id": "lena"}, "runIds": ["r"]}
        )
        assert answer.status_code == 401, (method, path, answer.text)
        assert "Bearer" in answer.headers["www-authenticate"]


async def test_a_json_route_refused_for_its_token_names_the_header_not_a_form(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("mem_lena", "units", "kilometres", "actor:lena", actor_ref="lena"))
    await login_as(LENA)

    answer = await client.delete("/agent/memories/mem_lena")

    assert answer.status_code == 403
    assert answer.json() == {"error": CSRF_REFUSED_JSON}
    assert "form" not in CSRF_REFUSED_JSON
