"""Every route of the elevated area refuses someone it is not for with that part's one answer, found by
enumerating the application's route table — so a route added tomorrow without its part's requirement
fails here tomorrow, without anyone remembering to list it.

The administrators' part (`/admin…`) and support's (`/support…`) each provide `elevation` only to
someone with what the part needs; anyone else meets the part's 403 before any handler runs: the page
(or, for htmx, its notice) exactly as the part's first page answers it, and on the JSON endpoints
`{"error"}` saying why. Someone whose roles the identity provider could not confirm is told that, on
every route.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest
from litestar import Litestar
from litestar.params import BodyKwarg
from litestar.routes import HTTPRoute
from litestar.testing import AsyncTestClient

from store import Actor
from tests.web.admin_builders import tree
from tests.web.builders import HTMX
from tests.web.conftest import SECRET, LoginAs
from web.app import create_app
from web.kit.identity.elevation import ROLES_UNCONFIRMED
from web.kit.identity.sessions import SESSION_COOKIE
from web.kit.json_bodies import json_body_type
from web.services import Services
from web.settings import Settings

ADA = Actor("ada", "berlin")  # administers nothing, may not preview
SAM = Actor("sam", "berlin", ("onfile-support",))  # may preview, administers nothing
LENA = Actor("lena", "berlin", ("onfile-admin",))  # administers Berlin, may not preview
EVERYTHING = Actor("lena", "berlin", ("onfile-admin", "onfile-global-admin", "onfile-support"))
HEADINGS = {
    "administer": "This area is for administrators",
    "preview": "The prompt preview is for support staff",
    "unconfirmed": "Your roles could not be confirmed",
}
FIRST_PAGE = {"administer": "/admin", "preview": "/support/preview"}
# Publishing through the API is open to anyone whose roles are confirmed: the store's verdict refuses a
# scope they do not administer, naming it (test_admin_api.py). Nothing else is left to its handler.
VERDICT_DECIDES = {("POST", "/admin/memories")}


@dataclass(frozen=True, slots=True)
class ElevatedRoute:
    method: str
    path: str
    """As the route table has it: `/admin/facts/{memory_id:str}`."""
    api: bool
    """In the API document: answers `{"error"}`; otherwise a page."""
    body: Any
    """The handler's own example of its JSON body, if it takes one."""

    @property
    def need(self) -> str:
        return "preview" if self.path.startswith("/support") else "administer"

    @property
    def address(self) -> str:
        return re.sub(r"\{[^}]+\}", "mem_x", self.path)

    def __str__(self) -> str:
        return f"{self.method} {self.path}"


def elevated_routes() -> list[ElevatedRoute]:
    """The route table's every route under /admin and /support, read from an application that is never
    started (its database is never opened)."""
    app = create_app(
        Settings(
            database_url="sqlite+aiosqlite:///never-opened.sqlite3",
            base_url="http://127.0.0.1:8000",
            secret_key=SECRET,
            oidc_issuer="http://127.0.0.1:1",
            oidc_client_id="onfile",
            oidc_client_secret="client-secret",
        )
    )
    found = []
    for route in app.routes:
        if not isinstance(route, HTTPRoute) or not re.match(r"/(admin|support)(/|$)", route.path):
            continue
        for method, (handler, _) in sorted(route.route_handler_map.items()):
            if method in ("HEAD", "OPTIONS"):
                continue
            body = None
            if json_body_type(handler) is not None:
                declared = handler.parsed_fn_signature.parameters["data"].kwarg_definition
                assert isinstance(declared, BodyKwarg), f"{method} {route.path}"
                assert declared.examples, f"{method} {route.path} has no example body"
                body = declared.examples[0].value
            found.append(ElevatedRoute(method, route.path, handler.resolve_include_in_schema(), body))
    return found


