"""The elevated area as people meet it: who gets in, the layout that marks it, and the shared facts
listed by scope with their pin budgets, filters and pages."""

from __future__ import annotations

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor
from tests.web.admin_builders import ADA, GIL, JONAS, LENA, SAM, shared, tree
from tests.web.builders import HTMX
from tests.web.conftest import LoginAs
from web.services import Services

AREA_PAGES = ["/admin", "/admin/audit", "/admin/facts/mem_x/edit", "/admin/facts/mem_x/delete"]


@pytest.mark.parametrize("path", [*AREA_PAGES, "/support/preview"])
async def test_every_page_of_the_area_needs_a_login(client: AsyncTestClient[Litestar], path: str) -> None:
    response = await client.get(path, follow_redirects=False)

    assert response.status_code == 303
    assert response.headers["location"].startswith("/login?next=/")


@pytest.mark.parametrize("path", AREA_PAGES)
async def test_someone_who_administers_nothing_gets_a_403_page_saying_why(
    client: AsyncTestClient[Litestar], login_as: LoginAs, path: str
) -> None:
    await login_as(ADA, name="Ada Lindqvist")

    response = await client.get(path)

    assert response.status_code == 403
    page = tree(response)
    forbidden = page.one(attrs={"data-forbidden": True})
    assert forbidden.one("h1").text == "This area is for administrators"
    assert "You are signed in as Ada Lindqvist, who is not an administrator" in forbidden.text, "by name, not id"
    assert forbidden.one("a", {"data-action": "personal-page"})["href"] == "/"
    assert page.one(attrs={"data-area-badge": True}).text == "Administration"
    assert page.find_all("a", {"data-nav": True}) == [], "nothing to offer someone with no elevation"


