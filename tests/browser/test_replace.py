"""Lena publishes over a key Berlin already has: she sees the fact it replaces, keeps it once, then
replaces it, in place with htmx."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.test_admin import console_errors, log_in
from tests.browser.test_first_minute import serious_violations
from tests.processes.servers import ServerProcess

pytestmark = pytest.mark.browser

CURRENT = "answer formally and in full sentences"
NEW = "answer briefly, with the number first"


@pytest.mark.parametrize("viewport", [(1280, 900), (390, 844)], ids=["desktop", "phone"])
def test_publishing_over_an_existing_key_shows_the_old_value_keeps_it_on_cancel_and_replaces_it_on_confirm(
    browser: Browser, server: ServerProcess, artifacts: Path, viewport: tuple[int, int]
) -> None:
    width, height = viewport
    context = browser.new_context(viewport={"width": width, "height": height}, bypass_csp=True)
    page = log_in(context, server, "lena")
    errors = console_errors(page, server)
    page.goto(f"{server.base_url}/admin")
    fact = page.locator("[data-fact-id][data-key='tone'] [data-text]")
    expect(fact).to_have_text(CURRENT)

    page.fill("[data-field='key']", "tone")
    page.fill("[data-field='text']", NEW)
    page.click("[data-action='publish']")

    step = page.locator("[data-confirm-replace]")
    expect(step.locator("[data-current-text]")).to_have_text(CURRENT)
    expect(step.locator("[data-new-text]")).to_have_text(NEW)
    assert page.url == f"{server.base_url}/admin", "asked in place"
    assert serious_violations(page) == []
    page.screenshot(path=str(artifacts / f"admin-replace-confirm-{width}.png"), full_page=True)

    step.locator("[data-action='keep']").click()

    expect(page.locator("[data-notice='done']")).to_contain_text("Nothing was published: “tone” keeps its fact.")
    expect(fact).to_have_text(CURRENT)
    expect(page.locator("[data-field='text']")).to_have_value(NEW)  # what was typed is still there

    page.click("[data-action='publish']")
    page.locator("[data-confirm-replace] [data-action='confirm-replace']").click()

    expect(page.locator("[data-notice='done']")).to_contain_text("Published: “tone”")
    expect(fact).to_have_text(NEW)
    expect(page.locator("[data-confirm-replace]")).to_have_count(0)
    expect(page.locator("[data-field='key']")).to_have_value("")
    assert errors == [], errors
    context.close()


def test_without_javascript_the_replacement_is_confirmed_on_a_page_of_its_own(
    browser: Browser, server: ServerProcess, artifacts: Path
) -> None:
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    page = log_in(context, server, "lena")
    page.goto(f"{server.base_url}/admin")
    page.fill("[data-field='key']", "tone")
    page.fill("[data-field='text']", NEW)
    page.click("[data-action='publish']")

    expect(page.locator("h1")).to_have_text("Replace a shared fact?")
    expect(page.locator("[data-current-text]")).to_have_text(CURRENT)
    page.screenshot(path=str(artifacts / "admin-replace-confirm-no-js-390.png"), full_page=True)
    page.click("[data-action='confirm-replace']")

    expect(page.locator("[data-notice='done']")).to_contain_text("Published: “tone”")
    expect(page.locator("[data-fact-id][data-key='tone'] [data-text]")).to_have_text(NEW)
    context.close()
