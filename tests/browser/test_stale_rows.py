"""A row acted on after another tab already forgot or deleted its memory leaves the page with the notice
that says so, instead of staying with buttons that can only fail again."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.test_admin import console_errors, log_in
from tests.processes.servers import ServerProcess

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width", [1280, 390])
def test_forgetting_a_memory_another_tab_forgot_takes_its_row_off_the_page(
    browser: Browser, server: ServerProcess, artifacts: Path, width: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900})
    stale = log_in(context, server, "ada")
    errors = console_errors(stale, server)
    other = context.new_page()
    other.goto(f"{server.base_url}/")
    other.locator("[data-entry][data-key='depot'] [data-action='forget']").click()
    expect(other.locator("[data-notice='forgotten']")).to_be_visible()
    total = stale.locator("#summary").get_attribute("data-total")

    stale.locator("[data-entry][data-key='depot'] [data-action='forget']").click()

    notice = stale.locator("#notice [data-problem='404']")
    expect(notice).to_contain_text("That memory isn't on file for you.")
    expect(notice.locator("[data-refreshed]")).to_have_text(
        "It is no longer shown: the list has been brought up to date."
    )
    expect(notice).to_be_focused()
    expect(stale.locator("[data-entry][data-key='depot']")).to_have_count(0)
    expect(stale.locator("#summary")).to_have_attribute("data-total", str(int(total or 0) - 1))
    stale.screenshot(path=str(artifacts / f"stale-forget-{width}.png"))
    assert [e for e in errors if "404" not in e] == [], "the 404 itself is logged; nothing else went wrong"
    context.close()


def test_acting_on_a_shared_fact_another_tab_deleted_takes_its_row_off_the_page(
    browser: Browser, server: ServerProcess, artifacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    stale = log_in(context, server, "lena")
    stale.goto(f"{server.base_url}/admin")
    errors = console_errors(stale, server)
    other = context.new_page()
    other.goto(f"{server.base_url}/admin")
    other.locator("[data-fact-id][data-key='tone'] [data-action='delete']").click()
    other.click("[data-action='confirm-delete']")
    expect(other.locator("[data-notice='done']")).to_contain_text("Deleted: “tone”")

    stale.locator("[data-fact-id][data-key='tone'] [data-action='edit']").click()

    notice = stale.locator("#notice [data-problem='404']")
    expect(notice).to_contain_text("That shared fact isn't here.")
    expect(notice.locator("[data-refreshed]")).to_be_visible()
    expect(stale.locator("[data-fact-id][data-key='tone']")).to_have_count(0)
    expect(stale.locator("[data-fact-id][data-key='pallet-labels']")).to_have_count(1)
    stale.screenshot(path=str(artifacts / "stale-admin-edit-1280.png"))
    assert [e for e in errors if "404" not in e] == [], "the 404 itself is logged; nothing else went wrong"
    context.close()
