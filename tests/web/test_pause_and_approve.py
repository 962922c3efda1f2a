"""Pause and approve, as the agent runtime sees it over HTTP, on SQLite and PostgreSQL: a paused
person's remember is ok=false and writes nothing; with approval required a remember waits outside the
digest until the person approves (an ordinary memory) or discards (gone) it; replays answer alike."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from litestar import Litestar

from store import Actor, MemoryOrigin, ScopeContext
from store.domain.block import REMEMBER_INVITATION
from store.domain.controls import BEGUN_WHILE_PAUSED, MEMORY_PAUSED, WAITING_FOR_APPROVAL
from tests.web.admin_builders import LENA, tree
from tests.web.conftest import AGENT_TOKEN, SECRET, LoginAs
from web.services import Services
from web.settings import Settings

AUTH = {"Authorization": f"Bearer {AGENT_TOKEN}"}
ADA = Actor("ada", "berlin")
ADA_WIRE = {"id": "ada", "tenantRef": "berlin", "roles": []}


@pytest.fixture
async def client(app: Litestar, services: Services) -> AsyncIterator[httpx.AsyncClient]:
    """The application on the test's own event loop (asyncpg's connections belong to the loop that
    opened them, and the services were opened on this one), without its start-up: the services it
    would open are these, and its periodic pruning plays no part here."""
    app.state.services = services
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]  # Litestar types its scope narrower than httpx
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as on_this_loop:
        yield on_this_loop


@pytest.fixture
def settings(database_url: str) -> Settings:
    return Settings(
        database_url=database_url,
        base_url="http://127.0.0.1:8000",
        secret_key=SECRET,
        oidc_issuer="http://127.0.0.1:1",
        oidc_client_id="onfile",
        oidc_client_secret="client-secret",
        agent_tokens=AGENT_TOKEN,
    )


async def digest(client: httpx.AsyncClient, run: str) -> Any:
    response = await client.post(f"/agent/runs/{run}/digest", json={"actor": ADA_WIRE, "text": ""}, headers=AUTH)
    assert response.status_code == 200
    return response.json()


async def remember(client: httpx.AsyncClient, run: str, call: str, key: str, fact: str) -> Any:
    body = {"callId": call, "key": key, "fact": fact}
    response = await client.post(f"/agent/runs/{run}/remember", json=body, headers=AUTH)
    assert response.status_code == 200
    return response.json()


async def test_a_paused_persons_remember_is_refused_nothing_written_and_replayed_alike(
    client: httpx.AsyncClient, services: Services, login_as: LoginAs
) -> None:
    token = await login_as(ADA)
    paused = await client.post("/memories/pause", data={"csrf_token": token, "paused": "yes"}, follow_redirects=False)
    assert paused.status_code == 303
    await digest(client, "run_1")

    answer = await remember(client, "run_1", "call_1", "units", "kilometres")

    assert answer == {"ok": False, "error": MEMORY_PAUSED}
    assert not await services.provider.list(scopes=["actor:ada"], ctx=ScopeContext(ADA))
    await client.post("/memories/pause", data={"csrf_token": token, "paused": "no"})
    assert await remember(client, "run_1", "call_1", "units", "kilometres") == answer  # the journaled outcome
    await digest(client, "run_2")
    written = await remember(client, "run_2", "call_1", "units", "kilometres")
    assert written["ok"] is True
    assert written["record"]["text"] == "kilometres"


async def test_a_run_begun_while_paused_neither_writes_nor_holds_anything_after_the_person_resumes(
    client: httpx.AsyncClient, services: Services, login_as: LoginAs
) -> None:
    await require_approval(client, login_as)
    token = await login_as(ADA)
    await client.post("/memories/pause", data={"csrf_token": token, "paused": "yes"})
    begun = await digest(client, "run_1")
    await client.post("/memories/pause", data={"csrf_token": token, "paused": "no"})

    answer = await remember(client, "run_1", "call_1", "units", "kilometres")

    assert begun["writable"] is False
    assert answer == {"ok": False, "error": BEGUN_WHILE_PAUSED}
    assert not await services.provider.list(scopes=["actor:ada"], ctx=ScopeContext(ADA))
    waiting = await client.get("/agent/memories/waiting", headers={"X-CSRF-Token": token})
    assert waiting.json()["count"] == 0


async def test_a_pause_form_that_says_neither_yes_nor_no_changes_nothing_and_says_so(
    client: httpx.AsyncClient, services: Services, login_as: LoginAs
) -> None:
    token = await login_as(ADA)
    await client.post("/memories/pause", data={"csrf_token": token, "paused": "yes"})

    answer = await client.post("/memories/pause", data={"csrf_token": token, "paused": "maybe"})

    assert answer.status_code == 400
    assert "That did not change anything" in answer.text
    assert (await services.consent.controls(ADA)).paused is True


async def test_the_digest_still_works_while_paused(
    client: httpx.AsyncClient, services: Services, login_as: LoginAs
) -> None:
    await digest(client, "run_0")
    await remember(client, "run_0", "call_1", "units", "kilometres")
    token = await login_as(ADA)
    await client.post("/memories/pause", data={"csrf_token": token, "paused": "yes"})

    body = await digest(client, "run_1")

    assert [e["text"] for e in body["entries"]] == ["kilometres"]
    assert "units: kilometres" in body["block"]


async def test_while_paused_a_new_run_offers_no_remember_and_invites_none_until_resumed(
    client: httpx.AsyncClient, login_as: LoginAs
) -> None:
    await digest(client, "run_0")
    await remember(client, "run_0", "call_1", "units", "kilometres")
    token = await login_as(ADA)
    await client.post("/memories/pause", data={"csrf_token": token, "paused": "yes"})

    paused = await digest(client, "run_1")
    await client.post("/memories/pause", data={"csrf_token": token, "paused": "no"})
    replayed = await digest(client, "run_1")
    resumed = await digest(client, "run_2")

    assert (paused["writable"], paused["tools"]) == (False, [])
    assert REMEMBER_INVITATION not in paused["block"]
    assert "units: kilometres" in paused["block"]
    assert replayed == paused  # the run was resolved while paused, and is replayed as it was
    assert resumed["writable"] is True
    assert [tool["name"] for tool in resumed["tools"]] == ["remember"]
    assert REMEMBER_INVITATION in resumed["block"]


async def require_approval(client: httpx.AsyncClient, login_as: LoginAs) -> None:
    token = await login_as(LENA)
    response = await client.post(
        "/admin/organisation/approval", data={"csrf_token": token, "required": "yes"}, follow_redirects=False
    )
    assert response.status_code == 303


async def a_note_waiting(client: httpx.AsyncClient, login_as: LoginAs) -> Any:
    """Approval required at Berlin, and Ada's assistant's `units` note held for her: the answer to it."""
    await require_approval(client, login_as)
    await digest(client, "run_1")
    return await remember(client, "run_1", "call_1", "units", "kilometres")


async def test_with_approval_required_a_remember_waits_outside_the_digest_until_approved(
    client: httpx.AsyncClient, services: Services, login_as: LoginAs
) -> None:
    await require_approval(client, login_as)
    await digest(client, "run_1")

    held = await remember(client, "run_1", "call_1", "units", "kilometres")
    kept = await remember(client, "run_1", "call_2", "fiscal-year", "the calendar year")

    assert held["ok"] is True
    assert "record" not in held
    assert (held["pending"]["key"], held["pending"]["text"], held["pending"]["message"]) == (
        "units",
        "kilometres",
        WAITING_FOR_APPROVAL,
    )
    assert await remember(client, "run_1", "call_1", "units", "kilometres") == held  # a replay: no second note
    assert (await digest(client, "run_2"))["entries"] == []
    token = await login_as(ADA)
    waiting = (await client.get("/agent/memories/waiting")).json()
    assert (waiting["count"], [n["key"] for n in waiting["waiting"]]) == (2, ["units", "fiscal-year"])
    assert (await client.get("/agent/memories")).json() == []

    approved = await client.post(
        f"/memories/waiting/{held['pending']['id']}/approve", data={"csrf_token": token}, follow_redirects=False
    )
    discarded = await client.post(
        f"/memories/waiting/{kept['pending']['id']}/discard", data={"csrf_token": token}, follow_redirects=False
    )

    assert (approved.status_code, discarded.status_code) == (303, 303)
    assert approved.headers["location"] == discarded.headers["location"] == "/memories/waiting"
    said = tree(await client.get("/memories/waiting")).one(attrs={"data-settled": True})
    assert said.text == "Discarded “fiscal-year”: it is gone."
    assert tree(await client.get("/memories/waiting")).find(attrs={"data-settled": True}) is None, "said once"
    [entry] = (await digest(client, "run_3"))["entries"]
    assert (entry["key"], entry["text"], entry["origin"]["author"], entry["origin"]["runId"]) == (
        "units",
        "kilometres",
        "agent",
        "run_1",
    )
    assert (await client.get("/agent/memories/waiting")).json() == {"count": 0, "paused": False, "waiting": []}


async def test_the_waiting_page_says_whether_approval_is_still_asked_for(
    client: httpx.AsyncClient, services: Services, login_as: LoginAs
) -> None:
    await a_note_waiting(client, login_as)
    await login_as(ADA)
    asked = tree(await client.get("/memories/waiting"))
    token = await login_as(LENA)
    await client.post("/admin/organisation/approval", data={"csrf_token": token, "required": "no"})
    await login_as(ADA)

    no_longer = tree(await client.get("/memories/waiting"))

    assert asked.one("p", {"data-asked": "yes"}).text.startswith("Your organisation asks you to approve")
    lede = no_longer.one("p", {"data-asked": "no"}).text
    assert lede.startswith("Your organisation no longer asks you to approve")
    assert "the notes it held while it did still wait for you" in lede
    assert no_longer.one("li", {"data-key": "units"}), "what was held still waits"


async def test_a_waiting_note_shows_the_persons_own_memory_that_approving_it_would_replace(
    client: httpx.AsyncClient, services: Services, login_as: LoginAs
) -> None:
    stated = MemoryOrigin(author="human", actor_ref="ada")
    await services.provider.write(key="units", text="miles", scope="actor:ada", origin=stated, ctx=ScopeContext(ADA))
    await a_note_waiting(client, login_as)
    await digest(client, "run_2")
    await remember(client, "run_2", "call_1", "tone", "short answers")
    await login_as(ADA)

    page = tree(await client.get("/memories/waiting"))

    units, tone = page.one("li", {"data-key": "units"}), page.one("li", {"data-key": "tone"})
    replaces = " ".join(units.one(attrs={"data-replaces": True}).text.split())
    assert replaces == "Approving it replaces what you wrote: miles"
    assert units.one("button", {"data-action": "approve"}).text == "Approve and replace"
    assert tone.find(attrs={"data-replaces": True}) is None
    assert tone.one("button", {"data-action": "approve"}).text == "Approve"


async def test_where_approval_is_not_asked_and_nothing_waits_the_waiting_page_says_just_that(
    client: httpx.AsyncClient, login_as: LoginAs
) -> None:
    await login_as(ADA)

    page = tree(await client.get("/memories/waiting"))

    lede = page.one("p", {"data-asked": "no"}).text
    assert lede.startswith("Your organisation does not ask you to approve what your assistant concludes")
    assert "no longer" not in lede
    assert page.one("p", {"data-no-waiting": True}).text == "Nothing waits for your approval."


async def test_a_waiting_note_can_be_settled_only_by_its_person(
    client: httpx.AsyncClient, services: Services, login_as: LoginAs
) -> None:
    held = await a_note_waiting(client, login_as)
    token = await login_as(Actor("max", "berlin"))

    for decision in ("approve", "discard"):
        response = await client.post(
            f"/memories/waiting/{held['pending']['id']}/{decision}", data={"csrf_token": token}
        )
        assert response.status_code == 404
        problem = tree(response).one(attrs={"data-problem": "404"})
        assert problem.one("h1").text == "That note is no longer waiting"
        assert problem.one("a", {"data-action": "back"})["href"] == "/memories/waiting"
    assert (await client.get("/agent/memories/waiting")).json()["count"] == 0
    await login_as(ADA)
    page = tree(await client.get("/"))
    assert page.one(attrs={"data-action": "waiting"})["data-waiting-count"] == "1"


async def test_settling_a_note_already_settled_answers_the_problem_page_or_its_notice(
    client: httpx.AsyncClient, services: Services, login_as: LoginAs
) -> None:
    held = await a_note_waiting(client, login_as)
    token = await login_as(ADA)
    path = f"/memories/waiting/{held['pending']['id']}/discard"
    assert (await client.post(path, data={"csrf_token": token}, follow_redirects=False)).status_code == 303

    again = await client.post(path, data={"csrf_token": token})
    in_place = await client.post(path, data={"csrf_token": token}, headers={"HX-Request": "true"})

    assert (again.status_code, in_place.status_code) == (404, 404)
    assert "no longer waiting" in tree(again).one(attrs={"data-problem": "404"}).one("h1").text
    notice = tree(in_place).one(attrs={"data-problem": "404"})
    assert "It may already have been approved or discarded." in notice.text
    assert notice.one("a", {"data-action": "dismiss"})["href"] == "/memories/waiting"


async def test_forgetting_all_of_mine_discards_the_notes_waiting_for_my_approval(
    client: httpx.AsyncClient, services: Services, login_as: LoginAs
) -> None:
    await a_note_waiting(client, login_as)
    token = await login_as(ADA)

    assert (await client.post("/memories/forget-all", data={"csrf_token": token})).status_code == 303

    assert (await client.get("/agent/memories/waiting")).json()["count"] == 0


async def test_the_approval_setting_is_audited_and_only_for_the_admins_own_organisation(
    client: httpx.AsyncClient, services: Services, login_as: LoginAs
) -> None:
    await require_approval(client, login_as)

    [entry] = [e for e in await services.audit.at_scopes(["tenant:berlin"]) if e.action == "approval"]

    assert (entry.who, entry.before, entry.after) == (
        "lena",
        {"approvalRequired": False, "byDefault": True},
        {"approvalRequired": True},
    )
    token = await login_as(ADA)
    refused = await client.post("/admin/organisation/approval", data={"csrf_token": token, "required": "no"})
    assert refused.status_code == 403
    assert (await services.consent.controls(ADA)).approval_required is True


async def test_erasing_a_person_removes_their_waiting_notes(
    client: httpx.AsyncClient, services: Services, login_as: LoginAs
) -> None:
    await require_approval(client, login_as)
    await digest(client, "run_1")
    await remember(client, "run_1", "call_1", "units", "a fact only Ada's note holds")
    token = await login_as(LENA)

    asked = tree(await client.get("/admin/people/erase", params={"person": "ada"}))
    erased = tree(await client.post("/admin/people/erase", params={"person": "ada"}, data={"csrf_token": token}))

    assert await services.consent.waiting(ADA) == []
    to_go = " ".join(asked.one("li", {"data-count": "waiting"}).text.split())
    assert to_go == "the note the assistant concluded about them, waiting for their approval;"
    assert erased.one("span", {"data-count": "waiting"}).text == "1 note waiting for their approval"
