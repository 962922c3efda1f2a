"""Filtering the page, its counts, and reaching every one of 10,000 memories."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from urllib.parse import parse_qs, urlsplit

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor, MemoryRecord
from store.persistence.registry import Origin
from tests.web.builders import ADA, HTMX, make_record, page_of, seed
from tests.web.conftest import LoginAs
from tests.web.html_tree import Element
from web.me.listing import PAGE_SIZE
from web.services import Services


@pytest.fixture
async def assorted(services: Services) -> None:
    await seed(
        services,
        make_record("m_units", "units", "Road distances in MILES", author="human"),
        make_record("m_tone", "tone", "short answers"),
        make_record("m_depot", "depot", "Spandau, early shift"),
        make_record("m_org_tone", "greeting", "formal greetings", "tenant:berlin", author="human", actor_ref="lena"),
        make_record("m_org_miles", "mileage", "claims in kilometres", "tenant:berlin", author="human"),
        make_record("m_all", "dates", "ISO dates", "global", author="human", actor_ref="root"),
    )


def shown(page: Element) -> list[str]:
    return [row["data-entry"] for row in page.find_all("li", {"data-entry": True})]


def counts(page: Element) -> dict[str, str]:
    return {c["id"].removeprefix("count-"): c["data-count"] for c in page.find_all("span", {"class": "count"})}


@pytest.mark.usefixtures("assorted")
async def test_the_text_filter_matches_keys_and_facts_ignoring_case(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(ADA)

    by_fact = page_of(await client.get("/?q=miles"))
    by_key = page_of(await client.get("/?q=TONE"))

    assert shown(by_fact) == ["m_units"], "“mileage” is a key without “miles” in it"
    assert shown(by_key) == ["m_tone"]
    summary = by_fact.one(attrs={"id": "summary"})
    assert (summary["data-matching"], summary["data-total"]) == ("1", "6")
    assert summary.text.startswith("1 memory matches your filter, of 6 memories on file")
    assert summary.one("a", {"data-action": "clear-filter"})["href"] == "/"
    assert by_fact.one("input", {"name": "q"})["value"] == "miles"


@pytest.mark.usefixtures("assorted")
async def test_the_group_and_author_filters_narrow_the_list_and_every_count_stays_in_view(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(ADA)

    everything = page_of(await client.get("/"))
    organisation = page_of(await client.get("/?group=organisation"))
    assistant = page_of(await client.get("/?author=assistant"))
    administrators = page_of(await client.get("/?author=administrator"))

    assert counts(everything) == {"you": "3", "organisation": "2", "everyone": "1"}
    options = everything.one("select", {"name": "group"}).find_all("option")
    assert [(o["value"], o.text) for o in options] == [
        ("", "All (6)"),
        ("you", "You alone (3)"),
        ("organisation", "Your organisation (2)"),
        ("everyone", "Everyone (1)"),
    ]
    assert shown(organisation) == ["m_org_miles", "m_org_tone"], "newest first"
    assert organisation.one("select", {"name": "group"}).one("option", {"selected": True})["value"] == "organisation"
    assert shown(assistant) == ["m_depot", "m_tone"]
    assert counts(assistant) == {"you": "2"}, "groups with nothing matching are left out"
    assert shown(administrators) == ["m_org_miles", "m_org_tone", "m_all"]
    assert administrators.one(attrs={"id": "count-organisation"}).text == "2 of 2 memories"


@pytest.mark.usefixtures("assorted")
async def test_unknown_filter_values_read_as_no_filter(client: AsyncTestClient[Litestar], login_as: LoginAs) -> None:
    await login_as(ADA)

    page = page_of(await client.get("/?group=actor:bob&author=robot&page=x"))

    assert len(shown(page)) == 6
    assert page.one(attrs={"id": "summary"}).find("a") is None


@pytest.mark.usefixtures("assorted")
async def test_a_search_with_no_word_in_it_says_it_leaves_nothing_out(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(ADA)

    wordless = page_of(await client.get("/?q=%25+%3F"))
    one_word = page_of(await client.get("/?q=%25+miles"))
    related = page_of(await client.get("/?q=%25&match=related"))
    typed = page_of(await client.get("/?q=%25+%3F", headers={**HTMX, "HX-Target": "on-file"}))

    assert len(shown(wordless)) == 6
    summary = wordless.one(attrs={"id": "summary"})
    assert summary.one("span", {"data-wordless": True}).text == (
        "“% ?” holds no word to search for, so it leaves nothing out."
    )
    assert summary.one("a", {"data-action": "clear-filter"})["href"] == "/"
    assert wordless.one("input", {"name": "q"})["value"] == "% ?", "what was typed stays in the box"
    assert typed.one("span", {"data-wordless": True}).text == summary.one("span", {"data-wordless": True}).text
    assert shown(one_word) == ["m_units"]
    assert one_word.one(attrs={"id": "summary"}).find("span", {"data-wordless": True}) is None
    assert related.one(attrs={"id": "summary"}).find("span", {"data-wordless": True}) is None, "meaning, not words"


@pytest.mark.usefixtures("assorted")
async def test_nothing_matching_says_so_and_offers_everything(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(ADA)

    page = page_of(await client.get("/?q=zebra"))

    empty = page.one(attrs={"data-empty": "no-match"})
    assert empty.one("h2").text == "Nothing matches your filter"
    assert "“zebra”" in empty.text
    assert "Try fewer words, or another group, author or conversation." in empty.text, "every filter named"
    assert empty.one("a", {"data-action": "clear-filter"})["href"] == "/"
    assert page.one(attrs={"id": "summary"})["data-total"] == "6"


@pytest.mark.usefixtures("assorted")
async def test_the_filter_form_works_as_a_plain_get_and_updates_in_place_with_htmx(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(ADA)

    page = page_of(await client.get("/"))
    response = await client.get("/?q=tone&group=&author=", headers={**HTMX, "HX-Target": "on-file"})

    form = page.one("form", {"data-filters": True})
    assert (form["method"], form["action"], form["hx-get"], form["hx-target"]) == ("get", "/", "/", "#on-file")
    assert form["hx-push-url"] == "true"
    assert "delay:" in form["hx-trigger"]
    assert form.one("button", {"type": "submit"})
    assert response.status_code == 200
    assert response.headers["vary"] == "HX-Request, HX-Target"
    fragment = page_of(response)
    assert [e.tag for e in fragment.children if isinstance(e, Element)] == ["section"]
    assert fragment.one("section", {"id": "on-file"}) is not None
    assert shown(fragment) == ["m_tone"]


def many(count: int, scope: str = "actor:ada") -> Iterator[MemoryRecord]:
    """`count` memories, each a little older than the one before."""
    for i in range(count):
        yield make_record(
            f"m{i:05d}", f"k{i:05d}", f"fact {i}", scope, thread_id=f"thr_{i}", run_id=f"run_{i}", days_ago=i / 1000
        )


def in_order(first: int, last: int) -> list[str]:
    return [f"m{i:05d}" for i in range(first, last)]


async def test_ten_thousand_memories_give_a_first_page_and_any_page_is_a_click_or_two_away(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs, monkeypatch: pytest.MonkeyPatch
) -> None:
    await seed(services, *many(10_000), make_record("m_org", "org", "policy", "tenant:berlin", author="human"))
    asked: list[int] = []
    resolve = services.registry.origins_resolve

    async def counting(origins: Iterable[Origin]) -> frozenset[Origin]:
        given = list(origins)
        asked.append(len(given))
        return await resolve(given)

    monkeypatch.setattr(services.registry, "origins_resolve", counting)
    await login_as(ADA)

    started = time.perf_counter()
    first = page_of(await client.get("/"))
    elapsed = time.perf_counter() - started

    assert elapsed < 5, f"the first screen took {elapsed:.2f}s"
    assert first.one(attrs={"id": "summary"})["data-total"] == "10001"
    assert shown(first) == [*in_order(0, PAGE_SIZE), "m_org"], "newest first"
    assert asked == [PAGE_SIZE + 1], "origins are resolved for the rendered entries only"
    pager = first.one("nav", {"data-pager": "you"})
    numbers = [a.text.removeprefix("Page ") for a in pager.find_all("a", {"data-page-number": True})]
    assert numbers == ["2", "3", "200"]
    assert pager.one(attrs={"data-range": True}).text == "Showing 1–50 of 10,000"

    last = page_of(await client.get(pager.one("a", {"data-page": "last"})["href"]))
    assert shown(last) == in_order(9_950, 10_000)
    assert last.one(attrs={"data-range": True}).text == "Showing 9,951–10,000 of 10,000"
    assert last.find("a", {"data-page": "next"}) is None
    assert parse_qs(urlsplit(last.one("a", {"data-page": "previous"})["href"]).query)["page"] == ["199"]

    jump = first.one("form", {"data-page-jump": "you"})
    fields = {i["name"]: i["value"] for i in jump.find_all("input")}
    assert (jump["method"], jump["action"], fields["group"], fields["page"]) == ("get", "/", "you", "1")
    middle = page_of(await client.get("/", params={**fields, "page": "137"}))
    assert shown(middle) == in_order(6_800, 6_850)
    oldest = page_of(await client.get("/?group=you&sort=oldest&page=2"))
    assert shown(oldest) == list(reversed(in_order(9_900, 9_950)))


async def test_a_page_number_followed_in_place_answers_the_list_and_moves_the_focus_to_its_first_entry(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, *many(PAGE_SIZE + 3))
    await login_as(ADA)
    link = page_of(await client.get("/")).one("a", {"data-page": "next"})

    answer = page_of(
        await client.get(link["hx-get"], headers={**HTMX, "HX-Target": "on-file", "HX-Trigger": link["id"]})
    )
    typed = page_of(await client.get("/?q=fact", headers={**HTMX, "HX-Target": "on-file", "HX-Trigger": "filter-text"}))

    assert (link["hx-target"], link["hx-push-url"]) == ("#on-file", "true")
    assert shown(answer) == in_order(PAGE_SIZE, PAGE_SIZE + 3)
    assert "autofocus" in answer.one("li", {"data-entry": f"m{PAGE_SIZE:05d}"}).attrs
    chosen = answer.one("select", {"name": "group"})
    assert (chosen["hx-swap-oob"], chosen.one("option", {"selected": True})["value"]) == ("true", "you")
    assert all("autofocus" not in row.attrs for row in typed.find_all("li", {"data-entry": True})), "typing keeps focus"
    assert typed.find("select") is None


async def test_a_page_of_a_group_that_is_no_longer_there_shows_everything(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, *many(3))
    await login_as(ADA)

    page = page_of(await client.get("/?group=shared-depot-x&page=3"))

    assert shown(page) == in_order(0, 3)
    assert page.one("select", {"name": "group"}).one("option", {"selected": True})["value"] == ""


async def test_forgetting_an_entry_on_a_later_page_answers_for_the_page_the_browser_shows(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, *many(PAGE_SIZE + 3), make_record("m_org", "org", "policy", "tenant:berlin", author="human"))
    token = await login_as(ADA)
    later = page_of(await client.get("/?group=you&page=2"))
    form = later.one("li", {"data-entry": f"m{PAGE_SIZE:05d}"}).one("form", {"data-forget": True})

    response = await client.post(
        form["hx-post"],
        data={"back": form.one("input", {"name": "back"})["value"]},
        headers={**HTMX, "X-CSRF-Token": token, "HX-Current-URL": "http://127.0.0.1:8000/?group=you&page=2"},
    )

    answer = page_of(response)
    summary = answer.one(attrs={"id": "summary"})
    assert (summary["data-total"], summary["data-matching"]) == (str(PAGE_SIZE + 3), str(PAGE_SIZE + 2))
    assert answer.one(attrs={"id": "count-you"}).text == f"{PAGE_SIZE + 2} of {PAGE_SIZE + 2} memories"
    after = page_of(await client.get("/?group=you&page=2"))
    assert shown(after) == in_order(PAGE_SIZE + 1, PAGE_SIZE + 3)


@pytest.mark.parametrize("page", ["²", "①", "٣", "9" * 5000, "-1", "1e3", " 2"])
@pytest.mark.parametrize("path", ["/", "/admin", "/admin/audit"])
async def test_a_page_number_that_is_not_one_is_the_first_page_never_an_error(
    client: AsyncTestClient[Litestar], login_as: LoginAs, path: str, page: str
) -> None:
    await login_as(Actor("lena", "berlin", ("onfile-admin",)))

    answer = await client.get(path, params={"page": page})

    assert answer.status_code == 200, (path, page, answer.status_code)
