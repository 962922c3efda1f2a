"""A person logs in with their identity provider, reads what is on file, forgets, and logs out."""

from __future__ import annotations

from pathlib import Path

import axe_playwright_python
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.signing_in import press_sign_in_as
from tests.processes.servers import ServerProcess

pytestmark = pytest.mark.browser


def log_in(page: Page, server: ServerProcess, who: str) -> None:
    page.goto(f"{server.base_url}/")
    press_sign_in_as(page, who)  # the demo's sign-in page, in front of the local provider
    page.wait_for_url(f"{server.base_url}/")


def test_a_person_sees_overrides_and_dangling_origins_forgets_and_logs_out(
    browser: Browser, server: ServerProcess, artifacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on(
        "console",
        lambda message: (
            errors.append(f"{message.location.get('url')}: {message.text}")
            if message.type == "error" and str(message.location.get("url", "")).startswith(server.base_url)
            else None
        ),
    )

    log_in(page, server, "ada")

    expect(page.locator("h1")).to_have_text("What's on file about you")
    units = page.locator("[data-entry='mem_a2']")
    expect(units.locator("[data-fact]")).to_have_text("she wants road distances in miles for the UK depots")
    expect(units.locator("[data-override]")).to_contain_text("report distances in kilometres")
    expect(page.locator("[data-entry][data-key='report-day'] [data-badge='origin-gone']")).to_be_visible()
    expect(page.locator("[data-entry][data-key='manifest-required'] [data-badge='always-on']")).to_be_visible()
    expect(page.locator("[data-entry][data-key='manifest-required'] [data-managed]")).to_be_visible()
    page.screenshot(path=str(artifacts / "dashboard-ada.png"), full_page=True)

    units.locator("[data-action='forget']").click()

    expect(page.locator("[data-entry='mem_a2']")).to_have_count(0)
    revealed = page.locator("[data-entry='mem_g1']")
    expect(revealed.locator("[data-fact]")).to_have_text("report distances in kilometres")
    expect(revealed.locator("[data-action='forget']")).to_have_count(0)
    page.screenshot(path=str(artifacts / "dashboard-ada-forgotten.png"), full_page=True)

    visited: list[str] = []
    page.on("request", lambda request: visited.append(request.url) if request.is_navigation_request() else None)
    page.click("[data-action='logout']")
    page.wait_for_url(f"{server.base_url}/signed-out")
    expect(page.locator("[data-testid='signed-out']")).to_be_visible()
    assert visited == [f"{server.base_url}/logout", f"{server.base_url}/signed-out"]  # no provider page between
    page.goto(f"{server.base_url}/")
    expect(page.locator("[data-sign-in]")).to_be_visible()  # signed out: back at the sign-in page
    assert errors == [], errors
    context.close()


def test_the_page_works_without_javascript(browser: Browser, server: ServerProcess, artifacts: Path) -> None:
    context = browser.new_context(java_script_enabled=False, viewport={"width": 360, "height": 800})
    page = context.new_page()
    log_in(page, server, "ada")

    page.locator("[data-entry][data-key='tone'] [data-action='forget']").click()

    expect(page.locator("[data-entry][data-key='tone'] [data-fact]")).to_have_text(
        "answer formally and in full sentences"
    )
    page.fill("[data-filter='text']", "pallet")
    page.click("[data-action='filter']")
    expect(page.locator("[data-entry]")).to_have_count(2)
    page.screenshot(path=str(artifacts / "dashboard-phone-no-js.png"), full_page=True)
    context.close()


def test_the_pages_have_no_serious_accessibility_violations(browser: Browser, server: ServerProcess) -> None:
    # axe is injected as a script, which the dashboard's Content-Security-Policy rightly forbids.
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    log_in(page, server, "ada")
    axe = Path(axe_playwright_python.__file__).with_name("axe.min.js").read_text(encoding="utf-8")
    found: dict[str, list[str]] = {}
    for path in ("/", "/?q=pallet", "/signed-out"):
        page.goto(f"{server.base_url}{path}")
        page.add_script_tag(content=axe)
        violations = page.evaluate(
            "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
            ".filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => v.id + ': ' + v.help)"
        )
        if violations:
            found[path] = violations
    context.close()

    assert found == {}
