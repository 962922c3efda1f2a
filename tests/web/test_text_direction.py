"""Invisible direction controls cannot make a fact read one way on the page and another to the model.

Nothing can be written with an explicit embedding, override or isolate (the model is told why, and so
is an administrator), and whatever a stored record or a person's name from the identity provider
holds of them is dropped from every page, so each shows in the order the model reads it."""

from __future__ import annotations

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import DIRECTION_CONTROLS, Actor
from tests.web.admin_builders import tree
from tests.web.builders import make_record, seed
from tests.web.conftest import AGENT_TOKEN, SECRET, LoginAs
from tests.web.html_tree import Element
from tests.web.test_markup_inert import pages
from web.kit.identity.oidc import Person
from web.kit.identity.sessions import SESSION_COOKIE, csrf_token, start_session
from web.services import Services

RLO, PDF, RLI, PDI = "\u202e", "\u202c", "\u2067", "\u2069"
LENA = Actor("lena", "berlin", ("onfile-admin", "onfile-global-admin", "onfile-support"))
AGENT = {"Authorization": f"Bearer {AGENT_TOKEN}"}


async def test_no_page_prints_a_direction_control_and_each_text_shows_as_the_model_reads_it(
    app: Litestar, client: AsyncTestClient[Litestar], services: Services
) -> None:
    await seed(
        services,
        make_record("mem_own", f"diet{RLO}", f"vegetarian {RLO}gnikoms on{PDF} weekends", "actor:lena"),
        make_record("mem_berlin", f"tone{RLI}", f"formal{PDI} with clients", "tenant:berlin", author="human"),
        make_record("mem_global", "hours", f"nine {RLO}to five", "global", author="human", actor_ref=f"Ana{RLO}"),
    )
    session_id = await start_session(services, Person(LENA, f"Lena {RLO}Berg", "lena@example.com", ""), None)
    client.cookies.set(SESSION_COOKIE, session_id)
    addresses = pages(app)
    assert {"/", "/admin", "/admin/audit", "/support/preview"} <= set(addresses)

    shown = {}
    for path in addresses:
        answer = await client.get(path, follow_redirects=False)
        assert answer.status_code < 500, (path, answer.status_code)
        if answer.headers.get("content-type", "").startswith("text/html"):  # the APIs answer data exactly
            assert not DIRECTION_CONTROLS & set(answer.text), path
            shown[path] = answer.text

    assert "vegetarian gnikoms on weekends" in shown["/"]
    assert "formal with clients" in shown["/"]
    assert "Lena Berg" in shown["/"]
    assert "nine to five" in shown["/admin"]


async def test_the_apis_still_answer_the_stored_text_exactly(
    client: AsyncTestClient[Litestar], services: Services
) -> None:
    await seed(services, make_record("mem_own", "diet", f"vegetarian {RLO}x", "actor:lena", actor_ref="lena"))
    session_id = await start_session(services, Person(LENA, "Lena", "lena@example.com", ""), None)
    client.cookies.set(SESSION_COOKIE, session_id)
    body = {"actor": {"id": "lena", "tenantRef": "berlin"}, "threadId": "thr_1", "text": "vegetarian"}

    read_back = await client.get("/agent/memories")
    digest = await client.post("/agent/runs/run_1/digest", json=body, headers=AGENT)

    assert [entry["text"] for entry in read_back.json()] == [f"vegetarian {RLO}x"]
    assert [entry["text"] for entry in digest.json()["entries"]] == [f"vegetarian {RLO}x"]
    assert f"vegetarian {RLO}x" in digest.json()["block"]


@pytest.mark.parametrize(("key", "fact", "named"), [("diet", f"no {RLO}meat", "fact"), (f"d{RLI}iet", "x", "key")])
async def test_remember_refuses_a_direction_control_in_words_the_model_can_act_on(
    client: AsyncTestClient[Litestar], key: str, fact: str, named: str
) -> None:
    body = {"actor": {"id": "lena", "tenantRef": "berlin"}, "threadId": "thr_1", "text": "hi"}
    assert (await client.post("/agent/runs/run_1/digest", json=body, headers=AGENT)).status_code == 200

    answer = await client.post(
        "/agent/runs/run_1/remember", json={"callId": "c1", "key": key, "fact": fact}, headers=AGENT
    )

    assert answer.status_code == 200
    assert answer.json()["ok"] is False
    assert answer.json()["error"].startswith(f"The {named} contains a text-direction control (U+")
    assert "Write it without one." in answer.json()["error"]


