"""No internal word reaches a person: every page each demo person can reach — their own page, the
administration pages, the prompt preview with a result, the confirmations and the error pages — is
read as a person reads it (the visible text, not attributes or ids), and none of it may say a scope
token, a role string or a field name of the API. The prompt block itself is shown byte for byte, as
the assistant gets it, and is the one exception."""

from __future__ import annotations

import re

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor
from tests.web.admin_builders import tree
from tests.web.conftest import LoginAs
from tests.web.html_tree import Element
from web.demo.content import DEMO_PEOPLE, DemoPerson, seed_demo
from web.services import Services

INTERNAL = re.compile(
    r"\bscopes?\b|\b(?:tenant|actor|global):|\bglobal\b|pinnedOmitted|\bomitted\b|\brecalled\b|"
    r"onfile-(?:global-)?admin|onfile-support|\btenant\b",
    re.IGNORECASE,
)

PERSONAL = ("/", "/?q=units", "/memories/forget-all", "/nowhere", "/logout", "/signed-out")
ADMINISTRATION = (
    "/admin",
    "/admin?q=tone",
    "/admin/audit",
    "/admin/people",
    "/admin/people/erase?person=ada",
    "/admin/facts/mem_b3/edit",
    "/admin/facts/mem_b3/delete",
    "/admin/facts/nothing-here",
    "/support/preview",
)


def shown(page: Element) -> str:
    """The page's visible text (its title included), without the prompt block shown verbatim."""
    for block in page.find_all("pre", {"data-block": True}):
        block.children.clear()
    return page.text


def internal_words(text: str) -> list[str]:
    return sorted({m.group(0) for m in INTERNAL.finditer(text)})


@pytest.mark.parametrize("who", DEMO_PEOPLE, ids=[p.sub for p in DEMO_PEOPLE])
async def test_no_page_a_demo_person_can_reach_shows_an_internal_word(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs, who: DemoPerson
) -> None:
    await seed_demo(services)
    token = await login_as(Actor(who.sub, who.tenant, who.roles), name=who.name)
    pages: dict[str, Element] = {}
    for path in PERSONAL + ADMINISTRATION:
        pages[path] = tree(await client.get(path))
    preview = {"csrf_token": token, "person": "ada", "actor_id": "", "thread_id": "", "text": "how far, in km?"}
    pages["preview result"] = tree(await client.post("/support/preview/show", data=preview))
    existing = {"berlin": "tone", "hamburg": "pallet-labels"}[who.tenant]  # a key their organisation holds
    replace = {"csrf_token": token, "key": existing, "text": "answer briefly", "scope": f"tenant:{who.tenant}"}
    pages["publish over a key"] = tree(await client.post("/admin/facts", data=replace))

    reached = {
        "own page": pages["/"].one("h1").text == "What's on file about you",
        "not found": pages["/nowhere"].find(attrs={"data-problem": "404"}) is not None,
        "shared facts": bool(pages["/admin"].find_all(attrs={"data-scope": True})),
        "a replacement to confirm": pages["publish over a key"].find(attrs={"data-confirm-replace": True}) is not None,
        "a preview": bool(pages["preview result"].find_all("pre", {"data-block": True})),
    }
    administers, supports = "onfile-admin" in who.roles, "onfile-support" in who.roles
    assert reached == {
        "own page": True,
        "not found": True,
        "shared facts": administers,
        "a replacement to confirm": administers,
        "a preview": supports,
    }
    found = {where: words for where, page in pages.items() if (words := internal_words(shown(page)))}

    assert found == {}
