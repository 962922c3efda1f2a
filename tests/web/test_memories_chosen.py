"""Forgetting several memories at once and correcting one, over HTTP: the plain forms, and what is refused."""

from __future__ import annotations

from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import ScopeContext
from tests.web.admin_builders import LENA
from tests.web.builders import ADA, BOB, HTMX, make_record, page_of, seed
from tests.web.conftest import LoginAs
from web.services import Services


async def seed_ada(services: Services) -> None:
    await seed(
        services,
        *(make_record(f"m_{n}", f"route-{n}", f"depot number {n}", days_ago=n + 1) for n in range(5)),
        make_record("m_tone", "tone", "short answers"),
        make_record("t_fiscal", "fiscal", "depot year", "tenant:berlin", author="human", actor_ref="lena"),
        make_record("b_1", "secret", "bob's own", "actor:bob", actor_ref="bob"),
    )


async def ada_overrides_everyones_units(services: Services) -> None:
    """Ada's own "units" over everyone's: her page lists everyone's beside hers, as the value hers overrides."""
    await seed(
        services,
        make_record("m_units", "units", "kilometres", author="human"),
        make_record("g_units", "units", "miles", "global", author="human", actor_ref="gil"),
    )


async def own_keys(services: Services) -> set[str]:
    return {r.key for r in await services.provider.list(scopes=["actor:ada"], ctx=ScopeContext(actor=ADA))}


