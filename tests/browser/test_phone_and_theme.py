"""A phone shows the first memory without scrolling, the dark theme follows the system's, every page
passes axe in both themes, and a slow search says it is loading while a quick one shows nothing."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Literal

import axe_playwright_python
import pytest
from playwright.sync_api import Browser, Page, Route, expect

from tests.browser.conftest import AT_SCALE
from tests.browser.screenshots import DESKTOP, PAGES, PHONE, sign_in
from tests.processes.servers import ServerProcess

pytestmark = pytest.mark.browser

Theme = Literal["light", "dark"]
THEMES: tuple[Theme, ...] = ("light", "dark")


def assert_first_memory_in_view(page: Page) -> None:
    assert page.evaluate("window.scrollY") == 0
    first = page.locator("[data-entry]").first
    for part in (first.locator(".entry-key"), first.locator("[data-fact]")):
        box = part.bounding_box()
        assert box is not None
        assert box["y"] >= 0
        assert box["y"] + box["height"] <= PHONE["height"], f"the first memory ends at {box['y'] + box['height']}"
    # Compact, not cut: every filter is still on the page, and the page does not scroll sideways.
    for control in page.locator("[data-filter]").all():
        expect(control).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert menus_cut_short(page) == []


# What a closed menu shows beside its arrow (about 16 px in Chromium), measured in its own font.
_MENUS_CUT_SHORT = """() => [...document.querySelectorAll("select[data-filter]")].filter(menu => {
  const style = getComputedStyle(menu);
  const measure = document.createElement("canvas").getContext("2d");
  measure.font = style.font;
  const room = menu.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 16;
  return measure.measureText(menu.selectedOptions[0].text).width > room;
}).map(menu => menu.name + ": " + menu.selectedOptions[0].text)"""


def menus_cut_short(page: Page) -> list[str]:
    """The filter menus whose chosen option does not fit in the menu as shown."""
    cut: list[str] = page.evaluate(_MENUS_CUT_SHORT)
    return cut


def test_the_narrowest_phone_cuts_no_filter_menu_short(browser: Browser, server: ServerProcess) -> None:
    context = browser.new_context(viewport={"width": 320, "height": 640})
    page = context.new_page()
    sign_in(page, server.base_url, "ada")

    assert menus_cut_short(page) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    context.close()


def test_a_phone_shows_the_first_memory_without_scrolling(browser: Browser, server: ServerProcess) -> None:
    for theme in THEMES:
        context = browser.new_context(viewport=PHONE, color_scheme=theme)
        page = context.new_page()
        sign_in(page, server.base_url, "ada")
        assert_first_memory_in_view(page)
        context.close()


def test_a_phone_shows_the_first_of_ten_thousand_memories_without_scrolling(
    browser: Browser, server_at_scale: ServerProcess
) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    sign_in(page, server_at_scale.base_url, "max")
    assert int(page.locator("[data-total]").get_attribute("data-total") or 0) > AT_SCALE
    assert_first_memory_in_view(page)
    context.close()


def _colours(page: Page, selector: str) -> dict[str, float]:
    """The relative luminance (0 black, 1 white) of the element's background and text."""
    colours: dict[str, float] = page.evaluate(
        """selector => {
            const style = getComputedStyle(document.querySelector(selector));
            const luminance = colour => {
                const [r, g, b] = colour.match(/[\\d.]+/g).slice(0, 3).map(Number).map(c => c / 255)
                    .map(c => c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
                return 0.2126 * r + 0.7152 * g + 0.0722 * b;
            };
            return {background: luminance(style.backgroundColor), text: luminance(style.color)};
        }""",
        selector,
    )
    return colours


def test_the_dark_theme_follows_the_system(browser: Browser, server: ServerProcess) -> None:
    for person, path, surface in (
        ("ada", "/", "[data-entry]"),
        ("lena", "/admin", ".card"),
        (None, "/signed-out", ".notice"),
    ):
        seen: dict[Theme, dict[str, dict[str, float]]] = {}
        for theme in THEMES:
            context = browser.new_context(viewport=DESKTOP, color_scheme=theme)
            page = context.new_page()
            if person is not None:
                sign_in(page, server.base_url, person)
            page.goto(f"{server.base_url}{path}")
            seen[theme] = {"page": _colours(page, "body"), "surface": _colours(page, surface)}
            context.close()

        light, dark = seen["light"], seen["dark"]
        for part in ("page", "surface"):
            assert light[part]["background"] > 0.8, (path, light)
            assert light[part]["text"] < 0.05, (path, light)
            assert dark[part]["background"] < 0.05, (path, dark)
            assert dark[part]["text"] > 0.6, (path, dark)


