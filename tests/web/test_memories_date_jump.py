"""Going to a date: the list sorted newest or oldest first lands on the page holding the first memory
written on or before (newest first) or on or after (oldest first) the day asked for, as a plain form;
the address keeps the day, and a page number followed afterwards stands for it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import MemoryOrigin, MemoryRecord
from tests.web.builders import ADA, HTMX, page_of, seed
from tests.web.conftest import LoginAs
from tests.web.html_tree import Element
from web.services import Services

NOW = datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)


def one_a_day(count: int) -> list[MemoryRecord]:
    """`count` memories of Ada's, the n-th written n days ago."""
    origin = MemoryOrigin("agent", actor_ref="ada")
    return [
        MemoryRecord(f"m_{n:03d}", f"note-{n:03d}", f"fact {n}", "actor:ada", origin, NOW - timedelta(days=n))
        for n in range(count)
    ]


def day(days_ago: int) -> str:
    return (NOW - timedelta(days=days_ago)).date().isoformat()


def shown_ids(page: Element) -> list[str]:
    return [row["data-entry"] for row in page.one("section", {"id": "group-you"}).find_all("li", {"data-entry": True})]


async def test_a_date_lands_newest_first_on_the_page_holding_that_day_and_the_address_keeps_it(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, *one_a_day(130))
    await login_as(ADA)

    page = page_of(await client.get(f"/?group=you&on={day(75)}"))

    assert page.one(attrs={"aria-current": "page"}).text == "Page 2"
    assert "m_075" in shown_ids(page)
    assert shown_ids(page)[0] == "m_050"
    form = page.one("form", {"data-date-jump": "you"})
    assert form.one("input", {"name": "on"})["value"] == day(75)
    assert [(i["name"], i["value"]) for i in form.find_all("input", {"type": "hidden"})] == [("group", "you")]
    assert "on=" not in page.one("a", {"data-page": "next"})["href"], "a page number stands for the date"


async def test_oldest_first_a_date_lands_on_the_page_holding_the_first_memory_on_or_after_it(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, *one_a_day(130))
    await login_as(ADA)

    page = page_of(await client.get(f"/?group=you&sort=oldest&on={day(20)}"))

    assert page.one(attrs={"aria-current": "page"}).text == "Page 3"
    assert shown_ids(page)[0] == "m_029"
    assert "m_020" in shown_ids(page)
    assert page.one("input", {"name": "on"})["value"] == day(20)


async def test_a_date_past_either_end_lands_on_the_first_or_last_page_and_a_bad_one_is_no_jump(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, *one_a_day(130))
    await login_as(ADA)

    future = page_of(await client.get(f"/?group=you&on={day(-30)}"))
    past = page_of(await client.get("/?group=you&on=1999-01-01"))
    bad = page_of(await client.get("/?group=you&on=2026-02-30&page=2"))

    assert future.one(attrs={"aria-current": "page"}).text == "Page 1"
    assert past.one(attrs={"aria-current": "page"}).text == "Page 3"
    assert bad.one(attrs={"aria-current": "page"}).text == "Page 2"
    assert bad.one("input", {"name": "on"})["value"] == day(50), "it offers the first shown entry's day"
    assert future.find(attrs={"data-beyond": True}) is None, "newest first, a day to come holds the newest"
    assert past.one(attrs={"data-beyond": True}).text == (
        "Nothing here was written on or before 1 January 1999: these are the oldest."
    )
    assert bad.find(attrs={"data-beyond": True}) is None


async def test_the_page_says_so_when_the_address_asks_past_the_end(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, *one_a_day(130))
    await login_as(ADA)

    far = page_of(await client.get("/?group=you&page=99999"))
    last = page_of(await client.get("/?group=you&page=3"))
    newer = page_of(await client.get("/?group=you&sort=oldest&on=2999-01-01"))
    within = page_of(await client.get(f"/?group=you&sort=oldest&on={day(20)}"))

    assert far.one(attrs={"aria-current": "page"}).text == "Page 3"
    assert far.one(attrs={"data-beyond": True}).text == "There is no page 99,999: this is the last, page 3."
    assert last.find(attrs={"data-beyond": True}) is None
    assert newer.one(attrs={"data-beyond": True}).text == (
        "Nothing here was written on or after 1 January 2999: these are the newest."
    )
    assert within.find(attrs={"data-beyond": True}) is None


async def test_the_order_by_key_offers_no_date_and_with_htmx_the_date_moves_the_focus_to_the_list(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, *one_a_day(130))
    await login_as(ADA)

    by_key = page_of(await client.get("/?group=you&sort=key"))
    moved = await client.get(
        f"/?group=you&on={day(120)}", headers={**HTMX, "HX-Target": "on-file", "HX-Trigger": "date-you-jump"}
    )

    assert by_key.find("form", {"data-date-jump": True}) is None
    assert by_key.one("form", {"data-page-jump": "you"})
    fragment = page_of(moved)
    assert fragment.one(attrs={"aria-current": "page"}).text == "Page 3"
    assert fragment.one("li", {"data-entry": True, "autofocus": True})["data-entry"] == "m_100"
