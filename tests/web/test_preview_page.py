"""The prompt preview as support staff use it: choosing a person, reading the exact block with its
scopes, digest, size and what was left out, and the warning when always-on facts were dropped."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient
from sqlalchemy import text

from store import Actor
from store.admin import PEOPLE_SHOWN
from store.domain.block import REMEMBER_INVITATION
from tests.web.admin_builders import ADA, LENA, SAM, shared, tree
from tests.web.conftest import AGENT_TOKEN, LoginAs
from tests.web.html_tree import Element
from web.app import create_app
from web.kit.identity.oidc import Person
from web.kit.identity.sessions import SESSION_COOKIE, csrf_token, start_session
from web.services import Services, open_services
from web.settings import Settings
from web.support.views import LEFT_OUT_OPEN_AT_MOST


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.replace(max_memories=3)


def seed_berlin() -> list[Any]:
    return [
        shared("manifest", "print the manifest", pinned=True),
        shared("pallet-labels", "depot code first"),
        shared("units", "kilometres", "global"),
        shared("units", "miles for the UK depots", "actor:ada", author="agent", by="ada"),
        shared("tone", "short answers", "actor:ada", author="agent", by="ada"),
    ]


async def show(client: AsyncTestClient[Litestar], token: str, **fields: str) -> Element:
    response = await client.post("/support/preview/show", data={"csrf_token": token, **fields})
    assert response.status_code == 200, response.text
    return tree(response)


@pytest.fixture(autouse=True)
async def _ada_is_known(services: Services) -> None:
    """Ada has been seen (in an agent's call): support staff of her organisation may preview her."""
    await services.people.note(ADA)


@pytest.mark.parametrize("who", [ADA, LENA])
async def test_only_support_staff_may_preview(client: AsyncTestClient[Litestar], login_as: LoginAs, who: Actor) -> None:
    token = await login_as(who)

    page = await client.get("/support/preview")
    form = await client.post("/support/preview/show", data={"csrf_token": token, "actor_id": "ada"})
    api = await client.post("/support/preview", json={"actor": {"id": "ada"}}, headers={"X-CSRF-Token": token})

    assert page.status_code == form.status_code == 403
    assert tree(page).one("h1").text == "The prompt preview is for support staff"
    assert f"You are signed in as {who.id.title()}, who does not have it" in tree(page).text
    assert tree(page).one(attrs={"data-forbidden": True}).one("a", {"data-action": "personal-page"})["href"] == "/"
    assert (api.status_code, api.json()) == (
        403,
        {"error": f"Previewing prompts is for support staff; {who.id} may not preview them."},
    )


async def test_a_list_cut_at_the_most_recently_seen_says_so_and_a_typed_id_still_reaches_the_rest(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    for n in range(PEOPLE_SHOWN):  # seen after Ada: she drops off the list
        await services.people.note(Actor(f"driver-{n:03d}", "berlin"))
    token = await login_as(SAM)

    page = tree(await client.get("/support/preview"))
    typed = tree(await client.post("/support/preview/show", data={"csrf_token": token, "actor_id": "ada"}))

    offered = [o["value"] for o in page.one("select", {"name": "person"}).find_all("option") if o["value"]]
    assert len(offered) == PEOPLE_SHOWN
    assert "ada" not in offered
    assert page.one("span", {"data-more-people": True}).text == (
        f"Only the {PEOPLE_SHOWN} seen most recently are listed: type anyone else's id below."
    )
    assert typed.find(attrs={"data-error": True}) is None
    assert typed.one("section", {"data-preview-result": True})


async def test_the_form_offers_the_people_of_the_support_persons_organisation_with_their_roles(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(LENA)
    await login_as(Actor("carl", "hamburg"))  # another organisation's: never offered
    await login_as(ADA)
    await login_as(SAM)

    page = tree(await client.get("/support/preview"))

    options = page.one("select", {"name": "person"}).find_all("option")
    assert [(o["value"], o.text) for o in options] == [
        ("", "Choose a person…"),
        ("sam", "Sam (sam) · Berlin · support"),
        ("ada", "Ada (ada) · Berlin · no OnFile role"),
        ("lena", "Lena (lena) · Berlin · administrator"),
    ]
    assert [a["data-nav"] for a in page.find_all("a", {"data-nav": True})] == ["preview"]


async def test_a_preview_shows_the_exact_block_the_scopes_the_digest_and_what_was_left_out(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add(seed_berlin())
    await login_as(ADA)
    token = await login_as(SAM)
    body = {"actor": {"id": "ada", "tenantRef": "berlin", "roles": []}, "threadId": "thr_9", "text": "pallet labels"}
    agent = (
        await client.post("/agent/runs/run_1/digest", json=body, headers={"Authorization": f"Bearer {AGENT_TOKEN}"})
    ).json()

    page = await show(client, token, person="ada", thread_id="thr_9", text="pallet labels")

    result = page.one("section", {"data-preview-result": True})
    assert result.one(attrs={"data-actor": True}).text == "Ada (ada) · Berlin · no OnFile role"
    assert result.one("pre", {"data-block": True}).text.split() == agent["block"].split()
    assert [li["data-scope"] for li in result.one(attrs={"data-scopes": True}).find_all("li")] == [
        "actor:ada",
        "tenant:berlin",
        "global",
    ]
    assert [li.text for li in result.one(attrs={"data-scopes": True}).find_all("li")] == [
        "Ada (ada) alone",
        "everyone at Berlin",
        "everyone, in every organisation",
    ]
    assert [e["data-entry-key"] for e in result.find_all("li", {"data-entry-key": True})] == [
        e["key"] for e in agent["entries"]
    ]
    order = result.one(attrs={"data-entries-order": True}).text
    assert order.startswith("Always-on first, then from the person's own to everyone's."), "not the block's order"
    assert result.one(attrs={"data-chars": True})["data-chars"] == str(len(agent["block"]))
    assert result.one(attrs={"data-tokens": True}).text == f"about {(len(agent['block']) + 3) // 4} estimate"
    assert result.one(attrs={"data-recalled": True})["data-recalled"] == "true"
    left_out = {li["data-left-out-key"]: li["data-reason"] for li in result.find_all("li", {"data-left-out-key": True})}
    # the ranking fills the block: "units" is nearest in meaning after the matched key, "tone" is left out
    assert left_out == {"tone": "relevance"}
    assert result.find(attrs={"data-pinned-warning": True}) is None


async def test_an_expired_note_is_left_out_as_expired_and_each_reason_is_one_group(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add(seed_berlin())
    await services.expiry.set_lifetime(LENA, days=30)  # Ada's two notes are the assistant's: they expire
    past = datetime.now(UTC) - timedelta(minutes=1)
    async with services.provider.engine.begin() as connection:
        await connection.execute(text("UPDATE agent_memory SET expires_at = :past WHERE key = 'tone'"), {"past": past})
    token = await login_as(SAM)

    page = await show(client, token, actor_id="ada", text="pallet labels")

    groups = page.find_all("details", {"data-left-out-group": True})
    listed = {g["data-left-out-group"]: [li["data-left-out-key"] for li in g.find_all("li")] for g in groups}
    assert listed == {"expired": ["tone"]}
    [expired] = groups
    assert expired.one("summary").text.split() == ["Expired", "1"]
    assert expired.one("p", {"class": "left-out-why"}).text.startswith("It expired:")
    assert "open" in expired.attrs
    assert page.one(attrs={"data-left-out-count": True}).text == "1"
    assert (page.one(attrs={"data-omitted": True}).text, page.one(attrs={"data-expired": True}).text) == ("0", "1")
    assert "tone" not in page.one("pre", {"data-block": True}).text


async def test_a_long_list_of_what_was_left_out_is_grouped_by_reason_and_closed(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared(f"route-{i:02}", f"depot {i}") for i in range(LEFT_OUT_OPEN_AT_MOST + 4)])
    token = await login_as(SAM)

    page = await show(client, token, actor_id="ada")

    [space] = page.find_all("details", {"data-left-out-group": True})
    assert space["data-left-out-group"] == "budget"
    assert "open" not in space.attrs
    assert space.one(attrs={"data-group-count": True}).text == str(LEFT_OUT_OPEN_AT_MOST + 1)
    assert len(space.find_all("li", {"data-reason": "budget"})) == LEFT_OUT_OPEN_AT_MOST + 1  # all of them


async def agents_block_and_previewed(client: AsyncTestClient[Litestar], token: str) -> tuple[str, str]:
    """Ada's block as the agent API gives it, and as the preview page shows it."""
    body = {"actor": {"id": "ada", "tenantRef": "berlin"}, "text": ""}
    auth = {"Authorization": f"Bearer {AGENT_TOKEN}"}
    agent = (await client.post("/agent/runs/run_1/digest", json=body, headers=auth)).json()
    pre = (await show(client, token, actor_id="ada")).one("pre", {"data-block": True})
    return agent["block"], "".join(c for c in pre.children if isinstance(c, str))


async def test_the_block_in_the_page_is_byte_identical(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add(seed_berlin())
    token = await login_as(SAM)

    agents, previewed = await agents_block_and_previewed(client, token)

    assert previewed == agents


async def test_for_a_person_who_paused_memory_the_block_is_the_one_without_remember_the_agent_gets(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add(seed_berlin())
    ada = await login_as(ADA)
    paused = await client.post("/memories/pause", data={"csrf_token": ada, "paused": "yes"}, follow_redirects=False)
    assert paused.status_code == 303
    token = await login_as(SAM)

    agents, previewed = await agents_block_and_previewed(client, token)

    assert previewed == agents
    assert REMEMBER_INVITATION not in agents


async def test_dropped_always_on_facts_get_a_prominent_warning(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared(f"policy-{i}", f"rule {i}", pinned=True) for i in range(5)])
    await login_as(ADA)  # her sign-in gives OnFile her name
    token = await login_as(SAM)

    page = await show(client, token, actor_id="ada")

    warning = page.one(attrs={"data-pinned-warning": "2"})
    assert warning["role"] == "alert"
    assert "2 always-on facts were dropped from this block" in warning.text
    assert "more keys are pinned for Ada than a prompt carries" in warning.text, "named by her name, not her id"
    assert page.one(attrs={"data-pinned-omitted": "2"}).text == "2"
    reasons = {li["data-reason"] for li in page.find_all("li", {"data-left-out-key": True})}
    assert reasons == {"budget"}


async def test_a_typed_person_is_used_over_the_list_as_onfile_knows_them_and_an_empty_choice_is_explained(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("labels", "customer first")])
    await services.people.note(Actor("kim", "berlin", ("staff", "driver")))
    token = await login_as(SAM)

    typed = await show(client, token, person="sam", actor_id="kim", tenant_ref="hamburg", roles="nothing")
    nobody = await client.post("/support/preview/show", data={"csrf_token": token})
    too_long = await client.post("/support/preview/show", data={"csrf_token": token, "actor_id": "x" * 201})

    # roles OnFile does not use are not shown
    assert typed.one(attrs={"data-actor": True}).text == "kim · Berlin · no OnFile role"
    assert [e["data-entry-key"] for e in typed.find_all("li", {"data-entry-key": True})] == ["labels"]
    assert nobody.status_code == too_long.status_code == 400
    assert tree(nobody).one(attrs={"data-error": True}).text == "Choose a person from the list, or type their id."
    assert tree(nobody).find(attrs={"data-preview-result": True}) is None
    too_long_error = tree(too_long).one(attrs={"data-error": "actor_id"}).text
    assert too_long_error == "The id is 201 characters long; the limit is 200."


@pytest.mark.parametrize(
    ("fields", "field", "problem"),
    [
        ({"actor_id": "ada\u202e"}, "actor_id", "The id contains an invisible or control character (U+202E)"),
        ({"actor_id": "Ada "}, "actor_id", "The id starts or ends with a space"),
        ({"actor_id": "ada", "thread_id": "thr/9"}, "thread_id", "The thread id contains '/'"),
        ({"person": "ada", "thread_id": " thr_9"}, "thread_id", "The thread id starts or ends with a space"),
    ],
)
async def test_an_id_that_is_not_what_it_looks_like_is_refused_next_to_its_field(
    client: AsyncTestClient[Litestar], login_as: LoginAs, fields: dict[str, str], field: str, problem: str
) -> None:
    await login_as(ADA)
    token = await login_as(SAM)

    response = await client.post("/support/preview/show", data={"csrf_token": token, **fields})

    page = tree(response)
    assert response.status_code == 400
    error = page.one(attrs={"data-error": True})
    assert (error["data-error"], error.text.startswith(problem)) == (field, True), error.text
    control = page.one(attrs={"data-field": field})
    assert (control["aria-invalid"], control["aria-describedby"].split()[-1]) == ("true", error["id"])
    assert page.find(attrs={"data-preview-result": True}) is None


async def test_an_id_never_seen_and_a_person_of_another_organisation_get_one_and_the_same_answer(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([*seed_berlin(), shared("shift", "early", "actor:carl", author="agent", by="carl")])
    await login_as(Actor("carl", "hamburg"))
    token = await login_as(SAM)

    answers = {
        typed: await client.post("/support/preview/show", data={"csrf_token": token, "actor_id": typed})
        for typed in ("Ada", "carl")
    }
    chosen = await client.post("/support/preview/show", data={"csrf_token": token, "person": "carl"})

    for typed, answer in {**answers, "carl (chosen)": chosen}.items():
        assert answer.status_code == 404, typed
        page = tree(answer)
        assert page.find(attrs={"data-preview-result": True}) is None
        assert "early" not in answer.text
    errors = {typed: tree(answer).one(attrs={"data-error": "actor_id"}).text for typed, answer in answers.items()}
    assert errors["Ada"].replace("“Ada”", "“…”", 1) == errors["carl"].replace("“carl”", "“…”", 1)
    assert errors["Ada"].startswith("No one with the id “Ada” is known in your organisation.")
    assert tree(chosen).one(attrs={"data-error": True})["data-error"] == "person"


async def test_a_preview_writes_nothing_journals_nothing_and_is_audited(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add(seed_berlin())
    before = await services.admin.shared_memories(Actor("x", "berlin", ("onfile-admin",)))
    token = await login_as(SAM)

    await show(client, token, actor_id="ada", thread_id="thr_9", text="labels")
    await client.post(
        "/support/preview", json={"actor": {"id": "ada", "tenantRef": "berlin"}}, headers={"X-CSRF-Token": token}
    )

    assert await services.admin.shared_memories(Actor("x", "berlin", ("onfile-admin",))) == before
    assert await services.journal.erase_actor("ada") == 0, "no run was journaled for her"
    trail = await services.admin.audit_entries(LENA)
    assert [(e.who, e.action, e.scope, e.after["actor"]["id"]) for e in trail] == [
        ("sam", "preview", "tenant:berlin", "ada"),
        ("sam", "preview", "tenant:berlin", "ada"),
    ]


async def test_with_memory_switched_off_the_preview_says_so_and_the_api_answers_off(settings: Settings) -> None:
    off = settings.replace(memory_enabled=False)
    services = await open_services(off, migrate=True)
    await services.provider.add(seed_berlin())
    await services.people.note(ADA)
    person = Person(actor=SAM, name="Sam", email="sam@example.com", id_token="")
    session_id = await start_session(services, person, None)
    token = csrf_token(off.secret_key, session_id)
    async with AsyncTestClient(app=create_app(off, services=services), base_url="http://127.0.0.1:8000") as client:
        client.cookies.set(SESSION_COOKIE, session_id)
        page = await show(client, token, actor_id="ada")
        api = await client.post("/support/preview", json={"actor": {"id": "ada"}}, headers={"X-CSRF-Token": token})
    await services.close()

    assert page.one(attrs={"data-memory-off": True})
    assert page.one("pre", {"data-block": True}).text.startswith("<memory>"), "what it would be given, said so"
    assert (api.json()["memory"], api.json()["block"], api.json()["entries"]) == ("off", "", [])


async def test_stored_markup_is_inert_on_the_preview_page(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    hostile = '<script>alert(1)</script><img src=x onerror="alert(2)">'
    await services.provider.add(
        [shared("<b>key</b>", hostile), shared("tone", hostile, "actor:ada", author="agent", by="ada")]
    )
    token = await login_as(SAM)

    response = await client.post(
        "/support/preview/show", data={"csrf_token": token, "actor_id": '<i id="who">ada', "text": hostile}
    )

    page = tree(response)
    assert page.find("script", {"src": False}) is None
    assert page.find("img") is None
    assert page.find("b") is None
    assert page.find("i", {"id": "who"}) is None
    assert "<script>alert(1)" not in response.text
