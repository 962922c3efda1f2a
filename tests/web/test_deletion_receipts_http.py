"""Deletion receipts over HTTP: after a forget (one, or chosen), a forget-all and an erasure, the page
says what went from where, and the same receipt downloads as JSON, for the session that did it only."""

from __future__ import annotations

import json
from datetime import timedelta

from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor
from store.persistence import MemoryControlStore
from tests.web.builders import ADA, make_record, page_of, seed
from tests.web.conftest import LoginAs
from tests.web.html_tree import Element
from web.services import Services

LENA = Actor("lena", "berlin", ("onfile-admin",))


def lines(page: Element) -> dict[str, str]:
    return {li["data-receipt-line"]: li.text for li in page.find_all("li", {"data-receipt-line": True})}


async def download(client: AsyncTestClient[Litestar], page: Element) -> dict[str, object]:
    response = await client.get(page.one("a", {"data-action": "download-receipt"})["href"])
    assert response.status_code == 200
    assert response.headers["content-disposition"].startswith('attachment; filename="onfile-')
    body: dict[str, object] = json.loads(response.content)
    return body


async def test_a_forget_links_its_receipt_which_downloads_as_json_for_this_session_only(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("m_units", "units", "miles"), make_record("m_tone", "tone", "short"))
    token = await login_as(ADA)

    await client.post("/memories/m_units/forget", data={"csrf_token": token}, follow_redirects=False)
    link = page_of(await client.get("/")).one("a", {"data-action": "receipt"})["href"]
    receipt = page_of(await client.get(link))
    body = await download(client, receipt)

    assert lines(receipt)["memories"] == "Memories: 1 memory deleted."
    assert set(lines(receipt)) == {"memories", "search-index", "vectors", "journal", "audit", "undo"}
    assert body["act"] == "forget"
    assert body["person"] == "ada"
    places = {p["place"]: p for p in body["places"]}  # type: ignore[attr-defined]
    assert (places["memories"]["removed"], places["search-index"]["removed"]) == (1, 1)
    assert "miles" not in json.dumps(body)
    await login_as(ADA)  # another session: the receipt was sealed for the first
    elsewhere = await client.get(link)
    assert elsewhere.status_code == 404
    assert page_of(elsewhere).find(attrs={"data-no-receipt": True}) is not None
    none_given = await client.get("/memories/receipt")
    assert none_given.status_code == 404
    assert page_of(none_given).one(attrs={"data-account": True}), "still the signed-in page, with a way on"
    assert (await client.get(link.replace("/memories/receipt", "/memories/receipt.json"))).status_code == 404


async def test_forgetting_chosen_ones_links_a_receipt_counting_all_of_them(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("m_1", "units", "miles"), make_record("m_2", "tone", "short"))
    token = await login_as(ADA)

    await client.post(
        "/memories/forget-chosen", data={"csrf_token": token, "back": "/", "id": ["m_1", "m_2"]}, follow_redirects=False
    )
    notice = page_of(await client.get("/")).one(attrs={"data-notice": "forgotten"})
    receipt = page_of(await client.get(notice.one("a", {"data-action": "receipt"})["href"]))

    assert lines(receipt)["memories"] == "Memories: 2 memories deleted."


async def test_forget_all_shows_its_receipt_and_discards_the_notes_waiting_for_approval(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("m_units", "units", "miles"))
    await MemoryControlStore(services.provider.engine).hold(
        "ada", key="diet", text="vegetarian", thread_id=None, run_id=None
    )
    token = await login_as(ADA)

    confirm = page_of(await client.get("/memories/forget-all"))
    done = page_of(await client.post("/memories/forget-all", data={"csrf_token": token}))
    body = await download(client, done)

    assert confirm.one(attrs={"data-count": "waiting"}).text == (
        "The 1 note waiting for your approval is discarded with them."
    )
    assert lines(done)["waiting"] == "Notes waiting for approval: 1 note waiting for approval deleted."
    assert lines(done)["memories"] == "Memories: 1 memory deleted."
    assert body["act"] == "forget-all"
    assert await services.consent.waiting(ADA) == []


async def test_an_erasure_shows_the_administrator_its_receipt_to_download(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("m_units", "units", "miles"))
    await services.people.note(ADA)
    await services.sessions.create({"actor": {"id": "ada"}}, ttl=timedelta(hours=1), actor_id="ada")
    token = await login_as(LENA)

    done = page_of(await client.post("/admin/people/erase?person=ada", data={"csrf_token": token}))
    body = await download(client, done)

    assert lines(done)["memories"] == "Memories: 1 memory deleted."
    assert lines(done)["sessions"] == "Sign-in sessions: 1 session signed out."
    assert (body["act"], body["person"]) == ("erasure", "ada")