async def test_ticked_memories_go_after_one_confirmation_and_one_undo_brings_them_all_back(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed_ada(services)
    token = await login_as(ADA)

    confirm = page_of(await client.get("/memories/forget-chosen", params=[("id", "m_1"), ("id", "m_3"), ("back", "/")]))
    box = confirm.one(attrs={"data-confirm-chosen": True})
    assert box["data-confirm-chosen"] == "2"
    assert box.one("h2").text == "Forget these 2 memories?"
    assert "may still see them until they finish" in box.text
    ids = [i["value"] for i in box.find_all("input", {"name": "id"})]
    assert ids == ["m_1", "m_3"]

    one = page_of(await client.get("/memories/forget-chosen", params=[("id", "m_1"), ("back", "/")]))
    single = one.one(attrs={"data-confirm-chosen": True})
    assert single.one("h2").text == "Forget this memory?"
    assert "It goes at once." in single.text
    assert "may still see it until they finish" in single.text
    assert single.one("a", {"data-action": "cancel"}).text == "Keep it"

    done = await client.post(
        "/memories/forget-chosen",
        data={"csrf_token": token, "back": "/", "id": ids},
        follow_redirects=False,
    )

    assert done.status_code == 303
    assert "route-1" not in await own_keys(services)
    page = page_of(await client.get("/"))
    notice = page.one(attrs={"data-notice": "forgotten"})
    assert notice.one("p", {"class": "notice-message"}).text == "Forgotten: 2 memories."
    assert "may still see them until they finish" in notice.text
    undo_with = notice.one("input", {"name": "token"})["value"]
    assert len(undo_with) < 400, "the undo names what was kept; it does not carry it"

    await client.post(
        "/memories/undo", data={"csrf_token": token, "token": undo_with, "back": "/"}, follow_redirects=False
    )

    assert {"route-1", "route-3"} <= await own_keys(services)
    assert (
        page_of(await client.get("/"))
        .one(attrs={"data-notice": "restored"})
        .text.startswith("2 memories are back on file.")
    )


async def test_all_that_match_a_search_forgets_exactly_those_and_leaves_shared_facts(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed_ada(services)
    token = await login_as(ADA)

    confirm = page_of(await client.get("/memories/forget-chosen", params={"all": "1", "back": "/?q=depot"}))
    box = confirm.one(attrs={"data-confirm-chosen": True})
    assert box["data-confirm-chosen"] == "5"
    assert "1 shared fact" in box.one(attrs={"data-stays": True}).text
    expect = box.one("input", {"name": "expect"})["value"]

    await seed(services, make_record("m_new", "route-new", "another depot"))
    changed = await client.post(
        "/memories/forget-chosen", data={"csrf_token": token, "back": "/?q=depot", "all": "1", "expect": expect}
    )
    assert changed.status_code == 409, "what matches changed: asked again, nothing forgotten"
    assert len(await own_keys(services)) == 7
    again = page_of(changed).one(attrs={"data-confirm-chosen": True})
    assert again["data-confirm-chosen"] == "6"
    in_place = await client.post(
        "/memories/forget-chosen",
        data={"csrf_token": token, "back": "/?q=depot", "all": "1", "expect": expect},
        headers={**HTMX, "HX-Current-URL": "http://127.0.0.1:8000/?q=depot"},
    )
    assert in_place.status_code == 200, "htmx would show a 409 as a failure: the question is asked again in place"
    assert (in_place.headers["hx-retarget"], in_place.headers["hx-reswap"]) == ("#chooser-confirm", "innerHTML")
    assert page_of(in_place).one(attrs={"data-changed": True}).text.startswith("What matches changed")
    assert len(await own_keys(services)) == 7

    await client.post(
        "/memories/forget-chosen",
        data={
            "csrf_token": token,
            "back": "/?q=depot",
            "all": "1",
            "expect": again.one("input", {"name": "expect"})["value"],
        },
    )

    assert await own_keys(services) == {"tone"}
    tenant = await services.provider.list(scopes=["tenant:berlin"], ctx=ScopeContext(actor=ADA))
    assert [r.key for r in tenant] == ["fiscal"]


async def test_all_that_match_is_offered_when_more_than_one_does_and_tick_all_only_to_a_script(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed_ada(services)
    await login_as(ADA)

    several = page_of(await client.get("/", params={"q": "depot"}))
    one = page_of(await client.get("/", params={"q": "short"}))

    assert several.one("button", {"data-action": "choose-all-matching"}).text == "Choose all 5 that match…"
    assert one.find("button", {"data-action": "choose-all-matching"}) is None
    assert one.one("button", {"data-action": "forget-chosen"}).text == "Forget the ticked…"
    tick_all = several.one(attrs={"data-needs-script": True})
    assert "hidden" in tick_all.attrs, "a page without a script cannot tick them all: chooser.js shows it"


async def test_a_choice_reaching_beyond_ones_own_changes_nothing_and_says_why(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed_ada(services)
    token = await login_as(ADA)

    for ids, status, says in [
        ([], 400, "No memory was chosen"),
        (["m_1", "t_fiscal"], 403, "only their administrators can remove them"),
        (["m_1", "b_1"], 404, "no longer on file for you"),
        (["m_1", "nope"], 404, "no longer on file for you"),
    ]:
        response = await client.post("/memories/forget-chosen", data={"csrf_token": token, "back": "/", "id": ids})
        assert response.status_code == status, ids
        assert says in page_of(response).one(attrs={"data-problem": str(status)}).text

    missing_csrf = await client.post("/memories/forget-chosen", data={"back": "/", "id": ["m_1"]})
    assert missing_csrf.status_code == 403
    assert len(await own_keys(services)) == 6
    assert len(await services.provider.list(scopes=["actor:bob"], ctx=ScopeContext(actor=BOB))) == 1


async def test_a_tampered_or_foreign_undo_restores_nothing(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed_ada(services)
    token = await login_as(ADA)
    await client.post(
        "/memories/forget-chosen",
        data={"csrf_token": token, "back": "/", "id": ["m_1", "m_2"]},
        follow_redirects=False,
    )
    undo_with = page_of(await client.get("/")).one("input", {"name": "token"})["value"]

    tampered = await client.post(
        "/memories/undo", data={"csrf_token": token, "token": undo_with[:-4] + "AAAA", "back": "/"}
    )
    assert tampered.status_code == 410
    await login_as(BOB)
    foreign = await client.post("/memories/undo", data={"csrf_token": token, "token": undo_with, "back": "/"})
    assert foreign.status_code in {403, 410}
    assert "route-1" not in await own_keys(services)


async def test_a_correction_reads_as_stated_by_the_person_and_bad_input_keeps_what_they_typed(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed_ada(services)
    token = await login_as(ADA)

    form = page_of(await client.get("/memories/m_tone/edit?back=/"))
    assert form.one("textarea")["name"] == "text"
    assert form.one("textarea").text == "short answers"

    for text, says in [
        ("", "empty"),
        ("x" * 241, "240"),
        ("one\ntwo", "line"),
        ("abc\u202edef", "direction"),
    ]:
        refused = await client.post("/memories/m_tone/edit", data={"csrf_token": token, "back": "/", "text": text})
        assert refused.status_code == 400, text
        page = page_of(refused)
        assert says in page.one(attrs={"data-edit-error": True}).text.lower() or says in page.text
        # every page drops text-direction controls from what it shows: the refused one included
        shown = " ".join(text.split()).replace("\u202e", "")
        assert page.one("textarea").text == shown, "nothing they typed is lost"

    assert (await client.post("/memories/t_fiscal/edit", data={"csrf_token": token, "text": "x"})).status_code == 403
    assert (await client.post("/memories/b_1/edit", data={"csrf_token": token, "text": "x"})).status_code == 404
    assert (await client.post("/memories/m_tone/edit", data={"text": "sneaky"})).status_code == 403

    saved = await client.post(
        "/memories/m_tone/edit", data={"back": "/", "text": "long answers"}, headers={**HTMX, "X-CSRF-Token": token}
    )

    row = page_of(saved).one("li", {"data-entry": "m_tone"})
    assert row.one(attrs={"data-fact": True}).text == "long answers"
    assert row["data-author"] == "you"
    fiscal = page_of(await client.get("/")).one("li", {"data-entry": "t_fiscal"})
    assert fiscal.find(attrs={"data-action": "edit"}) is None
    assert fiscal.find("input", {"data-select": True}) is None


async def test_one_ticked_memory_is_forgotten_through_the_pages_own_form_with_and_without_htmx(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    """A form with one `id` sends it once, which a form reader takes as one value, not a list of one."""
    await seed_ada(services)
    await login_as(ADA)

    for memory_id, key, headers in (("m_1", "route-1", {}), ("m_2", "route-2", HTMX)):
        confirm = page_of(await client.get("/memories/forget-chosen", params=[("id", memory_id), ("back", "/")]))
        form = confirm.one("form", {"action": "/memories/forget-chosen"})
        sent = {i["name"]: i["value"] for i in form.find_all("input") if i.get("name")}

        done = await client.post("/memories/forget-chosen", data=sent, headers=headers, follow_redirects=False)

        assert done.status_code in (200, 303), done.text
        assert key not in await own_keys(services)
        shown = page_of(done) if headers else page_of(await client.get("/"))
        assert shown.one(attrs={"data-notice": "forgotten"}).one("p", {"class": "notice-message"}).text == (
            f"Forgotten: “{key}”."
        )
    assert len(await own_keys(services)) == 4


async def test_one_ticked_memory_that_is_not_ones_own_is_refused_for_what_it_is(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed_ada(services)
    token = await login_as(ADA)

    shared = await client.post("/memories/forget-chosen", data={"csrf_token": token, "back": "/", "id": "t_fiscal"})
    gone = await client.post("/memories/forget-chosen", data={"csrf_token": token, "back": "/", "id": "nope"})

    assert shared.status_code == 403
    assert gone.status_code == 404
    assert len(await own_keys(services)) == 6


async def test_a_wider_value_her_own_setting_overrides_is_refused_for_what_it_is_not_called_gone(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    """Her page lists everyone's "units" beside her own that overrides it: correcting or forgetting it
    is refused as not hers (403), not answered as if it were not on file."""
    await ada_overrides_everyones_units(services)
    token = await login_as(ADA)
    said = (
        "Applies to everyone; managed by OnFile's administrators: only its administrators can change or remove "
        "it. It does not apply to you: your own setting overrides it."
    )

    asked = await client.get("/memories/g_units/edit")
    corrected = await client.post("/memories/g_units/edit", data={"csrf_token": token, "back": "/", "text": "leagues"})
    forgotten = await client.post("/memories/g_units/forget", data={"csrf_token": token, "back": "/"})
    unknown = await client.get("/memories/nope/edit")

    for refused in (asked, corrected, forgotten):
        assert refused.status_code == 403
        assert said in page_of(refused).one(attrs={"data-problem": "403"}).text
    assert unknown.status_code == 404
    everyone = await services.provider.list(scopes=["global"], ctx=ScopeContext(actor=ADA))
    assert [(r.key, r.text) for r in everyone] == [("units", "miles")]


async def test_opening_a_wider_value_her_own_setting_overrides_goes_to_the_entry_that_lists_it(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await ada_overrides_everyones_units(services)
    await login_as(ADA)

    opened = await client.get("/memories/g_units", params={"back": "/?q=units"}, follow_redirects=False)
    unknown = await client.get("/memories/nope", follow_redirects=False)

    assert (opened.status_code, opened.headers["location"]) == (303, "/?q=units#entry-m_units")
    listed = page_of(await client.get("/?q=units")).one("li", {"id": "entry-m_units"})
    assert listed.one(attrs={"data-override": True}).text.count("miles") == 1
    assert unknown.status_code == 404


async def test_the_correction_form_never_stops_what_its_hint_says_it_takes(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed_ada(services)
    await login_as(ADA)

    form = page_of(await client.get("/memories/m_1/edit"))

    limit = services.settings.max_fact_chars
    assert form.one("textarea", {"name": "text"})["maxlength"] == str(limit * 2), "an emoji is two units to a browser"
    assert f"at most {limit} characters" in form.one("p", {"class": "field-hint"}).text


async def test_ticking_a_wider_value_her_own_overrides_is_refused_as_shared_not_missing(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await ada_overrides_everyones_units(services)
    token = await login_as(ADA)

    asked = await client.get("/memories/forget-chosen", params=[("id", "g_units"), ("back", "/")])
    sent = await client.post(
        "/memories/forget-chosen", data={"csrf_token": token, "back": "/", "id": ["g_units", "m_units"]}
    )

    for refused in (asked, sent):
        assert refused.status_code == 403
        assert "only their administrators can remove them" in page_of(refused).one(attrs={"data-problem": "403"}).text
    assert await own_keys(services) == {"units"}


async def test_keep_them_leads_back_to_the_same_view_with_the_same_memories_ticked(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed_ada(services)
    await login_as(ADA)

    asked = page_of(
        await client.get("/memories/forget-chosen", params=[("id", "m_1"), ("id", "m_3"), ("back", "/?q=depot")])
    )
    keep = asked.one(attrs={"data-confirm-chosen": True}).one("a", {"data-action": "cancel"})["href"]
    everything = page_of(await client.get("/memories/forget-chosen", params=[("all", "1"), ("back", "/?q=depot")]))
    keep_all = everything.one(attrs={"data-confirm-chosen": True}).one("a", {"data-action": "cancel"})["href"]

    assert keep == "/?q=depot&ticked=m_1&ticked=m_3"
    assert keep_all == "/?q=depot", "nothing was ticked: every match was chosen"
    back = page_of(await client.get(keep))
    rows = back.one(attrs={"id": "group-you"}).find_all(attrs={"data-entry": True})
    boxes = {row["data-entry"]: row.one("input", {"data-select": True}) for row in rows}
    assert len(boxes) == 5
    assert {id for id, box in boxes.items() if "checked" in box.attrs} == {"m_1", "m_3"}
    assert back.one("input", {"name": "q"})["value"] == "depot"


async def test_an_administrator_correcting_her_organisation_s_fact_on_her_page_is_told_where_she_can(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed_ada(services)

    await login_as(ADA)
    for_ada = page_of(await client.get("/memories/t_fiscal/edit")).one(attrs={"data-problem": "403"})
    await login_as(LENA)
    for_lena = page_of(await client.get("/memories/t_fiscal/edit")).one(attrs={"data-problem": "403"})

    said = "Managed by your organisation: only its administrators can change or remove it."
    assert said in for_ada.text
    assert "You are one of its administrators" not in for_ada.text
    assert said in for_lena.text
    assert "You are one of its administrators: change it in Administration, under Shared facts." in for_lena.text
