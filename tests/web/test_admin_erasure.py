"""Erasing a person from the elevated area: who may, what the confirmation says, what goes."""

from __future__ import annotations

from datetime import UTC, datetime

from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor, MemoryOrigin, MemoryRecord
from tests.web.admin_builders import tree
from tests.web.conftest import AGENT_TOKEN, LoginAs
from web.services import Services

LENA = Actor("lena", "berlin", ("onfile-admin",))
JONAS = Actor("jonas", "hamburg", ("onfile-admin",))
ADA = Actor("ada", "berlin")
T = datetime(2026, 9, 1, tzinfo=UTC)


async def seed(client: AsyncTestClient[Litestar], services: Services) -> None:
    await services.provider.add(
        [
            MemoryRecord("m1", "health", "zebraquartz", "actor:ada", MemoryOrigin("agent", "thr_1", "r", "ada"), T),
            MemoryRecord("m2", "tone", "formal", "tenant:berlin", MemoryOrigin("human", actor_ref="lena"), T),
        ]
    )
    auth = {"Authorization": f"Bearer {AGENT_TOKEN}"}
    body = {"actor": {"id": "ada", "tenantRef": "berlin"}, "threadId": "thr_1"}
    assert (await client.post("/agent/runs/run_1/digest", json=body, headers=auth)).status_code == 200


