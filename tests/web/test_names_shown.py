"""Wherever a page names a person, it names them as their identity provider last did at login, with
their id beside it (names are not unique) — the people to erase and the confirmation, the audit trail,
who wrote a shared fact, who stated a memory on the personal page, the preview's people — and the bare
id for someone whose name OnFile does not know. Each page asks for the names it shows at once."""

from __future__ import annotations

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor
from tests.statements_run import statements_run
from tests.web.admin_builders import shared, tree
from tests.web.builders import HTMX, make_record, seed
from tests.web.conftest import AGENT_TOKEN, LoginAs
from tests.web.html_tree import Element
from web.demo.content import DEMO_PEOPLE, seed_demo
from web.services import Services

LENA = Actor("lena", "berlin", ("onfile-admin",))
SAM = Actor("sam", "berlin", ("onfile-support",))
ADA = Actor("ada", "berlin")
AGENT = {"Authorization": f"Bearer {AGENT_TOKEN}"}


def named(page: Element, person_id: str) -> list[str]:
    """How each mention of `person_id` on the page reads."""
    return [e.text for e in page.find_all(attrs={"data-named": person_id})]


async def seen_by_an_agent(client: AsyncTestClient[Litestar], person_id: str, run_id: str = "run_1") -> None:
    body = {"actor": {"id": person_id, "tenantRef": "berlin"}, "threadId": "thr_1", "text": ""}
    assert (await client.post(f"/agent/runs/{run_id}/digest", json=body, headers=AGENT)).status_code == 200


