"""Forgetting from the page, as a plain form and in place with htmx, and undoing it."""

from __future__ import annotations

import base64
import string
from datetime import UTC, datetime, timedelta
from urllib.parse import unquote

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import MemoryOrigin, ScopeContext
from tests.web.builders import ADA, HTMX, make_record, page_of, seed
from tests.web.conftest import LoginAs
from tests.web.html_tree import Element
from web.kit.identity.sessions import SESSION_COOKIE
from web.me import undo
from web.services import Services

BASE64 = set(string.ascii_letters + string.digits + "-_=")


async def keys_on_page(client: AsyncTestClient[Litestar], path: str = "/") -> list[tuple[str, str]]:
    page = page_of(await client.get(path))
    return [(row["data-entry"], row["data-key"]) for row in page.find_all("li", {"data-entry": True})]


async def test_a_plain_form_forgets_and_redirects_back_with_a_notice_offering_undo(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("m_units", "units", "miles"), make_record("m_tone", "tone", "short"))
    token = await login_as(ADA)

    response = await client.post(
        "/memories/m_units/forget", data={"csrf_token": token, "back": "/?q=s&author=assistant"}, follow_redirects=False
    )

    assert response.status_code == 303
    assert response.headers["location"] == "/?q=s&author=assistant"
    page = page_of(await client.get("/"))
    notice = page.one(attrs={"data-notice": "forgotten"})
    assert notice.one("p", {"class": "notice-message"}).text == "Forgotten: “units”."
    assert notice.one("form", {"data-undo": True}).one("input", {"name": "csrf_token"})["value"] == token
    assert [row["data-key"] for row in page.find_all("li", {"data-entry": True})] == ["tone"]
    again = page_of(await client.get("/?sort=key"))  # a reload, another view: Undo is still offered
    undo_with = again.one(attrs={"data-notice": "forgotten"}).one("input", {"name": "token"})["value"]
    form = {"csrf_token": token, "token": undo_with, "back": "/"}
    assert (await client.post("/memories/undo", data=form, follow_redirects=False)).status_code == 303
    restored = page_of(await client.get("/"))
    assert restored.one(attrs={"data-notice": "restored"})
    after = page_of(await client.get("/"))
    assert after.find(attrs={"data-notice": True}) is None, "any other notice is shown once"


async def test_undo_outlives_a_reload_after_a_forget_in_place_until_it_is_used(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("m_units", "units", "miles"), make_record("m_tone", "tone", "short"))
    token = await login_as(ADA)
    await client.post("/memories/m_units/forget", data={"csrf_token": token}, headers=HTMX)

    reloaded = page_of(await client.get("/"))
    undo_with = reloaded.one(attrs={"data-notice": "forgotten"}).one("input", {"name": "token"})["value"]
    undone = await client.post("/memories/undo", data={"csrf_token": token, "token": undo_with}, headers=HTMX)

    assert undone.status_code == 200
    assert [row["data-key"] for row in page_of(undone).find_all("li", {"data-entry": True})] == ["tone", "units"]
    assert page_of(await client.get("/")).find(attrs={"data-notice": True}) is None


async def test_what_undo_needs_travels_encrypted_so_the_browser_never_shows_the_forgotten_fact(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("m_health", "health", "zebraquartz allergy"))
    token = await login_as(ADA)

    response = await client.post("/memories/m_health/forget", data={"csrf_token": token}, follow_redirects=False)
    cookie = response.cookies.get(undo.NOTICE_COOKIE)
    page = await client.get("/")
    undo_with = page_of(page).one("form", {"data-undo": True}).one("input", {"name": "token"})["value"]

    assert cookie
    for carried in (unquote(cookie), undo_with):
        assert "zebraquartz" not in carried
        for part in carried.replace('"', "").split("."):  # whatever it is wrapped in, no part decodes to it
            decoded = base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)) if set(part) <= BASE64 else b""
            assert b"zebraquartz" not in decoded
    assert "zebraquartz" not in page.text


async def test_an_unsafe_return_address_comes_back_to_the_page_itself(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("m_units", "units", "miles"))
    token = await login_as(ADA)

    response = await client.post(
        "/memories/m_units/forget", data={"csrf_token": token, "back": "https://evil.example/"}, follow_redirects=False
    )

    assert (response.status_code, response.headers["location"]) == (303, "/")