async def test_the_erasure_of_someone_who_holds_no_memory_says_none_not_a_count_of_zero(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.people.note(Actor("sam", "berlin"))
    await login_as(LENA)

    confirm = tree(await client.get("/admin/people/sam/erase"))

    assert confirm.one("li", {"data-count": "memories"}).text == "memories held about them alone: none at the moment;"


async def test_a_tenant_administrator_erases_a_person_of_their_organisation(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(client, services)
    token = await login_as(LENA)

    listed = await client.get("/admin/people")
    confirm = await client.get("/admin/people/ada/erase")
    done = await client.post("/admin/people/ada/erase", data={"csrf_token": token})

    assert 'data-person="ada"' in listed.text
    assert 'data-erasure="confirm"' in confirm.text
    assert "the one memory held about them alone" in confirm.text
    assert done.status_code == 200
    assert 'data-erasure="done"' in done.text
    assert await services.provider.get("m1") is None
    assert await services.provider.get("m2") is not None
    assert await services.journal.checkpoints("run_1") == {}
    assert next(e.action for e in await services.audit.at_scopes(["tenant:berlin"])) == "erase"


async def test_an_administrator_is_not_offered_their_own_erasure_and_is_told_how_instead(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(client, services)
    await login_as(ADA)
    token = await login_as(LENA, name="Lena Vogt")

    listed = tree(await client.get("/admin/people"))
    confirm = await client.get("/admin/people/erase?person=lena")
    done = await client.post("/admin/people/erase?person=lena", data={"csrf_token": token})

    me = listed.one("li", {"data-person": "lena"})
    assert me.find("a", {"data-action": "erase"}) is None
    assert me.one(attrs={"data-self": True}).text == "You: another administrator can erase you"
    assert listed.one("li", {"data-person": "ada"}).one("a", {"data-action": "erase"})
    assert (confirm.status_code, done.status_code) == (403, 403)
    refusal = tree(done)
    assert refusal.one("h1").text == "You can't erase yourself here"
    assert "Ask another administrator of your organisation to erase you." in refusal.text
    assert (await client.get("/admin/people")).status_code == 200, "still signed in"
    assert [e.action for e in await services.audit.at_scopes(["tenant:berlin"])] == []


async def test_a_run_of_theirs_still_in_flight_is_told_its_journal_is_gone_and_writes_nothing(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(client, services)
    token = await login_as(LENA)
    assert (await client.post("/admin/people/ada/erase", data={"csrf_token": token})).status_code == 200
    auth = {"Authorization": f"Bearer {AGENT_TOKEN}"}

    resumed = await client.post(
        "/agent/runs/run_1/digest", json={"actor": {"id": "ada", "tenantRef": "berlin"}}, headers=auth
    )
    remembered = await client.post(
        "/agent/runs/run_1/remember", json={"callId": "c1", "key": "health", "fact": "zebraquartz"}, headers=auth
    )

    assert (resumed.status_code, remembered.status_code) == (410, 410)
    assert "the person it was for was erased" in resumed.json()["error"]
    assert await services.provider.list(scopes=["actor:ada"], ctx=None) == ()  # type: ignore[arg-type]
    assert await services.journal.checkpoints("run_1") == {}


async def test_the_erasure_writes_its_counts_with_a_thousands_separator(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    origin = MemoryOrigin("agent", actor_ref="ada")
    await services.provider.add([MemoryRecord(f"m{n}", f"k{n}", "v", "actor:ada", origin, T) for n in range(1_200)])
    await services.people.note(ADA)
    token = await login_as(LENA)

    confirm = tree(await client.get("/admin/people/ada/erase"))
    done = tree(await client.post("/admin/people/ada/erase", data={"csrf_token": token}))

    assert confirm.one("li", {"data-count": "memories"}).text == "the 1,200 memories held about them alone;"
    assert done.one(attrs={"data-count": "memories"}).text.startswith("1,200 memories held about them alone,")


async def test_another_organisations_administrator_cannot_erase_and_is_told_the_person_is_not_theirs(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(client, services)
    token = await login_as(JONAS)

    listed = await client.get("/admin/people")
    confirm = await client.get("/admin/people/ada/erase")
    refused = await client.post("/admin/people/ada/erase", data={"csrf_token": token})

    assert 'data-person="ada"' not in listed.text
    assert (confirm.status_code, refused.status_code) == (404, 404)
    for answer in (confirm, refused):
        problem = tree(answer).one(attrs={"data-problem": "404"})
        assert problem.one("h1").text == "That person isn't here"
        assert "not among the people of the organisations you administer" in problem.text
        assert "does not administer" not in problem.text
        assert problem.one("a", {"data-action": "back"})["href"] == "/admin/people"
    assert await services.provider.get("m1") is not None


async def test_an_erasure_sent_again_or_a_person_never_seen_is_a_404_not_a_refusal(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(client, services)
    token = await login_as(LENA)
    assert (await client.post("/admin/people/ada/erase", data={"csrf_token": token})).status_code == 200

    again = await client.post("/admin/people/ada/erase", data={"csrf_token": token})  # Back, and submit again
    nobody = await client.get("/admin/people/nobody/erase")

    assert (again.status_code, nobody.status_code) == (404, 404)
    assert "may have been erased already" in tree(again).one(attrs={"data-problem": "404"}).text
    assert "“nobody” is not among the people" in tree(nobody).one(attrs={"data-problem": "404"}).text


async def test_an_end_user_is_refused_and_csrf_is_enforced(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(client, services)
    await login_as(ADA)
    assert (await client.get("/admin/people")).status_code == 403
    assert (await client.get("/admin/people/ada/erase")).status_code == 403

    await login_as(LENA)
    forged = await client.post("/admin/people/ada/erase", data={"csrf_token": "forged"})

    assert forged.status_code == 403
    assert await services.provider.get("m1") is not None


async def test_a_person_seen_before_two_hundred_others_is_still_listed_and_erased(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(client, services)
    for i in range(201):
        await services.people.note(Actor(f"h{i}", "hamburg"))
    token = await login_as(LENA)

    listed = tree(await client.get("/admin/people"))
    confirm = await client.get("/admin/people/ada/erase")
    done = await client.post("/admin/people/ada/erase", data={"csrf_token": token})

    assert listed.find(attrs={"data-person": "ada"}) is not None
    assert listed.find(attrs={"data-more": "people"}) is None
    assert (confirm.status_code, done.status_code) == (200, 200)
    assert await services.provider.get("m1") is None


async def test_the_people_page_says_when_the_list_is_cut_and_finds_anyone_by_id(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(client, services)
    for i in range(200):
        await services.people.note(Actor(f"b{i}", "berlin"))
    await login_as(LENA)

    listed = tree(await client.get("/admin/people"))
    found = tree(await client.get("/admin/people", params={"person": "ada"}))
    elsewhere = tree(await client.get("/admin/people", params={"person": "h1"}))

    assert len(listed.find_all(attrs={"data-person": True})) == 200
    assert listed.find(attrs={"data-person": "ada"}) is None  # seen first: past the cut
    assert "there are more" in listed.one(attrs={"data-more": "people"}).text
    assert listed.one("form", {"data-filters": True})["action"] == "/admin/people"
    assert [p["data-person"] for p in found.find_all(attrs={"data-person": True})] == ["ada"]
    assert elsewhere.find(attrs={"data-person": True}) is None
    assert elsewhere.one(attrs={"data-empty": "person"}) is not None


async def test_an_administrator_finds_a_person_by_the_name_they_signed_in_with(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(ADA, name="Ada Lovelace")
    await login_as(Actor("zoe", "hamburg"), name="Zoë Lovelace")
    await login_as(LENA, name="Lena Vogt")

    form = tree(await client.get("/admin/people")).one("form", {"data-filters": True})
    found = tree(await client.get("/admin/people", params={"person": "lovelace"}))
    reordered = tree(await client.get("/admin/people", params={"person": "LOVE ada"}))
    nobody = tree(await client.get("/admin/people", params={"person": "grace"}))

    assert form.one("label").text == "Find by name or id"
    assert [p["data-person"] for p in found.find_all(attrs={"data-person": True})] == ["ada"]  # not Hamburg's Zoë
    assert found.one(attrs={"data-person": "ada"}).one(attrs={"data-name": True}).text == "Ada Lovelace"
    assert found.one("input", {"name": "person"})["value"] == "lovelace"
    assert [p["data-person"] for p in reordered.find_all(attrs={"data-person": True})] == ["ada"]
    assert nobody.find(attrs={"data-person": True}) is None
    assert "named “grace”, or with that id" in nobody.one(attrs={"data-empty": "person"}).text


async def test_a_person_whose_id_is_no_path_segment_is_erased_through_the_query(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    auth = {"Authorization": f"Bearer {AGENT_TOKEN}"}
    odd = ("eve/1", "..", ".", "a b&c=d#e?f")
    for n, person in enumerate(odd):
        body = {"actor": {"id": person, "tenantRef": "berlin"}, "threadId": f"thr_{n}"}
        assert (await client.post(f"/agent/runs/run_{n}/digest", json=body, headers=auth)).status_code == 200
    token = await login_as(LENA)
    listed = tree(await client.get("/admin/people"))

    for person in odd:
        href = listed.one("li", {"data-person": person}).one("a", {"data-action": "erase"})["href"]
        confirm = await client.get(href)
        (action,) = [f["action"] for f in tree(confirm).find_all("form") if f["action"].startswith("/admin/people/")]
        done = await client.post(action, data={"csrf_token": token})

        assert href == action
        assert href.startswith("/admin/people/erase?person=")
        assert (confirm.status_code, done.status_code) == (200, 200), person
        assert tree(done).one("h1").text == f"{person} was erased"
    assert await services.people.recent() == [LENA]


async def test_the_erasure_address_with_the_id_in_the_path_still_leads_to_it(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(client, services)
    await login_as(LENA)

    moved = await client.get("/admin/people/ada/erase", follow_redirects=False)
    nobody = await client.get("/admin/people/erase")

    assert nobody.status_code == 404
    assert moved.status_code in (301, 302, 303, 307, 308)
    assert moved.headers["location"] == "/admin/people/erase?person=ada"


async def test_a_refused_erasure_is_shown_to_the_person_and_in_their_organisations_trail(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(client, services)
    token = await login_as(JONAS)

    refused = await client.post("/admin/people/erase?person=ada", data={"csrf_token": token})
    await login_as(ADA)
    looked = tree(await client.get("/looked"))

    assert refused.status_code == 404
    assert "Tried to erase what is on file about you, and was refused" in looked.text
    assert "For Hamburg" in looked.text, "the organisation he acted for, not hers"
    assert "For Berlin" not in looked.text
    attempts = [e for e in await services.audit.about("ada") if e.action == "erase-refused"]
    assert {(a.who, a.scope) for a in attempts} == {("jonas", "global"), ("jonas", "tenant:berlin")}
    assert await services.provider.get("m1") is not None
    await login_as(LENA)
    row = tree(await client.get("/admin/audit")).one("tr", {"data-audit-action": "erase-refused"})
    assert "Tried to erase a person, and was refused" in row.text
    assert "Asked to erase" in row.text
    token = await login_as(JONAS)
    unknown = await client.post("/admin/people/erase?person=nobody-zz", data={"csrf_token": token})
    assert unknown.status_code == 404
    own_trail = await client.get("/admin/audit.json")
    assert "ada" not in own_trail.text, "his trail would tell whether an id is a person somewhere, and where"
    assert "berlin" not in own_trail.text
