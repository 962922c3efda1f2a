"""The elevated area in a real browser: Lena publishes a fact for Berlin, Ada sees it beneath her own
override, Sam previews what Ada's assistant is told; and the console works without JavaScript."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import axe_playwright_python
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.signing_in import press_sign_in_as
from tests.processes.servers import ServerProcess

pytestmark = pytest.mark.browser

PUBLISHED = "report road distances in kilometres, with miles in brackets"


def log_in(context: BrowserContext, server: ServerProcess, who: str) -> Page:
    page = context.new_page()
    page.goto(f"{server.base_url}/")
    press_sign_in_as(page, who)  # the demo's sign-in page, in front of the local provider
    page.wait_for_url(f"{server.base_url}/")
    return page


def console_errors(page: Page, server: ServerProcess) -> list[str]:
    errors: list[str] = []
    page.on(
        "console",
        lambda message: (
            errors.append(message.text)
            if message.type == "error" and str(message.location.get("url", "")).startswith(server.base_url)
            else None
        ),
    )
    return errors


def test_a_published_fact_reaches_the_end_user_and_the_preview(
    browser: Browser, server: ServerProcess, artifacts: Path
) -> None:
    ada = browser.new_context(viewport={"width": 1280, "height": 900})
    log_in(ada, server, "ada").close()  # Ada has been seen, so support can pick her
    lena = browser.new_context(viewport={"width": 1280, "height": 900})
    page = log_in(lena, server, "lena")
    errors = console_errors(page, server)

    page.click("[data-action='administration']")
    page.wait_for_url(f"{server.base_url}/admin")
    expect(page.locator("[data-area-badge]")).to_have_text("Administration")
    page.fill("[data-field='key']", "units")
    page.fill("[data-field='text']", PUBLISHED)
    page.click("[data-action='publish']")

    fact = page.locator("[data-fact-id][data-key='units']")
    expect(fact.locator("[data-text]")).to_have_text(PUBLISHED)
    expect(page.locator("[data-notice='done']")).to_contain_text("Published: “units”")
    expect(page.locator("[data-field='key']")).to_have_value("")  # a fresh form for the next one
    page.screenshot(path=str(artifacts / "admin-lena-published.png"), full_page=True)
    assert errors == [], errors
    lena.close()

    page = ada.new_page()
    page.goto(f"{server.base_url}/")
    units = page.locator("[data-entry='mem_a2']")
    expect(units.locator("[data-fact]")).to_have_text("she wants road distances in miles for the UK depots")
    expect(units.locator("[data-override='organisation'] q")).to_have_text(PUBLISHED)
    expect(page.locator("[data-action='administration']")).to_have_count(0)
    page.screenshot(path=str(artifacts / "admin-ada-sees-it.png"), full_page=True)
    ada.close()

    sam = browser.new_context(viewport={"width": 1280, "height": 900})
    page = log_in(sam, server, "sam")
    page.click("[data-action='administration']")
    page.wait_for_url(f"{server.base_url}/support/preview")
    # Jonas is Hamburg's: Berlin's support person is not offered him, and typing his id finds no one
    expect(page.locator("[data-field='person'] option[value='jonas']")).to_have_count(0)
    page.fill("[data-field='actor_id']", "jonas")
    page.click("[data-action='preview']")
    expect(page.locator("[data-error='actor_id']")).to_contain_text("No one with the id “jonas” is known in your")
    expect(page.locator("[data-preview-result]")).to_have_count(0)
    page.fill("[data-field='actor_id']", "")
    page.select_option("[data-field='person']", "ada")
    page.fill("[data-field='text']", "how far is it from the depot, in kilometres?")
    page.click("[data-action='preview']")

    block = page.locator("pre[data-block]")
    expect(block).to_contain_text("- [actor:ada] units: she wants road distances in miles for the UK depots")
    expect(block).to_contain_text(f"↳ [tenant:berlin] a person stated: {PUBLISHED}")
    expect(page.locator("[data-tokens]")).to_contain_text("estimate")
    page.screenshot(path=str(artifacts / "preview-sam-for-ada.png"), full_page=True)
    sam.close()


def test_the_console_works_without_javascript_on_a_phone(
    browser: Browser, server: ServerProcess, artifacts: Path
) -> None:
    context = browser.new_context(java_script_enabled=False, viewport={"width": 360, "height": 800})
    page = log_in(context, server, "lena")
    page.goto(f"{server.base_url}/admin")

    page.locator("[data-fact-id][data-key='tone'] [data-action='delete']").click()
    expect(page.locator("h1")).to_have_text("Delete a shared fact?")
    page.screenshot(path=str(artifacts / "admin-phone-confirm-delete.png"), full_page=True)
    page.click("[data-action='confirm-delete']")

    expect(page.locator("[data-notice='done']")).to_contain_text("Deleted: “tone”")
    expect(page.locator("[data-fact-id][data-key='tone']")).to_have_count(0)
    page.locator("[data-fact-id][data-key='pallet-labels'] [data-action='pin']").click()
    expect(page.locator("[data-fact-id][data-key='pallet-labels'] [data-badge='always-on']")).to_be_visible()
    expect(page.locator("[data-budget-words]")).to_have_text("2 of 20 always-on")
    page.screenshot(path=str(artifacts / "admin-phone-no-js.png"), full_page=True)
    context.close()


def test_an_administrator_finds_a_shared_fact_by_its_words_in_any_order(
    browser: Browser, server: ServerProcess, artifacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = log_in(context, server, "lena")
    errors = console_errors(page, server)
    page.goto(f"{server.base_url}/admin")

    page.fill("#filter-text", "Code PALLETS")  # typed, not submitted: the list follows what is typed

    expect(page.locator("[data-fact-id]")).to_have_count(1)
    fact = page.locator("[data-fact-id][data-key='pallet-labels']")
    expect(fact.locator("[data-text]")).to_have_text("pallet labels carry the depot code first")
    expect(fact.locator("mark")).to_have_text(["pallet", "pallet", "code"])
    expect(page.locator("#summary")).to_contain_text("1 of 3 shared facts match your filter.")
    assert parse_qs(urlsplit(page.url).query)["q"] == ["Code PALLETS"], "the address keeps the search"
    page.screenshot(path=str(artifacts / "admin-search-by-words.png"), full_page=True)

    page.go_back()
    expect(page.locator("[data-fact-id]")).to_have_count(3)
    assert errors == [], errors
    context.close()


def test_the_area_has_no_serious_accessibility_violations(browser: Browser, server: ServerProcess) -> None:
    # axe is injected as a script, which the dashboard's Content-Security-Policy rightly forbids.
    axe = Path(axe_playwright_python.__file__).with_name("axe.min.js").read_text(encoding="utf-8")
    found: dict[str, list[str]] = {}
    for who, path in [
        ("lena", "/admin"),
        ("lena", "/admin/facts/mem_b3/edit"),
        ("lena", "/admin/facts/mem_b3/delete"),
        ("lena", "/admin/audit"),
        ("lena", "/"),
        ("sam", "/support/preview"),
        ("ada", "/admin"),
    ]:
        context = browser.new_context(bypass_csp=True)
        page = log_in(context, server, who)
        page.goto(f"{server.base_url}{path}")
        if path == "/support/preview":
            page.fill("[data-field='actor_id']", "ada")
            page.click("[data-action='preview']")
        page.add_script_tag(content=axe)
        violations = page.evaluate(
            "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
            ".filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => v.id + ': ' + v.help)"
        )
        if violations:
            found[f"{who} {path}"] = violations
        context.close()

    assert found == {}
