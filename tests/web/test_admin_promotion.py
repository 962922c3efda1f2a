"""Promotion from the personal page: someone who administers a wider scope republishes one of their
own entries there, as a person, with the origin saying who promoted it and from which memory."""

from __future__ import annotations

from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor, MemoryOrigin, MemoryRecord, ScopeContext
from tests.web.admin_builders import ADA, LENA, shared, tree
from tests.web.builders import HTMX
from tests.web.conftest import LoginAs
from web.kit.words import PUBLISH_REFUSED
from web.services import Services


async def own_note(
    services: Services, actor: Actor, key: str = "cutoff", text: str = "orders close at 14:00"
) -> MemoryRecord:
    origin = MemoryOrigin("agent", thread_id="thr_1", run_id="run_1", actor_ref=actor.id)
    return await services.provider.write(
        key=key, text=text, scope=f"actor:{actor.id}", origin=origin, ctx=ScopeContext(actor)
    )


async def test_an_administrator_is_offered_to_publish_their_own_entries_for_their_organisation(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    note = await own_note(services, LENA)
    same = await own_note(services, LENA, "tone", "formal")
    await services.provider.add([shared("tone", "formal"), shared("units", "km")])
    await login_as(LENA)

    page = tree(await client.get("/"))

    offer = page.one("li", {"data-entry": note.id}).one("a", {"data-promote": "tenant:berlin"})
    assert offer["href"] == f"/memories/{note.id}/promote?scope=tenant%3Aberlin&back=/"
    assert offer["hx-get"] == f"/memories/{note.id}/promote?scope=tenant%3Aberlin"
    assert offer.text == "Publish for everyone in your organisation…"
    assert page.find("form", {"data-promote-form": True}) is None, "nothing is published without a confirmation"
    assert page.one("li", {"data-entry": same.id}).find(attrs={"data-promote": True}) is None, "already published"
    assert page.one("li", {"data-key": "units"}).find(attrs={"data-promote": True}) is None, "not their own"


async def test_someone_who_administers_nothing_is_offered_no_promotion(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await own_note(services, ADA)
    await login_as(ADA)

    page = tree(await client.get("/"))

    assert page.find(attrs={"data-promote": True}) is None


async def test_promoting_publishes_a_human_authored_copy_and_keeps_the_original(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    note = await own_note(services, LENA)
    token = await login_as(LENA)

    response = await client.post(
        f"/memories/{note.id}/promote",
        data={"csrf_token": token, "scope": "tenant:berlin", "back": "/?q=cut"},
        follow_redirects=False,
    )

    assert (response.status_code, response.headers["location"]) == (303, "/?q=cut")
    (published,) = await services.provider.list(scopes=["tenant:berlin"], ctx=ScopeContext(LENA))
    assert (published.key, published.text) == ("cutoff", "orders close at 14:00")
    assert published.origin == MemoryOrigin(
        "human", thread_id="thr_1", run_id="run_1", actor_ref="lena", promoted_from=note.id
    )
    assert await services.provider.get(note.id) == note
    page = tree(await client.get("/"))
    notice = page.one(attrs={"data-notice": "published"})
    assert notice.one("p", {"class": "notice-message"}).text == "Published “cutoff” for everyone in your organisation."
    entry = page.one("li", {"data-entry": note.id})
    assert entry.find(attrs={"data-overrides": True}) is None, "the same text differs from nothing"
    assert entry.one(attrs={"data-same-as": True}).text.startswith("Your organisation's default is the same, ")
    assert entry.find(attrs={"data-promote": True}) is None


async def test_htmx_promotes_in_place_and_answers_the_whole_list(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    note = await own_note(services, LENA)
    token = await login_as(LENA)

    response = await client.post(
        f"/memories/{note.id}/promote", data={"scope": "tenant:berlin"}, headers={**HTMX, "X-CSRF-Token": token}
    )

    assert (response.status_code, response.headers["hx-retarget"]) == (200, "#on-file")
    parts = tree(response)
    assert parts.one("section", {"id": "on-file"}).one("li", {"data-entry": note.id}).one(attrs={"data-same-as": True})
    assert parts.one(attrs={"data-notice": "published"})


async def test_a_refused_promotion_says_why_in_words_and_anothers_entry_is_not_found(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    theirs = await own_note(services, ADA)
    mine = await own_note(services, LENA)
    ada_token = await login_as(ADA)
    by_ada = await client.post(
        f"/memories/{theirs.id}/promote", data={"csrf_token": ada_token, "scope": "tenant:berlin"}
    )
    token = await login_as(LENA)

    wider = await client.post(f"/memories/{mine.id}/promote", data={"csrf_token": token, "scope": "global"})
    elsewhere = await client.post(f"/memories/{mine.id}/promote", data={"csrf_token": token, "scope": "tenant:hamburg"})
    not_mine = await client.post(f"/memories/{theirs.id}/promote", data={"csrf_token": token, "scope": "tenant:berlin"})

    assert by_ada.status_code == wider.status_code == elsewhere.status_code == 403
    for refused in (by_ada, wider, elsewhere):
        assert tree(refused).one("p", {"class": "notice-detail"}).text == PUBLISH_REFUSED
    assert not_mine.status_code == 404
    assert await services.provider.list(scopes=["tenant:berlin", "global"], ctx=ScopeContext(LENA)) == ()


async def test_publishing_asks_first_saying_who_will_be_told_it(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    note = await own_note(services, LENA)
    await login_as(LENA)

    page = tree(await client.get(f"/memories/{note.id}/promote?scope=tenant:berlin&back=/?q=cut"))

    assert page.one("h1").text == "Publish one of your notes?"
    confirm = page.one("li", {"data-confirm-promote": "tenant:berlin"})
    assert confirm.one("h2").text == "Publish “cutoff” for everyone in your organisation?"
    assert confirm.one("q").text == "orders close at 14:00"
    consequence = confirm.one(attrs={"data-consequence": True}).text
    assert "the assistant is told this about everyone in your organisation" in consequence
    assert "your own note stays" in consequence
    form = confirm.one("form", {"data-promote-form": True})
    assert (form["method"], form["action"]) == ("post", f"/memories/{note.id}/promote")
    assert {i["name"]: i["value"] for i in form.find_all("input")}.keys() == {"csrf_token", "back", "scope"}
    assert form.one("input", {"name": "scope"})["value"] == "tenant:berlin"
    assert form.one("input", {"name": "back"})["value"] == "/?q=cut"
    assert confirm.one("a", {"data-action": "cancel"})["href"] == f"/?q=cut#entry-{note.id}"
    assert await services.provider.list(scopes=["tenant:berlin"], ctx=ScopeContext(LENA)) == ()


async def test_with_htmx_the_confirmation_takes_the_entrys_place_and_cancel_puts_the_entry_back(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    note = await own_note(services, LENA)
    await login_as(LENA)

    confirm = tree(await client.get(f"/memories/{note.id}/promote?scope=tenant:berlin", headers=HTMX))
    row = tree(await client.get(f"/memories/{note.id}", headers=HTMX))
    browser = await client.get(f"/memories/{note.id}?back=/?q=cut", follow_redirects=False)

    assert confirm.find("html") is None
    assert confirm.one("li")["id"] == f"entry-{note.id}"
    assert confirm.one("a", {"data-action": "cancel"})["hx-get"] == f"/memories/{note.id}"
    assert row.one("li")["id"] == f"entry-{note.id}"
    assert row.one("li").one("a", {"data-promote": "tenant:berlin"})
    assert (browser.status_code, browser.headers["location"]) == (303, f"/?q=cut#entry-{note.id}")


async def test_no_confirmation_is_offered_for_a_scope_not_administered_or_someone_elses_entry(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    theirs = await own_note(services, ADA)
    mine = await own_note(services, LENA)
    await login_as(LENA)

    elsewhere = await client.get(f"/memories/{mine.id}/promote?scope=tenant:hamburg")
    not_mine = await client.get(f"/memories/{theirs.id}/promote?scope=tenant:berlin")

    assert (elsewhere.status_code, not_mine.status_code) == (403, 404)
