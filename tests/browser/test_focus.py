"""The keyboard's place after an in-place update: the first new entry, the restored entry, the fact
acted on, or the error — never the top of the document."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.test_admin import log_in
from tests.processes.servers import ServerProcess

pytestmark = pytest.mark.browser


def test_the_focus_follows_a_page_number_and_undo(browser: Browser, server: ServerProcess, artifacts: Path) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = log_in(context, server, "max")
    page.goto(f"{server.base_url}/?sort=key")  # by key, an entry written back returns to its place
    group = page.locator("#entries-you")

    page.focus("#page-you-next")
    page.keyboard.press("Enter")
    expect(page.locator("#group-you [aria-current='page']")).to_have_text("Page 2")
    first_new = group.locator("[data-entry]").first
    expect(first_new).to_be_focused()
    page.screenshot(path=str(artifacts / "focus-page-number-1280.png"))

    # Undo puts the entry back in its place on this page, and the focus on it.
    key = first_new.get_attribute("data-key")
    first_new.locator("[data-action='forget']").focus()
    page.keyboard.press("Enter")
    expect(page.locator("[data-action='undo']")).to_be_focused()
    expect(page.locator(f"[data-entry][data-key='{key}']")).to_have_count(0)
    page.keyboard.press("Enter")
    expect(page.locator("[data-notice='restored']")).to_be_visible()
    expect(page.locator(f"[data-entry][data-key='{key}']")).to_be_focused()
    context.close()


def test_the_focus_follows_a_save_and_a_refused_publish(
    browser: Browser, server: ServerProcess, artifacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = log_in(context, server, "lena")
    page.goto(f"{server.base_url}/admin")

    page.locator("[data-fact-id][data-key='tone'] [data-action='edit']").click()
    page.fill("[data-editing] [data-field='text']", "answer formally, in full sentences")
    page.click("[data-editing] [data-action='save']")
    expect(page.locator("[data-notice='done']")).to_contain_text("Saved")
    expect(page.locator("[data-fact-id][data-key='tone']")).to_be_focused()

    page.fill("[data-field='key']", "   ")
    page.fill("[data-field='text']", "something")
    page.click("[data-action='publish']")
    expect(page.locator("#create-error")).to_be_focused()
    page.screenshot(path=str(artifacts / "focus-publish-error-390.png"))
    context.close()
