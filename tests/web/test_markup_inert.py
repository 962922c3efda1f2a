"""Markup stored in a fact, a key, a person's name or id renders as inert text on every page — the
personal page, the elevated area, the preview, the audit trail, their fragments and confirmations —
found by enumerating the application's GET routes. And no page needs inline script: the
Content-Security-Policy allows scripts from this site only, and every page keeps to it."""

from __future__ import annotations

import re

from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor
from tests.web.builders import make_record, seed
from tests.web.conftest import AGENT_TOKEN, SECRET
from tests.web.html_tree import Element, parse
from web.kit.identity.oidc import Person
from web.kit.identity.sessions import SESSION_COOKIE, csrf_token, start_session
from web.services import Services

KEY = "<script>alert('key')</script>"
TEXT = "<img src=x onerror=alert('text')> \"><svg onload=alert('attr')> javascript:alert(1) {{ 7*7*7*7*7 }} </textarea>"
NAME = "<script>alert('name')</script>Lena"
STRANGER = "<iframe src=javascript:alert('id')>"
LENA = Actor("lena", "berlin", ("onfile-admin", "onfile-global-admin", "onfile-support"))
NOT_PAGES = ("/static/", "/schema", "/metrics", "/healthz", "/login", "/auth/")
URL_ATTRIBUTES = ("href", "src", "action", "formaction", "hx-get", "hx-post", "hx-delete", "hx-put")


def assert_inert(page: Element, where: str) -> None:
    for element in page.elements():
        assert element.tag not in {"svg", "iframe", "object", "embed", "base"}, (where, element.tag)
        if element.tag in {"script", "img"}:
            assert (element.get("src") or "").startswith("/static/"), (where, element.tag, element.attrs)
        handlers = [name for name in element.attrs if name.startswith("on")]
        assert handlers == [], (where, element.tag, handlers)
        for name in URL_ATTRIBUTES:
            value = (element.get(name) or "").strip().lower()
            assert not value.startswith(("javascript:", "data:", "vbscript:")), (where, name, value)


def script_sources(policy: str) -> list[str]:
    directives = {part.split()[0]: part.split()[1:] for part in policy.split(";") if part.strip()}
    return directives["script-src"]


async def set_the_stage(client: AsyncTestClient[Litestar], services: Services) -> str:
    """Markup everywhere a person or the assistant can put text; returns the CSRF token."""
    await seed(
        services,
        make_record("mem_own", KEY, TEXT, "actor:lena", actor_ref="lena", thread_id="thr_<b>1</b>", run_id="r<1>"),
        make_record("mem_forget_me", f"{KEY}-2", TEXT, "actor:lena", actor_ref="lena"),
        make_record("mem_berlin", KEY, TEXT, "tenant:berlin", author="human", actor_ref=NAME),
        make_record("mem_global", f"{KEY}-g", TEXT, "global", author="human", actor_ref=NAME, pinned=True),
    )
    agent = {"Authorization": f"Bearer {AGENT_TOKEN}"}
    stranger = {"actor": {"id": STRANGER, "tenantRef": "berlin"}, "threadId": "thr_1", "text": KEY}
    assert (await client.post("/agent/runs/run_x/digest", json=stranger, headers=agent)).status_code == 200
    session_id = await start_session(services, Person(LENA, NAME, "lena@<example>.com", ""), None)
    client.cookies.set(SESSION_COOKIE, session_id)
    csrf = {"X-CSRF-Token": csrf_token(SECRET, session_id)}
    published = {"scope": "tenant:berlin", "key": f"{KEY}-p", "text": TEXT.replace("\n", " ")}
    assert (await client.post("/admin/memories", json=published, headers=csrf)).status_code == 201
    preview = {"actor": {"id": STRANGER, "tenantRef": "berlin"}, "text": KEY}
    assert (await client.post("/support/preview", json=preview, headers=csrf)).status_code == 200
    form = {"csrf_token": csrf["X-CSRF-Token"], "back": "/"}
    forgot = await client.post("/memories/mem_forget_me/forget", data=form, follow_redirects=False)
    assert forgot.status_code == 303  # the notice of what was forgotten shows on the next page
    return csrf["X-CSRF-Token"]


def pages(app: Litestar) -> list[str]:
    found = []
    for route in app.routes:
        if "GET" in getattr(route, "methods", ()) and not route.path.startswith(NOT_PAGES):
            path = re.sub(r"\{memory_id:str\}", "mem_berlin", route.path)
            found.append(re.sub(r"\{person_id:str\}", "lena", path))
    return found


async def test_stored_markup_is_inert_text_on_every_page_and_no_page_has_inline_script(
    app: Litestar, client: AsyncTestClient[Litestar], services: Services
) -> None:
    csrf = await set_the_stage(client, services)
    addresses = [*pages(app), "/?q=<script>x", "/admin?q=<script>x"]
    assert {"/", "/admin", "/admin/audit", "/support/preview"} <= set(addresses)
    shown: dict[str, str] = {}

    for path in addresses:
        for headers in ({}, {"HX-Request": "true", "HX-Current-URL": "http://127.0.0.1:8000/admin"}):
            answer = await client.get(path, headers=headers, follow_redirects=False)
            assert answer.status_code < 500, (path, answer.status_code)
            assert script_sources(answer.headers["content-security-policy"]) == ["'self'"], path
            if answer.headers.get("content-type", "").startswith("text/html"):
                assert_inert(parse(answer.text), path)
                shown.setdefault(path, parse(answer.text).text)
            elif answer.status_code == 200 and answer.content:
                kind = answer.headers["content-type"]
                assert kind.startswith(("application/json", "text/csv", "text/plain")), (path, kind)
                assert answer.headers["x-content-type-options"] == "nosniff"

    preview = await client.post(
        "/support/preview/show", data={"actor_id": STRANGER, "tenant_ref": "berlin", "text": KEY, "csrf_token": csrf}
    )
    assert_inert(parse(preview.text), "preview")
    for path in ("/", "/admin", "/admin/audit"):
        assert KEY in shown[path], f"{path} shows the markup as text"
        assert "{{ 7*7*7*7*7 }}" in shown[path], f"{path} does not evaluate what is stored"
    assert "16807" not in shown["/"]  # 7⁵: a figure no date, time or count on the page holds
    assert KEY in parse(preview.text).text
    assert STRANGER in shown["/support/preview"], "the people seen are listed, as text"
