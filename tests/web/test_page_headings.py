"""Every page a person can open without JavaScript has one h1 and skips no heading level, so a screen
reader's outline of it makes sense — including the pages that reuse a part shown in place on the list
(a correction, a publishing or deleting question), where that part's heading sits one level lower."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor
from tests.web.admin_builders import ADA, LENA, SAM, shared, tree
from tests.web.conftest import LoginAs
from tests.web.html_tree import Element
from web.services import Services

HEADING = re.compile(r"h[1-6]")


def outline(page: Element) -> list[int]:
    return [int(element.tag[1]) for element in page.find_all() if HEADING.fullmatch(element.tag)]


@pytest.fixture(autouse=True)
async def _on_file(services: Services) -> None:
    await services.provider.add(
        [
            shared("tone", "short answers"),
            shared("units", "kilometres", "actor:ada", author="human", by="ada", id="m_units"),
            shared("cut-off", "orders by four", "actor:lena", author="human", by="lena", id="m_cutoff"),
        ]
    )


@pytest.mark.parametrize(
    ("who", "address"),
    [
        (ADA, "/"),
        (ADA, "/memories/m_units/edit?back=/"),
        (ADA, "/memories/forget-chosen?all=1&back=/"),
        (ADA, "/memories/forget-all"),
        (ADA, "/memories/import"),
        (ADA, "/memories/waiting"),
        (ADA, "/looked"),
        (ADA, "/memories/receipt"),
        (SAM, "/support/preview"),
        (LENA, "/admin/people"),
        (LENA, "/memories/m_cutoff/promote?scope=tenant:berlin&back=/"),
        (LENA, "/admin"),
        (LENA, "/admin/facts/mem_tenant_berlin_tone/edit"),
        (LENA, "/admin/facts/mem_tenant_berlin_tone/delete"),
        (LENA, "/admin/audit"),
        (LENA, "/admin/organisation"),
    ],
)
async def test_a_page_has_one_h1_and_skips_no_heading_level(
    client: AsyncTestClient[Litestar], login_as: LoginAs, who: Actor, address: str
) -> None:
    await login_as(who)

    answer = await client.get(address)

    # the receipt page opened with no receipt says there is none, as a 404 page with the same outline
    assert answer.status_code == (404 if address == "/memories/receipt" else 200), answer.text
    levels = outline(tree(answer))
    assert levels[:1] == [1], levels
    assert levels.count(1) == 1, levels
    for before, after in pairwise(levels):
        assert after <= before + 1, f"h{before} then h{after} on {address}: {levels}"


@pytest.mark.parametrize(
    ("address", "heading"),
    [
        ("/memories/forget-chosen?all=1&back=/", "Forget all that match"),
        ("/memories/forget-chosen?id=m_units&back=/", "Forget what you ticked"),
    ],
)
async def test_the_forget_question_s_page_says_how_the_memories_were_chosen(
    client: AsyncTestClient[Litestar], login_as: LoginAs, address: str, heading: str
) -> None:
    await login_as(ADA)

    assert tree(await client.get(address)).one("h1").text == heading
