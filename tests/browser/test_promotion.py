"""Publishing one of one's own notes for the organisation asks first, in place, saying who will be told it."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.test_admin import log_in
from tests.processes.servers import ServerProcess

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width", [1280, 390])
def test_publishing_for_the_organisation_asks_in_place_and_can_be_declined(
    browser: Browser, server: ServerProcess, artifacts: Path, width: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = log_in(context, server, "lena")
    entry = page.locator("#entry-mem_l1")

    entry.locator("[data-action='promote']").click()
    confirm = page.locator("[data-confirm-promote='tenant:berlin']")
    expect(confirm.locator("h3")).to_have_text("Publish “same-day-cutoff” for everyone in your organisation?")
    expect(confirm.locator("[data-action='cancel']")).to_be_focused()
    confirm.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / f"promote-confirm-{width}.png"))

    confirm.locator("[data-action='cancel']").click()
    expect(entry.locator("[data-action='promote']")).to_be_visible()
    expect(confirm).to_have_count(0)

    entry.locator("[data-action='promote']").click()
    page.locator("[data-action='confirm-promote']").click()
    expect(page.locator("[data-notice='published']")).to_contain_text(
        "Published “same-day-cutoff” for everyone in your organisation."
    )
    expect(page.locator("[data-notice='published']")).to_be_focused()  # the keyboard is on what was done
    expect(entry.locator("[data-same-as]")).to_have_text(
        "Your organisation's default is the same, set by an administrator."
    )
    expect(entry.locator("[data-overrides]")).to_have_count(0)
    context.close()


def test_without_javascript_publishing_asks_on_a_page_of_its_own(
    browser: Browser, server: ServerProcess, artifacts: Path
) -> None:
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    page = log_in(context, server, "lena")

    page.locator("#entry-mem_l1 [data-action='promote']").click()
    expect(page.locator("h1")).to_have_text("Publish one of your notes?")
    page.screenshot(path=str(artifacts / "promote-confirm-page-390.png"), full_page=True)
    page.click("[data-action='confirm-promote']")

    expect(page.locator("[data-notice='published']")).to_be_visible()
    context.close()