async def test_the_people_list_names_each_person_and_the_bare_id_of_someone_never_logged_in(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(ADA, name="Ada Lovelace")
    await seen_by_an_agent(client, "bob")
    await login_as(LENA, name="Lena Vogt")

    page = tree(await client.get("/admin/people"))

    people = {
        li["data-person"]: li.one(attrs={"data-named": True}) for li in page.find_all("li", {"data-person": True})
    }
    assert {person: shown.text for person, shown in people.items()} == {
        "lena": "Lena Vogt (lena)",
        "bob": "bob",
        "ada": "Ada Lovelace (ada)",
    }
    assert people["ada"].one(attrs={"data-name": True}).text == "Ada Lovelace"
    assert people["ada"].one(attrs={"data-id": True}).text == "ada"


async def test_the_erase_confirmation_and_its_answer_name_the_person(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(ADA, name="Ada Lovelace")
    token = await login_as(LENA, name="Lena Vogt")

    confirm = tree(await client.get("/admin/people/erase", params={"person": "ada"}))
    done = tree(await client.post("/admin/people/erase?person=ada", data={"csrf_token": token}))

    assert confirm.one("title").text.startswith("Erase Ada Lovelace (ada) ·")
    assert confirm.one("h1").text == "Erase Ada Lovelace (ada)?"
    assert named(confirm, "ada") == ["Ada Lovelace (ada)", "Ada Lovelace (ada)"]
    assert confirm.one("button", {"data-action": "confirm-erase"}).text == "Erase Ada Lovelace (ada)"
    assert done.one("h1").text == "Ada Lovelace (ada) was erased"


async def test_the_audit_trail_names_who_acted_and_whom_a_preview_was_about(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(ADA, name="Ada Lovelace")
    token = await login_as(SAM, name="Sam Okafor")
    await client.post("/support/preview/show", data={"csrf_token": token, "actor_id": "ada", "tenant_ref": "berlin"})
    token = await login_as(LENA, name="Lena Vogt")
    publish = {"scope": "tenant:berlin", "key": "tone", "text": "formal"}
    assert (await client.post("/admin/memories", json=publish, headers={"X-CSRF-Token": token})).status_code == 201

    page = tree(await client.get("/admin/audit"))
    by_name = tree(await client.get("/admin/audit", params={"who": "okafor"}))

    write = page.one("tr", {"data-audit-action": "write"})
    preview = page.one("tr", {"data-audit-action": "preview"})
    assert named(write, "lena") == ["Lena Vogt (lena)"]
    assert write.one(attrs={"data-who": True})["data-who"] == "lena"
    assert named(preview, "sam") == ["Sam Okafor (sam)"]
    assert named(preview, "ada") == ["Ada Lovelace (ada)"]
    assert preview.one(attrs={"data-detail": True}).text == (
        "Looked at what the assistant is told about Ada Lovelace (ada) at Berlin"
    )
    assert [row["data-audit-action"] for row in by_name.find_all("tr", {"data-audit-entry": True})] == ["preview"]


async def test_shared_facts_say_who_wrote_them_by_name(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add(
        [
            shared("tone", "formal", by="lena"),
            shared("labels", "depot code first", by="gil"),
            shared("cutoff", "orders close at 14:00", author="agent", by="lena"),
        ]
    )
    await login_as(LENA, name="Lena Vogt")

    page = tree(await client.get("/admin"))
    row = tree(await client.get("/admin/facts/mem_tenant_berlin_tone", headers={**HTMX, "HX-Target": "fact"}))

    def written_by(key: str) -> str:
        return page.one("li", {"data-key": key}).one(attrs={"data-written-by": True}).text

    assert written_by("tone") == "Written by Lena Vogt (lena)"
    assert written_by("labels") == "Written by gil"
    assert written_by("cutoff") == "Concluded by the assistant"
    assert row.one(attrs={"data-written-by": True}).text == "Written by Lena Vogt (lena)"


async def test_the_personal_page_names_the_administrator_who_stated_a_memory(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(
        services,
        make_record("m_mine", "units", "miles", author="human"),
        make_record("m_lena", "labels", "customer number first", "tenant:berlin", author="human", actor_ref="lena"),
        make_record("m_gil", "hours", "nine to five", "global", author="human", actor_ref="gil"),
        make_record("m_nobody", "dates", "ISO dates", "global", author="human", actor_ref=None),
    )
    await login_as(LENA, name="Lena Vogt")
    await login_as(ADA, name="Ada Lovelace")

    page = tree(await client.get("/"))
    row = tree(await client.get("/memories/m_lena", headers=HTMX))

    def written_by(entry: Element, memory_id: str) -> str:
        return entry.one("li", {"data-entry": memory_id}).one(attrs={"data-written-by": True}).text

    assert written_by(page, "m_mine") == "You wrote this"
    assert written_by(page, "m_lena") == "Stated by Lena Vogt (lena), an administrator"
    assert written_by(page, "m_gil") == "Stated by gil, an administrator"
    assert written_by(page, "m_nobody") == "An administrator stated it"
    assert written_by(row, "m_lena") == "Stated by Lena Vogt (lena), an administrator"


async def test_the_preview_offers_people_by_name_and_names_whom_it_shows(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(ADA, name="Ada Lovelace")
    await seen_by_an_agent(client, "bob")
    token = await login_as(SAM, name="Sam Okafor")

    form = tree(await client.get("/support/preview"))
    shown = tree(await client.post("/support/preview/show", data={"csrf_token": token, "person": "ada"}))

    options = [(o["value"], o.text) for o in form.one("select", {"name": "person"}).find_all("option")]
    assert options == [
        ("", "Choose a person…"),
        ("sam", "Sam Okafor (sam) · Berlin · support"),
        ("bob", "bob · Berlin · no OnFile role"),
        ("ada", "Ada Lovelace (ada) · Berlin · no OnFile role"),
    ]
    assert shown.one(attrs={"data-actor": True}).text == "Ada Lovelace (ada) · Berlin · no OnFile role"
    assert shown.one("li", {"data-scope": "actor:ada"}).text == "Ada Lovelace (ada) alone"


HOSTILE = ["<script>alert('name')</script>", "\u202eecalevoL adA", "Ada\u2067 \u2069<b>Lovelace</b>"]


@pytest.mark.parametrize("name", HOSTILE)
async def test_a_name_is_shown_as_text_whatever_it_holds(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs, name: str
) -> None:
    await seed(services, make_record("m_ada", "labels", "depot first", "tenant:berlin", author="human"))
    await login_as(ADA, name=name)
    token = await login_as(Actor("lena", "berlin", ("onfile-admin", "onfile-support")))
    await client.post("/support/preview/show", data={"csrf_token": token, "person": "ada"})
    readable = name.replace("\u202e", "").replace("\u2067", "").replace("\u2069", "")

    for path in ("/admin/people", "/admin/people/erase?person=ada", "/admin/audit", "/admin", "/support/preview"):
        answer = await client.get(path)
        page = tree(answer)
        assert page.find("script", {"src": False}) is None, path
        assert page.find("b") is None, path
        assert not {"\u202e", "\u2067", "\u2069"} & set(answer.text), path
        assert readable in page.text, path


async def test_each_page_asks_for_the_names_it_shows_once_however_many_people_it_names(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    for n in range(30):
        await services.people.note(Actor(f"p{n}", "berlin"), name=f"Person {n}")
    await services.provider.add([shared(f"k{n}", "v", by=f"p{n}") for n in range(30)])
    token = await login_as(Actor("lena", "berlin", ("onfile-admin", "onfile-support")), name="Lena Vogt")
    for n in range(3):
        await client.post("/support/preview/show", data={"csrf_token": token, "person": f"p{n}"})

    for path in ("/admin/people", "/admin/audit", "/admin", "/support/preview", "/"):
        with statements_run(services.provider.engine) as statements:
            assert (await client.get(path)).status_code == 200, path
        names_read = [sql for sql in statements if "known_person.name" in sql]
        assert len(names_read) == 1, (path, names_read)


async def test_the_demo_names_its_people_before_anyone_logs_in(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed_demo(services)
    await login_as(Actor("root", "berlin", ("onfile-admin",)))

    facts = tree(await client.get("/admin"))
    people = tree(await client.get("/admin/people"))

    tone = facts.one("li", {"data-key": "tone"}).one(attrs={"data-written-by": True}).text
    listed = people.find_all("li", {"data-person": True})
    assert tone == "Written by Lena Vogt (lena)"
    assert {li["data-person"]: li.one(attrs={"data-named": True}).text for li in listed} == {
        "root": "Root (root)",
        **{person.sub: f"{person.name} ({person.sub})" for person in DEMO_PEOPLE if person.tenant == "berlin"},
    }