ROUTES = elevated_routes()
# Who each part refuses: someone with no elevation, someone with the other part's, and someone whose
# roles could not be confirmed (who has every role, were they confirmed).
REFUSED = {
    "administer": [(ADA, "confirmed"), (SAM, "confirmed"), (EVERYTHING, "unconfirmed")],
    "preview": [(ADA, "confirmed"), (LENA, "confirmed"), (EVERYTHING, "unconfirmed")],
}
CASES = [
    pytest.param(route, actor, roles, id=f"{route}-{actor.id}-{roles}")
    for route in ROUTES
    for actor, roles in REFUSED[route.need]
]


def test_the_route_table_holds_every_part_of_the_elevated_area() -> None:
    found = {(r.method, r.path, r.api) for r in ROUTES}

    assert found >= {
        ("GET", "/admin", False),
        ("POST", "/admin/facts", False),
        ("GET", "/admin/audit.csv", False),
        ("POST", "/admin/people/erase", False),
        ("PUT", "/admin/memories/{memory_id:str}", True),
        ("GET", "/support/preview", False),
        ("POST", "/support/preview", True),
    }
    assert len(found) >= 20


async def sign_in(
    services: Services, client: AsyncTestClient[Litestar], login_as: LoginAs, actor: Actor, roles: str
) -> str:
    """Sign `actor` in; "unconfirmed": as a session is left when the provider could not confirm the
    roles at its last recheck."""
    token = await login_as(actor)
    if roles == "unconfirmed":
        session_id = client.cookies[SESSION_COOKIE]
        session = await services.sessions.get(session_id)
        assert session is not None
        checked = session.data["roles_checked_at"]
        unconfirmed = {**session.data, "roles_confirmed": False}
        assert await services.sessions.swap_data(session_id, unconfirmed, key="roles_checked_at", expected=checked)
    return token


@pytest.mark.parametrize(("route", "actor", "roles"), CASES)
async def test_someone_a_part_is_not_for_gets_its_one_refusal_on_every_route(
    client: AsyncTestClient[Litestar],
    services: Services,
    login_as: LoginAs,
    route: ElevatedRoute,
    actor: Actor,
    roles: str,
) -> None:
    token = await sign_in(services, client, login_as, actor, roles)
    csrf = {"X-CSRF-Token": token}

    for extra in ({}, HTMX):
        headers = {**csrf, **extra}
        if route.body is not None:
            answer = await client.request(route.method, route.address, headers=headers, json=route.body)
        elif route.method == "GET":
            answer = await client.request(route.method, route.address, headers=headers, follow_redirects=False)
        else:
            answer = await client.request(route.method, route.address, headers=headers, data={"text": "v"})

        assert answer.status_code == 403, (str(route), extra, answer.status_code)
        if route.api:
            assert answer.json() == {"error": api_refusal(route, actor, roles)}, str(route)
            continue
        first_page = await client.get(FIRST_PAGE[route.need], headers=headers)
        assert (answer.headers["content-type"], answer.text) == (
            first_page.headers["content-type"],
            first_page.text,
        ), str(route)
        assert answer.headers["cache-control"] == "no-store", str(route)
        assert heading(answer, htmx=bool(extra)) == HEADINGS[route.need if roles == "confirmed" else roles]


def api_refusal(route: ElevatedRoute, actor: Actor, roles: str) -> str:
    if roles == "unconfirmed":
        return ROLES_UNCONFIRMED
    if (route.method, route.path) in VERDICT_DECIDES:
        return f"Writing at tenant:berlin needs someone who administers it; {actor.id} does not."
    if route.need == "preview":
        return f"Previewing prompts is for support staff; {actor.id} may not preview them."
    return (
        f"{actor.id} administers no scope: changing shared facts needs someone who administers the scope they "
        "are held at."
    )


def heading(answer: Any, *, htmx: bool) -> str:
    """The refusal's heading: the forbidden page's, or for htmx the notice's (without its full stop)."""
    page = tree(answer)
    if htmx:
        return page.one(attrs={"data-problem": "403"}).one("strong").text.rstrip(".")
    return page.one(attrs={"data-forbidden": True}).one("h1").text