def test_every_page_has_no_serious_accessibility_violation_in_either_theme(
    browser: Browser, server: ServerProcess
) -> None:
    axe = Path(axe_playwright_python.__file__).with_name("axe.min.js").read_text(encoding="utf-8")
    found: dict[str, list[str]] = {}
    pages: dict[str | None, Page] = {}
    for theme, size in ((theme, size) for theme in THEMES for size in (DESKTOP, PHONE)):
        for shot in PAGES:
            if shot.person not in pages:
                # axe is injected as a script, which the dashboard's Content-Security-Policy rightly forbids.
                # Without motion a button's colours are measured as they stay, not halfway through
                # the 120 ms a hover's change takes.
                context = browser.new_context(
                    viewport=size, color_scheme=theme, bypass_csp=True, reduced_motion="reduce"
                )
                pages[shot.person] = context.new_page()
                if shot.person is not None:
                    sign_in(pages[shot.person], server.base_url, shot.person)
            page = pages[shot.person]
            page.goto(f"{server.base_url}{shot.path}")
            if shot.then is not None:
                shot.then(page)
            page.add_script_tag(content=axe)
            violations = page.evaluate(
                "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
                ".filter(v => v.impact === 'serious' || v.impact === 'critical')"
                ".map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', '))"
            )
            if violations:
                found[f"{shot.name}, {theme}, {size['width']}px"] = violations
        for page in pages.values():
            page.context.close()
        pages.clear()

    assert found == {}


# What the page showed while a search ran, recorded by the page itself: the test's thread is held
# while the route delays the answer.
WATCH = """() => {
    window.seen = [];
    document.addEventListener("htmx:beforeRequest", () => { window.sent = performance.now(); });
    document.addEventListener("htmx:afterRequest", () => { window.answered = performance.now(); });
    const loading = document.getElementById("loading");
    new MutationObserver(() => {
        const box = loading.getBoundingClientRect();
        window.seen.push({
            at: performance.now() - window.sent,
            text: loading.textContent,
            shown: getComputedStyle(loading).opacity === "1" && box.width > 0 && box.height > 0,
            busy: document.getElementById("on-file").getAttribute("aria-busy"),
        });
    }).observe(loading, {childList: true, characterData: true, subtree: true});
}"""


def _search(page: Page, words: str) -> None:
    with page.expect_response(lambda response: f"q={words}" in response.url):
        page.fill("[data-filter='text']", words)
    expect(page.locator("[data-summary-clear], [data-action='clear-filter']").first).to_be_visible()


def test_a_slow_search_says_it_is_loading_and_a_quick_one_shows_nothing(
    browser: Browser, server: ServerProcess
) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    sign_in(page, server.base_url, "ada")
    page.evaluate(WATCH)

    _search(page, "pallet")
    took = page.evaluate("window.answered - window.sent")
    assert took < 300, f"the quick search took {took} ms, so it cannot show that nothing flashes"
    assert [event for event in page.evaluate("window.seen") if event["text"]] == []

    def slowly(route: Route) -> None:
        time.sleep(1.2)
        route.continue_()

    page.route(lambda url: "q=depot" in url, slowly)
    _search(page, "depot")
    seen = page.evaluate("window.seen")
    shown = [event for event in seen if event["text"]]
    assert shown, seen
    assert shown[0]["text"] == "Loading…"
    assert shown[0]["shown"] is True
    assert shown[0]["busy"] == "true"
    assert 300 <= shown[0]["at"] < 1200
    # Once the answer is in, the status is empty again and nothing is busy.
    expect(page.locator("#loading")).to_have_text("")
    expect(page.locator("[aria-busy]")).to_have_count(0)
    expect(page.locator("[data-entry][data-key='depot']")).to_be_visible()
    context.close()


def test_a_search_for_an_address_with_no_space_wraps_on_a_phone(browser: Browser, server: ServerProcess) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    sign_in(page, server.base_url, "ada")

    page.goto(f"{server.base_url}/?q=https://intranet.example.com/finance/reports/2026/quarterly/q3/final.pdf")

    expect(page.locator("[data-empty='no-match']")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    context.close()
