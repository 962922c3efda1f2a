"""Searching the page for memories related in meaning, ranked as the assistant ranks a turn's."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from tests.web.builders import ADA, HTMX, make_record, page_of, seed
from tests.web.conftest import LoginAs
from tests.web.html_tree import Element
from web.me.listing import PAGE_SIZE, RELATED_LIMIT, MemoryQuery
from web.services import Services

RELATED = "/?q=how+far+is+it&match=related"


@pytest.fixture
async def distances(services: Services) -> None:
    """Ada's units, which say nothing of "far", among memories about other things."""
    await seed(
        services,
        make_record("m_units", "units", "they report distances in kilometres"),
        make_record("m_tone", "tone", "short answers"),
        make_record("m_coffee", "coffee", "takes coffee black"),
        make_record("m_depot", "depot", "works at the Spandau depot on the early shift"),
        make_record("m_greeting", "greeting", "formal greetings", "tenant:berlin", author="human", actor_ref="lena"),
        make_record("m_dates", "dates", "write dates as 2026-12-01", "global", author="human", actor_ref="root"),
    )


def shown(page: Element) -> list[str]:
    return [row["data-entry"] for row in page.find_all("li", {"data-entry": True})]


def in_group(page: Element, slug: str) -> list[str]:
    return shown(page.one("section", {"data-group": slug}))


def chosen_match(page: Element) -> str:
    return page.one("select", {"data-filter": "match"}).one("option", {"selected": True})["value"]


def query_of(href: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(href).query)


