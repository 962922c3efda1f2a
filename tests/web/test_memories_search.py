"""Searching the page by words, the overridden values and organisation facts it lists, its orders and
the filter by conversation, as Ada of the demo meets them."""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store.persistence.registry import Origin
from tests.web.builders import ADA, HTMX, make_record, page_of, seed
from tests.web.conftest import LoginAs
from tests.web.html_tree import Element
from web.demo.content import demo_records
from web.services import Services


@pytest.fixture
async def demo(services: Services) -> None:
    await seed(services, *demo_records())
    for thread in ("thr_q3_report", "thr_intro", "thr_rota", "thr_gone"):
        await services.registry.register_run(f"{thread}-run-1", thread, "ada")
    await services.registry.delete_thread("thr_gone")


def shown(page: Element) -> list[str]:
    return [row["data-entry"] for row in page.find_all("li", {"data-entry": True})]


def in_group(page: Element, slug: str) -> list[str]:
    group = page.find("section", {"data-group": slug})
    return [] if group is None else shown(group)


def marks(row: Element) -> list[str]:
    return [mark.text for mark in row.find_all("mark")]


@pytest.mark.usefixtures("demo")
async def test_searching_kilometres_finds_the_wider_value_her_own_setting_overrides(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(ADA)

    page = page_of(await client.get("/?q=kilometres"))

    assert in_group(page, "you") == ["mem_a2"], "her units, whose overridden value says kilometres"
    assert in_group(page, "everyone") == ["mem_g1"]
    own = page.one("li", {"data-entry": "mem_a2"})
    assert marks(own.one(attrs={"data-overrides": True})) == ["kilometres"]
    wider = page.one("li", {"data-entry": "mem_g1"})
    assert wider.one(attrs={"data-fact": True}).text == "report distances in kilometres"
    assert marks(wider) == ["kilometres"]
    assert wider.one(attrs={"data-overridden": True}).text == "Doesn't apply to you: your own setting overrides it."
    assert wider.find("form", {"data-forget": True}) is None


@pytest.mark.usefixtures("demo")
async def test_the_organisation_filter_counts_and_lists_every_organisation_fact_that_applies(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(ADA)

    everything = page_of(await client.get("/"))
    organisation = page_of(await client.get("/?group=organisation"))

    berlin = {"mem_b1", "mem_b2", "mem_b3"}
    option = everything.one("select", {"name": "group"}).one("option", {"value": "organisation"})
    assert option.text == "Your organisation (3)"
    assert everything.one(attrs={"id": "count-organisation"})["data-count"] == "3"
    assert set(in_group(everything, "organisation")) == berlin
    assert set(shown(organisation)) == berlin
    tone = organisation.one("li", {"data-entry": "mem_b3"})
    assert tone.one(attrs={"data-overridden": True}).text == "Doesn't apply to you: your own setting overrides it."
    summary = everything.one(attrs={"id": "summary"})
    total = sum(int(c["data-count"]) for c in everything.find_all("span", {"class": "count"}))
    assert summary["data-total"] == str(total) == str(len(shown(everything))), "nothing is left out"


@pytest.mark.usefixtures("demo")
@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("report Thursdays", {"mem_a5"}),
        ("thursday REPORT", {"mem_a5"}),
        ("kilom", {"mem_a2", "mem_g1"}),
        ("Kilomètres", {"mem_a2", "mem_g1"}),
        ("pallet depot", {"mem_b2"}),
        ("pallet", {"mem_b1", "mem_b2"}),
        ("fiscal october", {"mem_a1", "mem_g2"}),
        ("spandau early shift", {"mem_a4"}),
        ("spandau late", set()),
    ],
)
async def test_every_word_must_match_in_any_order_as_the_beginning_of_a_word(
    client: AsyncTestClient[Litestar], login_as: LoginAs, query: str, found: set[str]
) -> None:
    await login_as(ADA)

    page = page_of(await client.get("/", params={"q": query}))

    assert set(shown(page)) == found
    assert page.one(attrs={"id": "summary"})["data-matching"] == str(len(found))


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("距离", ["m_zh"]),
        ("公里 距离", ["m_zh"]),
        ("公里 小时", []),
        ("東京", ["m_ja"]),
        ("ภาษาไทย", ["m_th"]),
        ("ไทย", ["m_th"]),
    ],
)
async def test_scripts_written_without_spaces_are_searched_word_by_word(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs, query: str, found: list[str]
) -> None:
    await seed(
        services,
        make_record("m_zh", "units-zh", "他们用公里报告距离"),
        make_record("m_ja", "office", "東京で働いています"),
        make_record("m_th", "language", "เขาชอบพูดภาษาไทย"),
    )
    await login_as(ADA)

    page = page_of(await client.get("/", params={"q": query}))

    assert shown(page) == found
    if found:
        assert marks(page.one("li", {"data-entry": found[0]})), "the matched words are marked"