async def test_support_staff_are_refused_the_shared_facts_but_pointed_at_the_preview(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(SAM)

    page = tree(await client.get("/admin"))

    assert page.one(attrs={"data-area-badge": True}).text == "Support"
    assert [a["data-nav"] for a in page.find_all("a", {"data-nav": True})] == ["preview"]
    assert page.one("a", {"data-nav-offer": "preview"})["href"] == "/support/preview"


async def test_the_area_is_marked_as_administration_with_its_own_navigation(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(Actor("lena", "berlin", ("onfile-admin", "onfile-support")))

    page = tree(await client.get("/admin"))

    body = page.one("body")
    assert page.one(attrs={"data-area-badge": True}).text == "Administration and support"
    assert body["class"] == "area-admin"
    assert "X-CSRF-Token" in body["hx-headers"]
    nav = page.one("nav", {"data-area-nav": True})
    links = [(a["data-nav"], a["href"], a.get("aria-current")) for a in nav.find_all("a", {"data-nav": True})]
    assert links == [
        ("facts", "/admin", "page"),
        ("audit", "/admin/audit", None),
        ("people", "/admin/people", None),
        ("organisation", "/admin/organisation", None),
        ("preview", "/support/preview", None),
    ]
    assert nav.one("a", {"data-action": "personal-page"})["href"] == "/"
    assert page.one("h1").text == "Shared facts"


async def test_an_administrator_sees_every_fact_at_their_scopes_only_grouped_with_the_pin_budget(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add(
        [
            shared("manifest", "print the manifest", pinned=True),
            shared("tone", "formal"),
            shared("labels", "customer number first", "tenant:hamburg", by="jonas"),
            shared("units", "kilometres", "global", by="gil"),
            shared("mine", "a personal note", "actor:lena", author="agent"),
        ]
    )
    await login_as(LENA)

    page = tree(await client.get("/admin"))

    groups = page.find_all("section", {"data-scope": True})
    assert [g["data-scope"] for g in groups] == ["tenant:berlin"]
    berlin = groups[0]
    assert berlin.one("h2").text == "Everyone in your organisation"
    assert berlin.find("code") is None, "whom a fact applies to is said in words, not as its token"
    assert [f["data-key"] for f in berlin.find_all("li", {"data-fact-id": True})] == ["manifest", "tone"]
    assert berlin.one(attrs={"data-budget-words": True}).text == "1 of 20 always-on"
    assert berlin.find(attrs={"data-budget-warning": True}) is None
    manifest = berlin.one("li", {"data-key": "manifest"})
    assert manifest.one(attrs={"data-badge": "always-on"})
    assert manifest.one(attrs={"data-written-by": True}).text == "Written by Lena (lena)"
    assert manifest.one("button", {"data-action": "unpin"})
    assert berlin.one("li", {"data-key": "tone"}).one("button", {"data-action": "pin"})
    assert [o["value"] for o in page.one("select", {"name": "scope", "data-field": "scope"}).find_all("option")] == [
        "tenant:berlin"
    ], "the publish form offers only what the person administers"


async def test_a_global_administrator_sees_the_global_scope_in_plain_words(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("units", "kilometres", "global", by="gil"), shared("tone", "formal")])
    await login_as(GIL)

    page = tree(await client.get("/admin"))

    (group,) = page.find_all("section", {"data-scope": True})
    assert (group["data-scope"], group.one("h2").text) == ("global", "Everyone, in every organisation")
    assert [f["data-key"] for f in group.find_all("li", {"data-fact-id": True})] == ["units"]


async def test_someone_administering_two_scopes_sees_both_and_can_filter_by_text_and_scope(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add(
        [
            shared("pallet-labels", "depot code first"),
            shared("tone", "formal"),
            shared("pallets", "euro pallets only", "global"),
            shared("units", "kilometres", "global"),
        ]
    )
    await login_as(Actor("lena", "berlin", ("onfile-admin", "onfile-global-admin")))

    everything = tree(await client.get("/admin"))
    by_text = tree(await client.get("/admin?q=PALLET"))
    by_scope = tree(await client.get("/admin?q=pallet&scope=global"))
    not_theirs = tree(await client.get("/admin?scope=tenant:hamburg"))

    def keys(page: object) -> dict[str, list[str]]:
        return {
            g["data-scope"]: [f["data-key"] for f in g.find_all("li", {"data-fact-id": True})]
            for g in page.find_all("section", {"data-scope": True})  # type: ignore[attr-defined]
        }

    assert keys(everything) == {"tenant:berlin": ["pallet-labels", "tone"], "global": ["pallets", "units"]}
    assert keys(by_text) == {"tenant:berlin": ["pallet-labels"], "global": ["pallets"]}
    assert keys(by_scope) == {"global": ["pallets"]}
    assert keys(not_theirs) == keys(everything), "a scope they do not administer reads as no filter"
    assert by_text.one(attrs={"id": "summary"})["data-matching"] == "2"


async def test_the_filter_searches_by_words_as_the_personal_page_does_and_marks_them(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add(
        [
            shared("reporting", "they report on Thursday"),
            shared("units", "Distances in kilomètres"),
            shared("tone", "formal"),
        ]
    )
    await login_as(LENA)

    def keys(page: object) -> list[str]:
        return [f["data-key"] for f in page.find_all("li", {"data-fact-id": True})]  # type: ignore[attr-defined]

    any_order = tree(await client.get("/admin?q=thursdays+REPORT"))
    folded = tree(await client.get("/admin?q=KILOMETRES"))
    prefix = tree(await client.get("/admin?q=kilom"))
    inside_a_word = tree(await client.get("/admin?q=lometres"))
    wordless = tree(await client.get("/admin?q=%25+%3F"))
    one_word = tree(await client.get("/admin?q=%25+tone"))

    assert keys(any_order) == ["reporting"]
    assert [m.text for m in any_order.find_all("mark")] == ["reporting", "report", "Thursday"]
    assert keys(folded) == ["units"]
    assert [m.text for m in prefix.find_all("mark")] == ["kilomètres"]
    assert prefix.one("li", {"data-key": "units"}).one("p", {"data-text": True}).text == "Distances in kilomètres"
    assert keys(inside_a_word) == [], "a word is found from its beginning, not from inside it"
    assert keys(wordless) == ["reporting", "tone", "units"]
    assert wordless.one(attrs={"id": "summary"}).one("span", {"data-wordless": True}).text == (
        "“% ?” holds no word to search for, so it leaves nothing out."
    )
    assert keys(one_word) == ["tone"]
    assert one_word.one(attrs={"id": "summary"}).find("span", {"data-wordless": True}) is None
    assert tree(await client.get("/admin")).find("mark") is None


async def test_the_scope_filter_says_that_it_counts_facts(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("tone", "formal"), *(shared(f"rule-{n}", "x", "global") for n in range(1_001))])
    await login_as(Actor("lena", "berlin", ("onfile-admin", "onfile-global-admin")))

    page = tree(await client.get("/admin"))

    options = page.one("select", {"id": "filter-scope"}).find_all("option")
    assert [o.text for o in options] == [
        "Everyone you administer for (1,002 facts)",
        "Everyone in your organisation (1 fact)",
        "Everyone, in every organisation (1,001 facts)",
    ]


async def test_the_filter_answers_htmx_with_the_results_alone(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("tone", "formal"), shared("units", "km")])
    await login_as(LENA)

    response = await client.get("/admin?q=tone", headers={**HTMX, "HX-Target": "shared"})

    fragment = tree(response)
    assert fragment.find("html") is None
    assert fragment.one("section", {"id": "shared"})
    assert [f["data-key"] for f in fragment.find_all("li", {"data-fact-id": True})] == ["tone"]


async def test_a_large_scope_shows_fifty_then_pages_through_every_fact(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared(f"key-{i:03d}", f"fact {i}") for i in range(120)])
    await login_as(LENA)

    first = tree(await client.get("/admin"))
    more = first.one("a", {"data-action": "show-more"})
    third = tree(await client.get("/admin?scope=tenant:berlin&page=3"))

    assert len(first.find_all("li", {"data-fact-id": True})) == 50
    assert more.text == "Show the other 70"
    assert more["href"] == "/admin?scope=tenant%3Aberlin&page=2#scope-tenant-berlin"
    assert [f["data-key"] for f in third.find_all("li", {"data-fact-id": True})] == [
        f"key-{i:03d}" for i in range(100, 120)
    ]
    assert third.one(attrs={"data-range": True}).text == "Showing 101–120 of 120"
    assert third.one(attrs={"data-pager": True}).find("a", {"data-page": "next"}) is None


async def test_another_tenants_administrator_sees_only_their_own_tenant(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("tone", "formal"), shared("labels", "customer first", "tenant:hamburg")])
    await login_as(JONAS)

    page = tree(await client.get("/admin"))

    assert [g["data-scope"] for g in page.find_all("section", {"data-scope": True})] == ["tenant:hamburg"]
    assert [f["data-key"] for f in page.find_all("li", {"data-fact-id": True})] == ["labels"]


