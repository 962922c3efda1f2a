"""A request that fails is said, in the page's own notice, and a button waits while its request runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Route, expect

from tests.browser.signing_in import press_sign_in_as
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


@pytest.mark.parametrize("width", [1280, 390])
def test_without_javascript_errors_are_pages_with_a_way_on(
    browser: Browser, server: ServerProcess, artifacts: Path, width: int
) -> None:
    context = browser.new_context(java_script_enabled=False, viewport={"width": width, "height": 800})
    page = context.new_page()
    log_in(page, server, "ada")

    page.goto(f"{server.base_url}/nope")
    expect(page.locator("h1")).to_have_text("There is nothing at this address")
    page.screenshot(path=str(artifacts / f"error-404-{width}.png"), full_page=True)
    page.goto(f"{server.base_url}/logout")
    expect(page.locator("h1")).to_have_text("This address is not a page")
    page.screenshot(path=str(artifacts / f"error-405-{width}.png"), full_page=True)

    page.goto(f"{server.base_url}/?q=depot")
    page.route(
        "**/memories/*/forget",
        lambda route: route.continue_(post_data=(route.request.post_data or "").replace("csrf_token=", "csrf_token=0")),
    )
    page.locator("[data-entry][data-key='depot'] [data-action='forget']").click()
    expect(page.locator("h1")).to_have_text("That did not go through")
    page.screenshot(path=str(artifacts / f"error-csrf-{width}.png"), full_page=True)
    page.click("[data-action='back']")
    page.wait_for_url(f"{server.base_url}/?q=depot")
    expect(page.locator("[data-entry][data-key='depot']")).to_have_count(1)
    context.close()


def test_a_forget_after_the_session_ended_is_said_in_place_and_signing_in_comes_back_here(
    browser: Browser, server: ServerProcess, artifacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    log_in(page, server, "ada")
    page.goto(f"{server.base_url}/?group=you")
    context.clear_cookies()  # the session ended while the page was open

    depot = page.locator("[data-entry][data-key='depot']")
    depot.locator("[data-action='forget']").click()

    notice = page.locator("#notice [data-problem='401']")
    expect(notice).to_contain_text("Your session has ended. Nothing was changed.")
    expect(notice).to_be_focused()
    expect(depot).to_have_count(1)
    page.screenshot(path=str(artifacts / "session-ended-390.png"))
    notice.locator("[data-action='sign-in']").click()
    press_sign_in_as(page, "ada")  # the demo's sign-in page, in front of the local provider
    page.wait_for_url(f"{server.base_url}/?group=you")
    expect(depot).to_have_count(1)
    context.close()


def test_a_search_after_the_session_ended_leaves_the_address_and_the_list_as_they_were(
    browser: Browser, server: ServerProcess
) -> None:
    context = browser.new_context()
    page = context.new_page()
    log_in(page, server, "ada")
    page.goto(f"{server.base_url}/?group=you")
    shown = page.locator("#group-you [data-entry]").count()
    context.clear_cookies()  # the session ended while the page was open

    page.locator("#filter-text").fill("report")
    page.locator("#filter-text").press("Enter")

    expect(page.locator("#notice [data-problem='401']")).to_contain_text("Your session has ended.")
    assert page.url == f"{server.base_url}/?group=you", "the search was not shown, so the address is not the search's"
    expect(page.locator("#group-you [data-entry]")).to_have_count(shown)
    page.locator("#notice [data-action='sign-in']").click()
    press_sign_in_as(page, "ada")
    page.wait_for_url(f"{server.base_url}/?group=you")
    context.close()