async def test_an_administrator_cannot_publish_a_direction_control_either(
    client: AsyncTestClient[Litestar], services: Services
) -> None:
    session_id = await start_session(services, Person(LENA, "Lena", "lena@example.com", ""), None)
    client.cookies.set(SESSION_COOKIE, session_id)
    csrf = {"X-CSRF-Token": csrf_token(SECRET, session_id)}

    answer = await client.post(
        "/admin/memories", json={"scope": "tenant:berlin", "key": "hours", "text": f"nine {RLO}to five"}, headers=csrf
    )

    assert answer.status_code == 400
    assert "text-direction control (U+202E)" in answer.text


async def test_the_form_refuses_it_and_offers_the_text_back_without_it_ready_to_publish(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    token = await login_as(LENA)
    form = {"csrf_token": token, "key": "hours", "scope": "tenant:berlin"}

    refused = await client.post("/admin/facts", data={**form, "text": f"nine {RLO}to five"})

    assert refused.status_code == 400
    page = tree(refused)
    assert page.one(attrs={"data-error": True}).text.startswith("The fact contains a text-direction control (U+202E)")
    offered = page.one("textarea", {"name": "text"}).text
    assert offered == "nine to five"
    published = await client.post("/admin/facts", data={**form, "text": offered}, follow_redirects=False)
    assert published.status_code == 303


HEBREW_KEY, HEBREW_FACT = "לשון", "מעדיפה תשובות בעברית, עם מספרים 123"
ARABIC_FACT = "يفضل الإجابات باللغة العربية مع ذكر المستودع DEPOT-7 أولاً"


def holders_of(page: Element, text: str) -> list[Element]:
    """The elements that hold `text` in their own text (the block and form fields aside: the block is
    the model's text as it reads it, and a field keeps what was typed)."""
    return [
        element
        for element in page.elements()
        if element.tag not in {"pre", "textarea", "option", "title"}
        and any(isinstance(child, str) and text in child for child in element.children)
    ]


async def test_every_key_fact_and_name_a_person_wrote_is_laid_out_by_its_own_direction(
    client: AsyncTestClient[Litestar], services: Services
) -> None:
    await seed(
        services,
        make_record("mem_own", HEBREW_KEY, HEBREW_FACT, "actor:lena", actor_ref="lena"),
        make_record("mem_berlin", HEBREW_KEY, ARABIC_FACT, "tenant:berlin", author="human", actor_ref="lena"),
    )
    session_id = await start_session(services, Person(LENA, "Lena", "lena@example.com", ""), None)
    client.cookies.set(SESSION_COOKIE, session_id)
    csrf = {"X-CSRF-Token": csrf_token(SECRET, session_id)}
    edited = await client.put("/admin/memories/mem_berlin", json={"text": f"{ARABIC_FACT} ٢"}, headers=csrf)
    assert edited.status_code == 200
    preview = {"csrf_token": csrf["X-CSRF-Token"], "actor_id": "lena", "tenant_ref": "berlin", "text": HEBREW_FACT}

    shown = {
        "/": tree(await client.get("/")),
        "/admin": tree(await client.get("/admin")),
        "/admin/audit": tree(await client.get("/admin/audit")),
        "/admin/facts/mem_berlin/edit": tree(await client.get("/admin/facts/mem_berlin/edit")),
        "/admin/facts/mem_berlin/delete": tree(await client.get("/admin/facts/mem_berlin/delete")),
        "preview": tree(await client.post("/support/preview/show", data=preview)),
    }

    for name, page in shown.items():
        held = [e for text in (HEBREW_KEY, HEBREW_FACT, ARABIC_FACT) for e in holders_of(page, text)]
        assert held, name
        assert [(e.tag, e.attrs) for e in held if e.tag != "bdi" and e.get("dir") != "auto"] == [], name
