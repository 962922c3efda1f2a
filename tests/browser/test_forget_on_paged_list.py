"""Forgetting in place while the list spans pages: the range, the counts and the page numbers follow,
and the next page's first entry moves up into the page."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.test_dashboard import log_in
from tests.processes.servers import ServerProcess

pytestmark = pytest.mark.browser


def test_forgetting_in_place_on_a_paged_list_moves_its_range_counts_and_pages(
    browser: Browser, server_at_scale: ServerProcess
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    log_in(page, server_at_scale, "max")
    page.goto(f"{server_at_scale.base_url}/?group=you&page=200")
    expect(page.locator("#group-you [data-range]")).to_have_text("Showing 9,951–10,000 of 10,000")
    expect(page.locator("#group-you [data-page='last']")).to_have_count(0)
    first = page.locator("#group-you [data-entry]").first
    gone = first.get_attribute("data-entry")

    first.locator("[data-action='forget']").click()

    expect(page.locator("[data-notice='forgotten']")).to_be_visible()
    expect(page.locator(f"[data-entry='{gone}']")).to_have_count(0)
    expect(page.locator("#group-you [data-range]")).to_have_text("Showing 9,951–9,999 of 9,999")
    expect(page.locator("#count-you")).to_have_text("9,999 of 9,999 memories")
    expect(page.locator("#group-you [aria-current='page']")).to_have_text("Page 200")
    expect(page.locator("#group-you [data-entry]")).to_have_count(49)

    page.goto(f"{server_at_scale.base_url}/?group=you")
    top = page.locator("#group-you [data-entry]").first
    top.locator("[data-action='forget']").click()
    expect(page.locator("#group-you [data-range]")).to_have_text("Showing 1–50 of 9,998")
    expect(page.locator("#group-you [data-entry]")).to_have_count(50)  # the next page's first moved up
    context.close()
