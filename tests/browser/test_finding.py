"""Finding, sorting and paging what is on file, in a real browser: Ada's overridden values and
organisation facts, and Max moving through 10,000 memories by address, page number and back button."""

from __future__ import annotations

import re
from pathlib import Path

import axe_playwright_python
import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from tests.browser.test_dashboard import log_in
from tests.processes.servers import ServerProcess

pytestmark = pytest.mark.browser
SIZES: dict[str, ViewportSize] = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


def serious_violations(page: Page) -> list[str]:
    axe = Path(axe_playwright_python.__file__).with_name("axe.min.js").read_text(encoding="utf-8")
    page.add_script_tag(content=axe)
    found: list[str] = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => v.id + ': ' + v.help)"
    )
    return found


def first_key(page: Page) -> str:
    return page.locator("#group-you [data-entry]").first.get_attribute("data-key") or ""


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_ada_finds_the_wider_value_she_overrides_and_every_organisation_fact(
    browser: Browser, server: ServerProcess, artifacts: Path, size: str
) -> None:
    context = browser.new_context(viewport=SIZES[size])
    page = context.new_page()
    log_in(page, server, "ada")

    page.fill("[data-filter='text']", "kilometres")

    expect(page.locator("[data-entry]")).to_have_count(2)
    wider = page.locator("[data-entry='mem_g1']")
    expect(wider.locator("mark")).to_have_text("kilometres")
    expect(wider.locator("[data-overridden]")).to_have_text("Doesn't apply to you: your own setting overrides it.")
    expect(page.locator("[data-entry='mem_a2'] [data-overrides] mark")).to_have_text("kilometres")
    assert "q=kilometres" in page.url
    page.screenshot(path=str(artifacts / f"ada-search-{size}.png"), full_page=size == "desktop")

    page.fill("[data-filter='text']", "")
    page.select_option("[data-filter='group']", "organisation")

    expect(page.locator("#group-organisation [data-entry]")).to_have_count(3)
    expect(page.locator("#count-organisation")).to_have_text("3 of 3 memories")
    expect(page.locator("[data-entry='mem_b3'] [data-overridden]")).to_be_visible()
    page.screenshot(path=str(artifacts / f"ada-organisation-{size}.png"), full_page=size == "desktop")
    context.close()


def test_max_searches_two_words_sorts_oldest_reaches_a_far_page_bookmarks_it_and_goes_back(
    browser: Browser, server_at_scale: ServerProcess, artifacts: Path
) -> None:
    server = server_at_scale
    context = browser.new_context(viewport=SIZES["desktop"], bypass_csp=True)
    page = context.new_page()
    log_in(page, server, "max")
    expect(page.locator("#summary")).to_contain_text("10,006 memories on file")

    page.fill("[data-filter='text']", "route case")
    expect(page.locator("#count-you")).to_have_text("1,250 of 10,000 memories")
    page.select_option("[data-filter='sort']", "oldest")
    expect(page.locator("#group-you [data-entry]").first).to_have_attribute("data-key", "route-9993")
    expect(page.locator("#group-you mark").first).to_have_text("route")

    page.locator("#group-you [data-page='last']").click()  # one click to the far end: page 25
    expect(page.locator("#group-you [aria-current='page']")).to_have_text("Page 25")
    expect(page.locator("#group-you [data-entry]").first).to_be_focused()
    page.fill("#page-you-number", "20")  # and any page in between, typed
    page.click("#page-you-jump [data-action='go-to-page']")
    expect(page.locator("#group-you [aria-current='page']")).to_have_text("Page 20")
    far = first_key(page)
    bookmark = page.url
    assert re.search(r"[?&]q=route(\+|%20)case(&|$)", bookmark), bookmark
    assert all(part in bookmark for part in ("sort=oldest", "group=you", "page=20")), bookmark
    page.screenshot(path=str(artifacts / "max-far-page-desktop.png"))
    assert serious_violations(page) == []

    page.go_back()
    expect(page.locator("#group-you [aria-current='page']")).to_have_text("Page 25")
    page.go_back()
    expect(page.locator("#group-you [data-entry]").first).to_have_attribute("data-key", "route-9993")

    again = context.new_page()
    again.goto(bookmark)
    expect(again.locator("#group-you [aria-current='page']")).to_have_text("Page 20")
    assert first_key(again) == far
    expect(again.locator("[data-filter='text']")).to_have_value("route case")
    expect(again.locator("[data-filter='sort']")).to_have_value("oldest")
    context.close()


def test_paging_works_without_javascript_on_a_phone(
    browser: Browser, server_at_scale: ServerProcess, artifacts: Path
) -> None:
    context = browser.new_context(java_script_enabled=False, viewport=SIZES["phone"])
    page = context.new_page()
    log_in(page, server_at_scale, "max")

    page.fill("[data-filter='text']", "invoice")
    page.select_option("[data-filter='sort']", "key")
    page.click("[data-action='filter']")
    expect(page.locator("#count-you")).to_have_text("1,250 of 10,000 memories")
    page.fill("#page-you-number", "7")
    page.click("#page-you-jump [data-action='go-to-page']")

    expect(page.locator("#group-you [aria-current='page']")).to_have_text("Page 7")
    assert all(part in page.url for part in ("q=invoice", "sort=key", "page=7"))
    page.screenshot(path=str(artifacts / "max-no-js-phone.png"))
    context.close()
