"""A request that fails is said, in the page's own notice, and a button waits while its request runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Route, expect

from tests.browser.test_dashboard import log_in
from tests.processes.servers import ServerProcess

pytestmark = pytest.mark.browser

PROBLEM_BACKGROUND = "rgb(127, 29, 29)"  # .notices .notice-problem


@pytest.mark.parametrize("width", [1280, 390])
def test_a_failed_forget_is_said_and_its_button_waits_while_it_runs(
    browser: Browser, server: ServerProcess, artifacts: Path, width: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    log_in(page, server, "ada")
    held: list[Route] = []
    page.route("**/memories/*/forget", lambda route: held.append(route))

    depot = page.locator("[data-entry][data-key='depot']")
    button = depot.locator("[data-action='forget']")
    button.click()
    expect(button).to_be_disabled()
    button.click(force=True)  # a second click on the waiting button sends nothing
    page.wait_for_timeout(300)
    assert len(held) == 1
    held[0].fulfill(status=500, content_type="text/plain", body="Internal Server Error")

    notice = page.locator("#notice [data-problem='unanswered']")
    expect(notice).to_contain_text("That may not have been done. OnFile ran into a problem (error 500).")
    expect(notice).to_be_focused()
    expect(notice).to_have_css("background-color", PROBLEM_BACKGROUND)
    expect(button).to_be_enabled()
    expect(depot).to_have_count(1)
    page.screenshot(path=str(artifacts / f"failure-500-{width}.png"))

    page.unroute("**/memories/*/forget")
    page.route("**/memories/*/forget", lambda route: route.abort("connectionrefused"))
    button.click()
    expect(notice).to_contain_text("OnFile could not be reached.")
    page.unroute("**/memories/*/forget")

    # A page left open past its token (here: a forged one) is told so, in the same place, and nothing goes.
    page.evaluate("document.body.setAttribute('hx-headers', JSON.stringify({'X-CSRF-Token': '0'.repeat(64)}))")
    button.click()
    refused = page.locator("#notice [data-problem='403']")
    expect(refused).to_contain_text("did not come from OnFile, so nothing was changed")
    expect(refused).to_have_css("background-color", PROBLEM_BACKGROUND)
    expect(refused).to_be_focused()
    expect(depot).to_have_count(1)
    page.screenshot(path=str(artifacts / f"failure-csrf-{width}.png"))
    refused.locator("[data-action='reload']").click()
    page.wait_for_url(f"{server.base_url}/")
    expect(page.locator("#notice [data-problem]")).to_have_count(0)
    context.close()