@pytest.mark.usefixtures("distances")
async def test_searching_by_words_finds_nothing_for_how_far_but_related_shows_the_kilometres_first(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(ADA)

    by_words = page_of(await client.get("/?q=how+far+is+it"))
    related = page_of(await client.get(RELATED))

    assert shown(by_words) == []
    assert by_words.one(attrs={"data-empty": "no-match"}) is not None
    assert chosen_match(by_words) == "words"
    assert by_words.find(attrs={"data-ranking": True}) is None
    assert shown(related)[0] == "m_units"
    assert chosen_match(related) == "related"
    assert related.one("input", {"name": "q"})["value"] == "how far is it"


@pytest.mark.usefixtures("distances")
async def test_related_says_in_plain_words_how_it_ranked_and_that_it_shows_the_closest_few(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(ADA)

    page = page_of(await client.get(RELATED))

    note = page.one(attrs={"data-ranking": "related"})
    assert note.text == (
        "Ranked by how close in meaning each memory is to your search, as the assistant ranks them. "
        "Showing all 6 memories on file, closest first."
    )
    summary = page.one(attrs={"id": "summary"})
    assert (summary["data-matching"], summary["data-total"]) == ("6", "6")
    assert summary.text.startswith("6 memories closest in meaning to your search, of 6 memories on file")
    assert summary.one("a", {"data-action": "clear-filter"})["href"] == "/"


async def test_related_shows_the_twenty_closest_each_group_best_first_and_no_more(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    hobbies = [make_record(f"m_h{i:02d}", f"hobby-{i:02d}", f"likes pastime number {i}") for i in range(PAGE_SIZE)]
    await seed(
        services,
        *hobbies,
        make_record("m_units", "units", "they report distances in kilometres"),
        make_record("m_greeting", "greeting", "formal greetings", "tenant:berlin", author="human", actor_ref="lena"),
    )
    await login_as(ADA)

    page = page_of(await client.get(RELATED))
    ignoring = page_of(await client.get(f"{RELATED}&group=you&page=3&sort=oldest"))

    total = PAGE_SIZE + 2
    assert len(shown(page)) == RELATED_LIMIT
    assert in_group(page, "you")[0] == "m_units", "each group is in the ranking's order, not by key"
    assert in_group(page, "you") != sorted(in_group(page, "you"))
    summary = page.one(attrs={"id": "summary"})
    assert (summary["data-matching"], summary["data-total"]) == (str(RELATED_LIMIT), str(total))
    assert page.one(attrs={"data-ranking": "related"}).text.endswith(f"Showing the {RELATED_LIMIT} closest.")
    matching = sum(int(c["data-count"]) for c in page.find_all("span", {"class": "count"}))
    assert matching == RELATED_LIMIT
    assert page.find(attrs={"data-pager": True}) is None, "no other page: it is the closest twenty"
    assert ignoring.find(attrs={"data-pager": True}) is None
    assert shown(ignoring) == in_group(page, "you"), "page= and sort= do not apply to a related search"


@pytest.mark.usefixtures("distances")
async def test_related_keeps_the_author_and_group_filters(client: AsyncTestClient[Litestar], login_as: LoginAs) -> None:
    await login_as(ADA)

    administrators = page_of(await client.get(f"{RELATED}&author=administrator"))
    organisation = page_of(await client.get(f"{RELATED}&group=organisation"))

    assert sorted(shown(administrators)) == ["m_dates", "m_greeting"]
    assert [g["data-group"] for g in administrators.find_all("section", {"data-group": True})] == [
        "organisation",
        "everyone",
    ]
    assert administrators.one(attrs={"data-ranking": "related"}).text.endswith("within your other filters.")
    assert shown(organisation) == ["m_greeting"]
    assert organisation.one(attrs={"id": "count-organisation"}).text == "1 of 1 memory"


async def test_under_a_filter_related_shows_the_closest_the_filter_keeps_not_what_is_left_of_the_closest(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    close = [
        make_record(f"m_d{i:02d}", f"route-{i:02d}", f"the drive to depot {i} is {i + 3} kilometres far")
        for i in range(RELATED_LIMIT + 10)
    ]
    await seed(
        services,
        *close,
        make_record("m_greeting", "greeting", "formal greetings", "tenant:berlin", author="human", actor_ref="lena"),
        make_record("m_said", "coffee", "takes coffee black", author="human"),
        make_record("m_gone", "tea", "no tea after noon", thread_id="thr_gone"),
    )
    await services.registry.delete_thread("thr_gone")
    await login_as(ADA)

    everything = page_of(await client.get(RELATED))
    administrators = page_of(await client.get(f"{RELATED}&author=administrator"))
    organisation = page_of(await client.get(f"{RELATED}&group=organisation"))
    you_wrote = page_of(await client.get(f"{RELATED}&author=you"))
    gone = page_of(await client.get(f"{RELATED}&origin=gone"))

    assert {"m_greeting", "m_said", "m_gone"}.isdisjoint(shown(everything)), "the drives are closer"
    assert shown(administrators) == ["m_greeting"]
    assert shown(organisation) == ["m_greeting"]
    assert shown(you_wrote) == ["m_said"]
    assert shown(gone) == ["m_gone"]
    assert gone.one(attrs={"data-ranking": "related"}).text.endswith(
        "Showing the closest one, within your other filters."
    )


@pytest.mark.usefixtures("distances")
async def test_the_search_form_offers_the_two_ways_to_match_as_a_plain_get_and_with_htmx(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(ADA)

    page = page_of(await client.get("/"))
    fragment = page_of(await client.get(RELATED, headers={**HTMX, "HX-Target": "on-file"}))

    form = page.one("form", {"data-filters": True})
    assert (form["method"], form["action"], form["hx-get"], form["hx-push-url"]) == ("get", "/", "/", "true")
    control = form.one("select", {"name": "match"})
    assert form.one("label", {"for": control["id"]}).text == "Find memories by"
    assert "20 closest" in form.one(attrs={"id": control["aria-describedby"]}).text
    options = control.find_all("option")
    assert [(o["value"], o.text) for o in options] == [("words", "Words"), ("related", "Related in meaning")]
    assert chosen_match(page) == "words", "words is the default"
    assert [e.tag for e in fragment.children if isinstance(e, Element)] == ["section"]
    assert shown(fragment)[0] == "m_units"
    assert fragment.one(attrs={"data-ranking": "related"}) is not None


@pytest.mark.usefixtures("distances")
async def test_the_way_of_matching_survives_in_the_pages_links_and_forms(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    token = await login_as(ADA)

    page = page_of(await client.get(RELATED))
    forget = page.one("li", {"data-entry": "m_tone"}).one("form", {"data-forget": True})
    back = forget.one("input", {"name": "back"})["value"]
    answer = await client.post(forget["action"], data={"csrf_token": token, "back": back}, follow_redirects=False)
    after = page_of(await client.get(answer.headers["location"]))

    assert query_of(back) == {"q": ["how far is it"], "match": ["related"]}
    assert answer.status_code == 303
    assert query_of(answer.headers["location"]) == {"q": ["how far is it"], "match": ["related"]}
    assert query_of(after.one("a", {"data-action": "dismiss"})["href"])["match"] == ["related"]
    assert shown(after)[0] == "m_units"
    assert "m_tone" not in shown(after)


@pytest.mark.usefixtures("distances")
async def test_forgetting_in_place_from_a_related_search_answers_the_related_list_again(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    token = await login_as(ADA)
    headers = {**HTMX, "X-CSRF-Token": token, "HX-Current-URL": f"http://127.0.0.1:8000{RELATED}"}

    response = await client.post("/memories/m_coffee/forget", data={"back": "/"}, headers=headers)

    assert response.headers["hx-retarget"] == "#on-file"
    answer = page_of(response)
    assert shown(answer)[0] == "m_units"
    assert "m_coffee" not in shown(answer)
    assert answer.one(attrs={"data-ranking": "related"}).text.endswith("Showing all 5 memories on file, closest first.")
    assert answer.one(attrs={"id": "summary"})["data-matching"] == "5"


async def test_the_chosen_way_of_matching_stays_in_the_paging_links_before_anything_is_typed(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, *(make_record(f"m{i:03d}", f"k{i:03d}", f"fact {i}") for i in range(PAGE_SIZE + 5)))
    await login_as(ADA)

    page = page_of(await client.get("/?q=&match=related&sort=key"))
    following = page.one("a", {"data-page": "next"})
    focused = page_of(await client.get(following["href"]))

    assert len(shown(page)) == PAGE_SIZE, "related with nothing to search for is the plain list"
    assert page.find(attrs={"data-ranking": True}) is None
    assert page.one(attrs={"id": "summary"}).find("a") is None, "nothing is filtered"
    assert chosen_match(page) == "related", "the person's choice stays chosen"
    assert query_of(following["href"])["match"] == ["related"]
    assert query_of(following["hx-get"])["match"] == ["related"]
    assert query_of(focused.one("a", {"data-page": "previous"})["href"])["match"] == ["related"]
    assert shown(focused) == [f"m{i:03d}" for i in range(PAGE_SIZE, PAGE_SIZE + 5)]


@pytest.mark.usefixtures("distances")
@pytest.mark.parametrize("match", ["semantic", "RELATED", "", "words"])
async def test_a_way_of_matching_that_is_not_related_reads_as_words(
    client: AsyncTestClient[Litestar], login_as: LoginAs, match: str
) -> None:
    await login_as(ADA)

    page = page_of(await client.get("/", params={"q": "kilometres", "match": match}))

    assert shown(page) == ["m_units"]
    assert chosen_match(page) == "words"
    assert page.find(attrs={"data-ranking": True}) is None
    back = page.one("form", {"data-forget": True}).one("input", {"name": "back"})["value"]
    assert back == "/?q=kilometres"


@pytest.mark.parametrize(
    ("given", "href"),
    [
        ({"text": "far", "match": "related"}, "/?q=far&match=related"),
        ({"text": "far", "match": "words"}, "/?q=far"),
        ({"text": "far", "match": "nearby"}, "/?q=far"),
        ({"match": "related"}, "/?match=related"),
        ({"text": "far", "match": "related", "page": "3", "order": "oldest"}, "/?q=far&match=related&sort=oldest"),
        ({"match": "related", "page": "3"}, "/?match=related&page=3"),
    ],
)
def test_the_way_of_matching_is_written_into_the_address_unless_it_is_the_default(
    given: dict[str, str], href: str
) -> None:
    assert MemoryQuery.parse(**given).href() == href


async def test_a_filter_that_keeps_all_of_the_closest_shows_them_in_the_assistant_s_order(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    """More keys than the assistant's ranking window, each holding the searched words a different
    number of times: a filter that keeps every one of the closest changes neither which nor their order."""
    depots = [
        make_record(f"m_{i:03d}", f"depot-{i:03d}", " ".join(["depot case"] * (1 + i % 7) + [f"number {i}"]))
        for i in range(90)
    ]
    await seed(
        services,
        *depots,
        make_record("m_greeting", "greeting", "formal greetings", "tenant:berlin", author="human", actor_ref="lena"),
    )
    await login_as(ADA)

    everything = shown(page_of(await client.get("/?q=depot+case+7&match=related")))
    own = shown(page_of(await client.get("/?q=depot+case+7&match=related&group=you")))
    by_assistant = shown(page_of(await client.get("/?q=depot+case+7&match=related&author=assistant")))

    assert len(everything) == RELATED_LIMIT
    assert own == everything
    assert by_assistant == everything
