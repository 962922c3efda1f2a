"""A person searches their page for memories related in meaning, in a real browser."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import axe_playwright_python
import pytest
from playwright.sync_api import Browser, expect

from tests.browser.test_admin import console_errors, log_in
from tests.processes.servers import ServerProcess

pytestmark = pytest.mark.browser


def test_a_person_finds_how_far_by_meaning_and_the_address_keeps_the_choice(
    browser: Browser, server: ServerProcess, artifacts: Path
) -> None:
    # axe is injected as a script, which the dashboard's Content-Security-Policy rightly forbids.
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = log_in(context, server, "ada")
    errors = console_errors(page, server)

    page.fill("[data-filter='text']", "how far is it")
    expect(page.locator("[data-empty='no-match']")).to_be_visible()  # by words, nothing says "far"
    page.get_by_label("Find memories by").select_option(label="Related in meaning")
    page.click("[data-action='filter']")

    first = page.locator("[data-entry]").first
    expect(first).to_have_attribute("data-key", "units")
    expect(first.locator("[data-fact]")).to_have_text("she wants road distances in miles for the UK depots")
    expect(page.locator("[data-ranking='related']")).to_contain_text("Showing all 11 memories on file, closest first.")
    expect(page.locator("#summary")).to_contain_text("closest in meaning to your search")
    expect(page.locator("[data-pager]")).to_have_count(0)
    assert parse_qs(urlsplit(page.url).query) == {"q": ["how far is it"], "match": ["related"], "sort": ["newest"]}
    page.screenshot(path=str(artifacts / "dashboard-related.png"), full_page=True)

    page.reload()  # the address alone brings the same view back
    expect(page.get_by_label("Find memories by")).to_have_value("related")
    expect(page.locator("[data-entry]").first).to_have_attribute("data-key", "units")
    axe = Path(axe_playwright_python.__file__).with_name("axe.min.js").read_text(encoding="utf-8")
    page.add_script_tag(content=axe)
    violations = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => v.id + ': ' + v.help)"
    )
    assert violations == []
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(artifacts / "dashboard-related-phone.png"), full_page=True)
    assert errors == []
    context.close()