async def test_htmx_forgets_in_place_answering_nothing_for_the_row_and_the_new_counts(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("m_units", "units", "miles"), make_record("m_tone", "tone", "short"))
    token = await login_as(ADA)

    response = await client.post(
        "/memories/m_units/forget", data={"back": "/"}, headers={**HTMX, "X-CSRF-Token": token}
    )

    assert response.status_code == 200
    assert "hx-retarget" not in response.headers
    parts = page_of(response).children
    elements = [p for p in parts if isinstance(p, Element)]
    assert all(e.get("hx-swap-oob") for e in elements), "nothing but out-of-band parts: the row itself goes"
    by_id = {e["id"]: e for e in elements}
    assert by_id["notice"]["hx-swap-oob"] == "innerHTML"
    assert by_id["notice"].one(attrs={"data-notice": "forgotten"}).one("button", {"data-action": "undo"})
    assert by_id["summary"]["data-total"] == "1"
    assert by_id["count-you"].text == "1 memory"
    assert await keys_on_page(client) == [("m_tone", "tone")]


async def test_forgetting_your_own_override_reveals_the_wider_value(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(
        services,
        make_record("m_mine", "units", "miles"),
        make_record("m_org", "units", "kilometres", "tenant:berlin", author="human"),
        make_record("m_tone", "tone", "short"),
    )
    token = await login_as(ADA)
    assert await keys_on_page(client) == [("m_tone", "tone"), ("m_mine", "units"), ("m_org", "units")]

    response = await client.post("/memories/m_mine/forget", data={"back": "/"}, headers={**HTMX, "X-CSRF-Token": token})

    assert (response.headers["hx-retarget"], response.headers["hx-reswap"]) == ("#on-file", "outerHTML")
    answer = page_of(response)
    revealed = answer.one("section", {"data-group": "organisation"}).one("li", {"data-entry": "m_org"})
    assert revealed.one(attrs={"data-fact": True}).text == "kilometres"
    assert answer.one(attrs={"data-notice-detail": True}).text == (
        "Your organisation's default is “kilometres”, and that now applies to you. "
        "Conversations already in progress may still see it until they finish, at most 48 hours."
    )
    assert await keys_on_page(client) == [("m_tone", "tone"), ("m_org", "units")]


async def test_forgetting_a_wider_memory_is_refused_saying_who_manages_it(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("m_org", "tone", "formal", "tenant:berlin", author="human"))
    token = await login_as(ADA)

    plain = await client.post("/memories/m_org/forget", data={"csrf_token": token, "back": "/"})
    htmx = await client.post("/memories/m_org/forget", data={"back": "/"}, headers={**HTMX, "X-CSRF-Token": token})

    assert plain.status_code == 403
    problem = page_of(plain).one(attrs={"data-problem": "403"})
    assert problem.one("h1").text == "This memory can't be forgotten here"
    assert problem.one("p", {"data-reason": True}).text == (
        "Managed by your organisation: only its administrators can change or remove it."
    )
    assert "tenant:berlin" not in problem.text, "the store's reason names the scope; the person reads words"
    assert htmx.status_code == 403
    assert page_of(htmx).one(attrs={"data-problem": "403"}).get("role") == "alert"
    assert await keys_on_page(client) == [("m_org", "tone")]


async def test_another_persons_and_an_unknown_memory_answer_the_same_404_and_a_beaten_one_is_not_hers(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(
        services,
        make_record("m_bob", "tone", "casual", "actor:bob", actor_ref="bob"),
        make_record("m_mine", "units", "miles", "actor:ada"),
        make_record("m_beaten", "units", "kilometres", "global", author="human"),
    )
    token = await login_as(ADA)

    bobs, unknown, beaten = [
        await client.post(f"/memories/{id}/forget", data={"csrf_token": token, "back": "/"})
        for id in ("m_bob", "nope", "m_beaten")
    ]

    assert (bobs.status_code, unknown.status_code) == (404, 404)
    assert bobs.text == unknown.text, "another person's memory is not told from one that does not exist"
    assert page_of(bobs).one("h1").text == "That memory isn't on file for you"
    assert beaten.status_code == 403, "listed on her page: refused as not hers, not called missing"
    assert "your own setting overrides it" in page_of(beaten).one(attrs={"data-problem": "403"}).text
    assert await keys_on_page(client) == [("m_mine", "units"), ("m_beaten", "units")], "listed, but not hers to forget"


async def test_forgetting_with_htmx_what_another_tab_forgot_brings_the_list_up_to_date_with_the_notice(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("m_units", "units", "miles"), make_record("m_tone", "tone", "short"))
    token = await login_as(ADA)
    headers = {**HTMX, "X-CSRF-Token": token}
    await client.post("/memories/m_units/forget", data={"back": "/"}, headers=headers)  # the other tab

    stale = await client.post("/memories/m_units/forget", data={"back": "/"}, headers=headers)

    assert stale.status_code == 404
    roots = [p for p in page_of(stale).children if isinstance(p, Element)]
    assert [r["data-problem"] for r in roots] == ["404"], "one notice, as the page's script expects"
    notice = roots[0]
    assert notice.one(attrs={"data-refreshed": True}).text == (
        "It is no longer shown: the list has been brought up to date."
    )
    listing = notice.one("section", {"id": "on-file"})
    assert listing["hx-swap-oob"] == "outerHTML"
    assert [row["data-entry"] for row in listing.find_all("li", {"data-entry": True})] == ["m_tone"]
    assert listing.one(attrs={"id": "summary"})["data-total"] == "1"
    assert notice.one("select", {"id": "filter-group"})["hx-swap-oob"] == "true"


async def test_a_plain_form_without_its_csrf_token_changes_nothing(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("m_units", "units", "miles"))
    await login_as(ADA)

    missing = await client.post("/memories/m_units/forget", data={"back": "/"})
    forged = await client.post("/memories/m_units/forget", data={"back": "/", "csrf_token": "0" * 64})

    assert (missing.status_code, forged.status_code) == (403, 403)
    assert await keys_on_page(client) == [("m_units", "units")]


async def test_forgetting_without_a_login_goes_to_the_login(client: AsyncTestClient[Litestar]) -> None:
    plain = await client.post("/memories/m_units/forget", data={"back": "/"}, follow_redirects=False)

    assert plain.status_code == 303
    assert plain.headers["location"].startswith("/login?next=")


async def test_forgetting_with_htmx_after_the_session_ended_says_so_changes_nothing_and_signs_in_back_here(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("m_units", "units", "miles"))
    token = await login_as(ADA)
    await services.sessions.delete(client.cookies[SESSION_COOKIE])  # it ended while the page was open

    response = await client.post(
        "/memories/m_units/forget",
        data={"back": "/"},
        headers={**HTMX, "X-CSRF-Token": token, "HX-Current-URL": "http://127.0.0.1:8000/?q=mi&group=you"},
        follow_redirects=False,
    )

    assert response.status_code == 401
    assert "hx-redirect" not in response.headers
    roots = [p for p in page_of(response).children if isinstance(p, Element)]
    assert [r["data-problem"] for r in roots] == ["401"], "one notice, which the page puts in #notice"
    assert roots[0]["role"] == "alert"
    assert roots[0].one("p").text == (
        "Your session has ended. Nothing was changed. Sign in again, and you come back to this page to carry on."
    )
    sign_in = roots[0].one("a", {"data-action": "sign-in"})
    assert (sign_in["href"], sign_in.text) == ("/login?next=/%3Fq%3Dmi%26group%3Dyou", "Sign in again")
    assert await services.provider.get("m_units") is not None


def undo_token_on(page: Element) -> str:
    return page.one("form", {"data-undo": True}).one("input", {"name": "token"})["value"]


async def forget_plainly(client: AsyncTestClient[Litestar], id: str, token: str) -> str:
    """Forget with the plain form, follow the redirect, and return the undo token the page offers."""
    page = page_of(await client.post(f"/memories/{id}/forget", data={"csrf_token": token, "back": "/"}))
    return undo_token_on(page)


async def test_undo_puts_the_memory_back_as_it_was_with_its_id_origin_and_date(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    seeded = make_record("m_tone", "tone", "short answers", thread_id="thr_1", run_id="run_1", days_ago=40)
    await seed(services, seeded)
    token = await login_as(ADA)
    undo_with = await forget_plainly(client, "m_tone", token)

    response = await client.post(
        "/memories/undo", data={"csrf_token": token, "token": undo_with, "back": "/"}, follow_redirects=False
    )

    assert (response.status_code, response.headers["location"]) == (303, "/")
    page = page_of(await client.get("/"))
    assert page.one(attrs={"data-notice": "restored"}).text.startswith("“tone” is back on file.")
    row = page.one("li", {"data-key": "tone"})
    assert row["data-entry"] == "m_tone", "the same memory, not a new write"
    assert row.one(attrs={"data-fact": True}).text == "short answers"
    assert row["data-author"] == "assistant"
    assert row.one("time")["datetime"] == seeded.updated_at.isoformat().replace("+00:00", "Z")
    (record,) = await services.provider.list(scopes=["actor:ada"], ctx=ScopeContext(actor=ADA))
    assert record.origin == MemoryOrigin(author="agent", thread_id="thr_1", run_id="run_1", actor_ref="ada")
    assert record.updated_at == seeded.updated_at


async def test_undo_with_htmx_answers_the_list_and_the_notice(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("m_tone", "tone", "short"))
    token = await login_as(ADA)
    forgotten = page_of(
        await client.post("/memories/m_tone/forget", data={"back": "/"}, headers={**HTMX, "X-CSRF-Token": token})
    )

    response = await client.post(
        "/memories/undo",
        data={"token": undo_token_on(forgotten), "back": "/"},
        headers={**HTMX, "X-CSRF-Token": token},
    )

    assert response.status_code == 200
    answer = page_of(response)
    assert answer.one("section", {"id": "on-file"}).one("li", {"data-key": "tone"})
    assert answer.one(attrs={"id": "notice", "hx-swap-oob": "innerHTML"}).one(attrs={"data-notice": "restored"})


async def test_undo_keeps_a_value_written_since_the_forget(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("m_tone", "tone", "short"))
    token = await login_as(ADA)
    undo_with = await forget_plainly(client, "m_tone", token)
    await seed(services, make_record("m_new", "tone", "detailed"))

    response = await client.post("/memories/undo", data={"csrf_token": token, "token": undo_with, "back": "/"})

    assert response.status_code == 409
    assert "newer value was kept" in page_of(response).one(attrs={"data-problem": "409"}).text
    assert await keys_on_page(client) == [("m_new", "tone")]


async def test_a_second_undo_says_it_was_already_undone_not_that_it_is_too_late(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("m_tone", "tone", "short"))
    token = await login_as(ADA)
    undo_with = await forget_plainly(client, "m_tone", token)
    form = {"csrf_token": token, "token": undo_with, "back": "/"}

    first = await client.post("/memories/undo", data=form, follow_redirects=False)
    again = await client.post("/memories/undo", data=form)
    by_htmx = await client.post(
        "/memories/undo", data={"token": undo_with, "back": "/"}, headers={**HTMX, "X-CSRF-Token": token}
    )

    assert (first.status_code, again.status_code, by_htmx.status_code) == (303, 409, 409)
    problem = page_of(again).one(attrs={"data-problem": "409"}).text
    assert "That has already been undone" in problem
    assert "too late" not in problem
    assert "That has already been undone" in page_of(by_htmx).text
    assert await keys_on_page(client) == [("m_tone", "tone")], "nothing lost, nothing doubled"


@pytest.mark.parametrize("tamper", ["forged", "other session", "expired"])
async def test_an_undo_token_that_is_forged_foreign_or_late_restores_nothing(
    client: AsyncTestClient[Litestar],
    services: Services,
    login_as: LoginAs,
    monkeypatch: pytest.MonkeyPatch,
    tamper: str,
) -> None:
    await seed(services, make_record("m_tone", "tone", "short"))
    token = await login_as(ADA)
    undo_with = await forget_plainly(client, "m_tone", token)
    if tamper == "forged":
        flipped = "B" if undo_with[40] == "A" else "A"
        undo_with = f"{undo_with[:40]}{flipped}{undo_with[41:]}"
    elif tamper == "other session":
        token = await login_as(ADA)
    else:
        later = datetime.now(UTC) + timedelta(seconds=undo.UNDO_SECONDS + 5)
        monkeypatch.setattr("web.me.pages._now", lambda: later)

    response = await client.post("/memories/undo", data={"csrf_token": token, "token": undo_with, "back": "/"})

    assert response.status_code == 410
    assert page_of(response).one("h1").text == "That can't be undone"
    assert await keys_on_page(client) == []


async def test_a_search_in_place_after_the_session_ended_leaves_the_address_on_the_page_shown(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    """The search was not shown, so the browser must not put it in the address bar: the notice says to sign
    in again, and doing so comes back to the page the person still sees."""
    await seed(services, make_record("m_units", "units", "miles"))
    await login_as(ADA)
    await services.sessions.delete(client.cookies[SESSION_COOKIE])

    searched = await client.get(
        "/",
        params={"q": "report"},
        headers={**HTMX, "HX-Target": "on-file", "HX-Current-URL": "http://127.0.0.1:8000/?group=you"},
    )

    assert searched.status_code == 401
    assert searched.headers["hx-push-url"] == "false"
    sign_in = page_of(searched).one("a", {"data-action": "sign-in"})
    assert sign_in["href"] == "/login?next=/%3Fgroup%3Dyou"
