"""Expiry, as the people use it: Lena chooses how long Berlin keeps what the assistant concludes; Ada sees
when each of hers goes and keeps one, with JavaScript and without."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests.browser.accessibility import serious_violations
from tests.browser.demo_server import DATABASE_FILE
from tests.browser.signing_in import press_sign_in_as
from tests.processes.servers import ServerProcess


def log_in(page: Page, server: ServerProcess, who: str) -> None:
    page.goto(f"{server.base_url}/")
    press_sign_in_as(page, who)  # the demo's sign-in page, in front of the local provider
    page.wait_for_url(f"{server.base_url}/")


def berlin_keeps_conclusions_for_90_days(
    browser: Browser, server: ServerProcess, artifacts: Path | None = None
) -> None:
    context = browser.new_context()
    page = context.new_page()
    log_in(page, server, "lena")
    page.goto(f"{server.base_url}/admin/organisation")

    page.select_option("[data-lifetime-choice]", "90")
    page.click("[data-action='set-lifetime']")
    # Max's oldest conclusions are 100 days old in the demo: they expire at once, which is asked first
    expect(page.locator("[data-confirm-lifetime]")).to_be_visible()
    page.click("[data-action='confirm-lifetime']")

    expect(page.locator("[data-lifetime]")).to_contain_text("kept for 3 months after the person last kept them")
    if artifacts is not None:
        page.locator("[data-setting='lifetime']").screenshot(path=str(artifacts / "organisation-lifetime.png"))
    context.close()


def expire(database: Path, memory_id: str) -> None:
    """As if the memory's time had passed (the server reads the same file)."""
    past = (datetime.now(UTC) - timedelta(days=1)).replace(tzinfo=None).isoformat(sep=" ")
    with sqlite3.connect(database) as connection:
        connection.execute("UPDATE agent_memory SET expires_at = ? WHERE id = ?", (past, memory_id))


def test_ada_sees_when_her_assistants_conclusions_go_and_keeps_an_expired_one(
    browser: Browser, server: ServerProcess, tmp_path: Path, artifacts: Path
) -> None:
    berlin_keeps_conclusions_for_90_days(browser, server, artifacts)
    expire(tmp_path / DATABASE_FILE, "mem_a3")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    log_in(page, server, "ada")

    depot = page.locator("[data-entry='mem_a4']")
    expect(depot.locator("[data-expiry='expires']")).to_contain_text("Your assistant stops using this in")
    expect(page.locator("[data-entry='mem_a2'] [data-expiry]")).to_have_count(0)  # she wrote that one
    tone = page.locator("[data-entry='mem_a3']")
    expect(tone.locator("[data-expiry='expired']")).to_contain_text("Your assistant no longer uses this")
    page.locator("[data-group='you']").screenshot(path=str(artifacts / "expiry-ada.png"))

    tone.locator("[data-action='keep']").click()

    expect(page.locator("[data-entry='mem_a3'] [data-expiry='expires']")).to_contain_text(
        "Your assistant stops using this in 3 months, unless you keep it."
    )
    context.close()


def test_keeping_works_without_javascript(browser: Browser, server: ServerProcess, tmp_path: Path) -> None:
    berlin_keeps_conclusions_for_90_days(browser, server)
    expire(tmp_path / DATABASE_FILE, "mem_a4")
    context = browser.new_context(java_script_enabled=False, viewport={"width": 360, "height": 800})
    page = context.new_page()
    log_in(page, server, "ada")
    expect(page.locator("[data-entry='mem_a4'] [data-expiry='expired']")).to_be_visible()

    page.locator("[data-entry='mem_a4'] [data-action='keep']").click()

    expect(page.locator("[data-notice]")).to_contain_text("Kept “depot”.")
    expect(page.locator("[data-entry='mem_a4'] [data-expiry='expires']")).to_contain_text("in 3 months")
    context.close()


def test_the_expiry_lines_and_the_lifetime_setting_have_no_serious_accessibility_violations(
    browser: Browser, server: ServerProcess, tmp_path: Path
) -> None:
    berlin_keeps_conclusions_for_90_days(browser, server)
    expire(tmp_path / DATABASE_FILE, "mem_a3")
    # axe is injected as a script, which the dashboard's Content-Security-Policy rightly forbids
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    log_in(page, server, "ada")
    expect(page.locator("[data-expiry='expired']")).to_have_count(1)
    assert serious_violations(page) == []
    context.close()
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    log_in(page, server, "lena")
    page.goto(f"{server.base_url}/admin/organisation")
    assert serious_violations(page) == []
    context.close()
