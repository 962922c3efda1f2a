"""Max, with 10,000 memories, goes to a date instead of a page number, with and without JavaScript."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.test_dashboard import log_in
from tests.processes.servers import ServerProcess
from web.demo.content import DEMO_NOW

pytestmark = pytest.mark.browser
TOPICS = ("customer", "route", "supplier", "depot", "invoice", "pallet", "driver", "shift")
MAX_MEMORIES = 10_000


def landing(day: date) -> tuple[int, str]:
    """The page a jump to `day` lands on, newest first, and its first key: Max's n-th memory was
    written n hours before the demo's now, and those written after `day` come first."""
    cut = datetime(day.year, day.month, day.day, tzinfo=UTC) + timedelta(days=1)
    ahead = sum(1 for n in range(MAX_MEMORIES) if DEMO_NOW - timedelta(hours=n) >= cut)
    first = (ahead // 50) * 50
    return ahead // 50 + 1, f"{TOPICS[first % len(TOPICS)]}-{first:04d}"


@pytest.mark.parametrize("javascript", [True, False], ids=["htmx", "no javascript"])
def test_max_goes_to_a_date_and_the_address_keeps_it(
    browser: Browser, server_at_scale: ServerProcess, artifacts: Path, javascript: bool
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=javascript)
    page = context.new_page()
    log_in(page, server_at_scale, "max")
    day = (DEMO_NOW - timedelta(days=100)).date()
    number, first = landing(day)

    page.fill("#date-you-day", day.isoformat())
    page.click("#date-you-jump [data-action='go-to-date']")

    expect(page.locator("#group-you [aria-current='page']")).to_have_text(f"Page {number}")
    expect(page.locator("#group-you [data-entry]").first).to_have_attribute("data-key", first)
    if javascript:
        expect(page.locator("#group-you [data-entry]").first).to_be_focused()
    assert all(part in page.url for part in (f"on={day.isoformat()}", "group=you")), page.url
    page.screenshot(path=str(artifacts / f"max-date-jump-{'htmx' if javascript else 'no-js'}.png"))

    page.locator("#group-you [data-page='next']").click()
    expect(page.locator("#group-you [aria-current='page']")).to_have_text(f"Page {number + 1}")
    assert "on=" not in page.url, "a page number followed stands for the date"
    context.close()
