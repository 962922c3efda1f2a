"""The first minute of the demo: OnFile's own sign-in page with the demo people, a button each, and
signing out onto OnFile's own signed-out page, with every address the browser visits accounted for."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import axe_playwright_python
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.signing_in import press_sign_in_as
from tests.processes.servers import ServerProcess
from web.demo.content import DEMO_PEOPLE

pytestmark = pytest.mark.browser


def navigations(page: Page) -> list[str]:
    """Every address the page's browser asks for as a page, redirects included, from now on."""
    visited: list[str] = []
    page.on("request", lambda request: visited.append(request.url) if request.is_navigation_request() else None)
    return visited


AXE = Path(axe_playwright_python.__file__).with_name("axe.min.js").read_text(encoding="utf-8")


def serious_violations(page: Page) -> list[str]:
    """axe's serious and critical findings on the page (the context must bypass the page's CSP)."""
    page.add_script_tag(content=AXE)
    found: list[str] = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => v.id + ': ' + v.help)"
    )
    return found


@pytest.mark.parametrize("viewport", [(1280, 900), (390, 844)], ids=["desktop", "phone"])
def test_a_newcomer_signs_in_as_ada_from_onfiles_own_page_and_signs_out_onto_onfiles_own_page(
    browser: Browser, server: ServerProcess, artifacts: Path, viewport: tuple[int, int]
) -> None:
    width, height = viewport
    # axe is injected as a script, which the dashboard's Content-Security-Policy rightly forbids.
    context = browser.new_context(viewport={"width": width, "height": height}, bypass_csp=True)
    page = context.new_page()
    visited = navigations(page)

    page.goto(f"{server.base_url}/")

    expect(page.locator("h1")).to_have_text("Sign in to the OnFile demo")
    buttons = page.locator("[data-action='sign-in-as']")
    expect(buttons).to_have_count(len(DEMO_PEOPLE))
    for person in DEMO_PEOPLE:
        row = page.locator(f"[data-person='{person.sub}']")
        expect(row).to_contain_text(person.name)
        expect(row).to_contain_text(person.who)
    assert serious_violations(page) == []
    page.screenshot(path=str(artifacts / f"sign-in-{width}.png"), full_page=True)

    press_sign_in_as(page, "ada")
    page.wait_for_url(f"{server.base_url}/")

    expect(page.locator("h1")).to_have_text("What's on file about you")
    expect(page.locator("[data-entry='mem_a2']")).to_be_visible()
    hosts = {urlsplit(url).netloc for url in visited}
    assert hosts == {urlsplit(server.base_url).netloc}, visited  # OnFile's pages only; the provider stays behind
    assert [urlsplit(url).path for url in visited] == ["/", "/login", "/login", "/auth/callback", "/"]

    visited.clear()
    page.click("[data-action='logout']")
    page.wait_for_url(f"{server.base_url}/signed-out")

    assert visited == [f"{server.base_url}/logout", f"{server.base_url}/signed-out"]
    expect(page.locator("[data-testid='signed-out']")).to_contain_text("You are signed out")
    assert serious_violations(page) == []
    page.screenshot(path=str(artifacts / f"signed-out-{width}.png"), full_page=True)
    context.close()


def test_sam_signs_in_and_lands_in_support_named_support(
    browser: Browser, server: ServerProcess, artifacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{server.base_url}/support/preview")
    press_sign_in_as(page, "sam")
    page.wait_for_url(f"{server.base_url}/support/preview")

    expect(page.locator("[data-area-badge]")).to_have_text("Support")
    expect(page.locator("body")).not_to_contain_text("Administration")
    assert "Administration" not in page.title()
    page.screenshot(path=str(artifacts / "support-sam.png"), full_page=True)
    context.close()