@pytest.mark.parametrize(
    ("query", "marked"),
    [("lodz", ["Łódź"]), ("soren", ["Søren"]), ("aebeltoft", ["Æbeltoft"]), ("ŁÓDŹ SØREN", ["Søren", "Łódź"])],
)
async def test_letters_with_a_stroke_are_found_by_their_plain_letters(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs, query: str, marked: list[str]
) -> None:
    await seed(
        services,
        make_record("m_pl", "depot", "Søren runs the depot in Łódź"),
        make_record("m_dk", "office", "the office moved to Æbeltoft"),
        make_record("m_de", "units", "report distances in kilometres"),
    )
    await login_as(ADA)

    page = page_of(await client.get("/", params={"q": query}))

    [found] = shown(page)
    assert marks(page.one("li", {"data-entry": found})) == marked


@pytest.mark.usefixtures("demo")
@pytest.mark.parametrize(
    ("sort", "expected"),
    [
        ("", ["mem_a2", "mem_a1", "mem_a4", "mem_a5", "mem_a3"]),
        ("oldest", ["mem_a3", "mem_a5", "mem_a4", "mem_a1", "mem_a2"]),
        ("key", ["mem_a4", "mem_a1", "mem_a5", "mem_a3", "mem_a2"]),
    ],
)
async def test_the_list_is_newest_first_unless_the_person_sorts_it_oldest_first_or_by_key(
    client: AsyncTestClient[Litestar], login_as: LoginAs, sort: str, expected: list[str]
) -> None:
    await login_as(ADA)

    page = page_of(await client.get("/", params={"sort": sort}))

    assert in_group(page, "you") == expected
    chosen = page.one("select", {"name": "sort"}).one("option", {"selected": True})["value"]
    assert chosen == (sort or "newest")


@pytest.mark.usefixtures("demo")
async def test_the_conversation_filter_is_the_databases_and_only_the_shown_origins_are_asked_about(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[int] = []
    resolve = services.registry.origins_resolve

    async def counting(origins: Iterable[Origin]) -> frozenset[Origin]:
        given = list(origins)
        asked.append(len(given))
        return await resolve(given)

    monkeypatch.setattr(services.registry, "origins_resolve", counting)
    await login_as(ADA)

    gone = page_of(await client.get("/?origin=gone"))
    present = page_of(await client.get("/?origin=present&author=assistant"))

    assert shown(gone) == ["mem_a5"]
    assert gone.one("li", {"data-entry": "mem_a5"}).one(attrs={"data-badge": "origin-gone"})
    assert shown(present) == ["mem_a1", "mem_a4", "mem_a3"], "every assistant conclusion whose conversation is there"
    assert asked == [1, 3], "one question each, about the entries shown only"


@pytest.mark.usefixtures("demo")
async def test_the_view_is_in_the_address_and_the_form_says_it_back(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(ADA)
    address = "/?q=report&author=assistant&origin=present&sort=oldest"

    page = page_of(await client.get(address))
    fragment = page_of(await client.get(address, headers={**HTMX, "HX-Target": "on-file"}))

    form = page.one("form", {"data-filters": True})
    values = {
        "q": form.one("input", {"name": "q"})["value"],
        **{
            name: form.one("select", {"name": name}).one("option", {"selected": True})["value"]
            for name in ("author", "origin", "sort")
        },
    }
    assert values == {"q": "report", "author": "assistant", "origin": "present", "sort": "oldest"}
    assert shown(page) == shown(fragment) == ["mem_a1"]
    back = page.one("form", {"data-forget": True}).one("input", {"name": "back"})["value"]
    assert back == address