async def test_stored_markup_is_inert_on_the_admin_page(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    hostile = '<script>alert(1)</script><img src=x onerror="alert(2)">'
    await services.provider.add([shared('"><b id="k">', hostile)])
    await login_as(LENA)

    response = await client.get("/admin")

    page = tree(response)
    assert page.find("script", {"src": False}) is None
    assert page.find("img") is None
    assert page.find("b", {"id": "k"}) is None
    assert page.one("li", {"data-key": '"><b id="k">'}).one("p", {"data-text": True}).text == hostile
    assert "<script>alert(1)" not in response.text


@pytest.mark.parametrize(
    ("roles", "path", "name"),
    [
        (("onfile-admin",), "/admin", "Administration"),
        (("onfile-support",), "/support/preview", "Support"),
        (("onfile-admin", "onfile-support"), "/support/preview", "Administration and support"),
        ((), "/support/preview", "Support"),
        ((), "/admin", "Administration"),
    ],
)
async def test_the_area_is_named_for_what_the_person_does_there(
    client: AsyncTestClient[Litestar], login_as: LoginAs, roles: tuple[str, ...], path: str, name: str
) -> None:
    await login_as(Actor("kim", "berlin", roles))

    page = tree(await client.get(path))

    assert page.one(attrs={"data-area-badge": True}).text == name
    assert page.one("nav", {"data-area-nav": True})["aria-label"] == name
    assert page.one("title").text.endswith(" · OnFile")
