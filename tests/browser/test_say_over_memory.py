"""A person's say over what is kept about them, in a real browser through the real identity provider:
Ada sees that Sam previewed her prompt and downloads the list; she pauses memory and an agent's
remember is refused; with approval required for Berlin, what the assistant concludes waits until she
approves one and discards the other, and only the approved one reaches the next digest."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import axe_playwright_python
import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, expect

from tests.browser.demo_server import AGENT_TOKEN
from tests.browser.signing_in import press_sign_in_as
from tests.processes.servers import ServerProcess

pytestmark = pytest.mark.browser

ADA = {"id": "ada", "tenantRef": "berlin", "roles": []}
PHONE = ViewportSize(width=390, height=844)
DESKTOP = ViewportSize(width=1280, height=900)


def log_in(context: BrowserContext, server: ServerProcess, who: str) -> Page:
    page = context.new_page()
    page.goto(f"{server.base_url}/")
    press_sign_in_as(page, who)  # the demo's sign-in page, in front of the local provider
    page.wait_for_url(f"{server.base_url}/")
    return page


def agent(server: ServerProcess, path: str, body: dict[str, Any]) -> Any:
    response = httpx.post(
        f"{server.base_url}/agent/runs/{path}", json=body, headers={"Authorization": f"Bearer {AGENT_TOKEN}"}
    )
    assert response.status_code == 200, response.text
    return response.json()


def digest_keys(server: ServerProcess, run: str) -> list[str]:
    return [e["key"] for e in agent(server, f"{run}/digest", {"actor": ADA, "text": ""})["entries"]]


def shoot(page: Page, artifacts: Path, name: str) -> None:
    page.screenshot(path=str(artifacts / f"{name}.png"), full_page=True)


def test_ada_sees_who_looked_and_downloads_it(browser: Browser, server: ServerProcess, artifacts: Path) -> None:
    ada = browser.new_context(viewport=DESKTOP)
    log_in(ada, server, "ada").close()  # Ada has been seen, so support can pick her
    sam = browser.new_context(viewport=DESKTOP)
    page = log_in(sam, server, "sam")
    page.goto(f"{server.base_url}/support/preview")
    page.select_option("[data-field='person']", "ada")
    page.click("[data-action='preview']")
    expect(page.locator("pre[data-block]")).to_be_visible()
    sam.close()

    page = ada.new_page()
    page.goto(f"{server.base_url}/")
    page.click("[data-action='who-looked']")
    page.wait_for_url(f"{server.base_url}/looked")
    [look] = page.locator("[data-look]").all()
    expect(look.locator("[data-named='sam'] [data-name]")).to_have_text("Sam Okafor")
    expect(look.locator("[data-what]")).to_contain_text("support preview of your prompt")
    expect(look.locator("[data-when]")).to_have_text("just now")
    expect(look.locator("[data-organisation]")).to_have_text("For Berlin")
    shoot(page, artifacts, "who-looked-desktop")
    with page.expect_download() as downloading:
        page.click("[data-action='looked-csv']")
    rows = list(csv.DictReader(io.StringIO(Path(downloading.value.path()).read_text(encoding="utf-8-sig"))))
    named = [(row["who"], row["who_id"], row["organisation"], row["organisation_id"]) for row in rows]
    assert named == [("Sam Okafor", "sam", "Berlin", "berlin")]
    page.set_viewport_size(PHONE)
    shoot(page, artifacts, "who-looked-phone")
    ada.close()


def test_ada_pauses_memory_then_approves_one_note_and_discards_another(
    browser: Browser, server: ServerProcess, artifacts: Path
) -> None:
    ada = browser.new_context(viewport=DESKTOP)
    page = log_in(ada, server, "ada")
    page.click("[data-action='pause-memory']")
    expect(page.locator("[data-memory-state='paused']")).to_be_visible()
    shoot(page, artifacts, "memory-paused-desktop")

    digest_keys(server, "run_paused")
    refused = agent(server, "run_paused/remember", {"callId": "c1", "key": "tea", "fact": "she drinks green tea"})
    assert refused["ok"] is False
    assert "Memory is paused" in refused["error"]
    assert "tea" not in digest_keys(server, "run_after_pause")

    page.click("[data-action='resume-memory']")
    expect(page.locator("[data-memory-state='on']")).to_be_visible()

    lena = browser.new_context(viewport=DESKTOP)
    admin = log_in(lena, server, "lena")
    admin.goto(f"{server.base_url}/admin/organisation")
    admin.click("[data-action='require-approval']")
    expect(admin.locator("[data-approval='required']")).to_be_visible()
    shoot(admin, artifacts, "organisation-approval-desktop")
    admin.set_viewport_size(PHONE)
    shoot(admin, artifacts, "organisation-approval-phone")
    lena.close()

    digest_keys(server, "run_held")
    held = [
        agent(server, "run_held/remember", {"callId": call, "key": key, "fact": fact})
        for call, key, fact in [
            ("c1", "tea", "she drinks green tea"),
            ("c2", "desk", "she sits by the window"),
            ("c3", "report", "https://intranet.example.com/finance/reports/2026/quarterly/q3/final-version.pdf"),
        ]
    ]
    assert all(answer["ok"] and answer["pending"] for answer in held)
    assert not {"tea", "desk"} & set(digest_keys(server, "run_waiting"))

    page.reload()
    expect(page.locator("[data-action='waiting']")).to_have_attribute("data-waiting-count", "3")
    shoot(page, artifacts, "waiting-count-desktop")
    page.click("[data-action='waiting']")
    page.wait_for_url(f"{server.base_url}/memories/waiting")
    expect(page.locator("[data-waiting-id]")).to_have_count(3)
    shoot(page, artifacts, "waiting-desktop")
    page.set_viewport_size(PHONE)
    shoot(page, artifacts, "waiting-phone")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], "the address wraps"
    page.locator("[data-waiting-id][data-key='report'] [data-action='discard']").click()
    expect(page.locator("[data-settled]")).to_have_text("Discarded “report”: it is gone.")
    page.locator("[data-waiting-id][data-key='tea'] [data-action='approve']").click()
    expect(page.locator("[data-settled]")).to_have_text("Approved “tea”: it is now among your memories.")
    expect(page.locator("[data-settled]")).to_be_focused()
    page.locator("[data-waiting-id][data-key='desk'] [data-action='discard']").click()
    expect(page.locator("[data-settled]")).to_have_text("Discarded “desk”: it is gone.")
    expect(page.locator("[data-settled]")).to_be_focused()
    page.reload()
    expect(page.locator("[data-settled]")).to_have_count(0)  # said once
    expect(page.locator("[data-no-waiting]")).to_be_visible()

    keys = digest_keys(server, "run_approved")
    assert "tea" in keys
    assert "desk" not in keys
    page.goto(f"{server.base_url}/")
    expect(page.locator("[data-entry][data-key='tea']")).to_be_visible()
    expect(page.locator("[data-action='waiting']")).to_have_count(0)
    ada.close()


def test_the_new_pages_have_no_serious_accessibility_violations(browser: Browser, server: ServerProcess) -> None:
    axe = Path(axe_playwright_python.__file__).with_name("axe.min.js").read_text(encoding="utf-8")
    found: dict[str, list[str]] = {}
    for who, path in [("ada", "/looked"), ("ada", "/memories/waiting"), ("ada", "/"), ("lena", "/admin/organisation")]:
        context = browser.new_context(bypass_csp=True)
        page = log_in(context, server, who)
        page.goto(f"{server.base_url}{path}")
        page.add_script_tag(content=axe)
        violations = page.evaluate(
            "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
            ".filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => v.id + ': ' + v.help)"
        )
        if violations:
            found[f"{who} {path}"] = violations
        context.close()

    assert found == {}


def test_lena_is_asked_before_a_shorter_lifetime_expires_max_s_old_conclusions(
    browser: Browser, server: ServerProcess, artifacts: Path
) -> None:
    lena = browser.new_context(viewport=DESKTOP, bypass_csp=True)
    admin = log_in(lena, server, "lena")
    admin.goto(f"{server.base_url}/admin/organisation")
    admin.select_option("[data-lifetime-choice]", "30")
    admin.click("[data-action='set-lifetime']")

    question = admin.locator("[data-confirm-lifetime]")
    expect(question).to_be_visible()
    going = int(question.get_attribute("data-confirm-lifetime") or 0)
    assert going > 0, "the demo holds conclusions older than 30 days"
    expect(admin.locator("h1")).to_have_text(f"Expire {going:,} memories at once?")
    shoot(admin, artifacts, "organisation-lifetime-question-desktop")
    admin.add_script_tag(
        content=Path(axe_playwright_python.__file__).with_name("axe.min.js").read_text(encoding="utf-8")
    )
    assert (
        admin.evaluate(
            "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
            ".filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => v.id)"
        )
        == []
    )
    admin.click("[data-action='back']")
    expect(admin.locator("[data-lifetime]")).to_contain_text("kept until the person forgets them")

    admin.select_option("[data-lifetime-choice]", "30")
    admin.click("[data-action='set-lifetime']")
    admin.click("[data-action='confirm-lifetime']")

    notice = admin.locator("[data-notice='done']")
    expect(notice).to_contain_text(f"{going:,} memories about")
    expect(notice).to_be_focused()
    expect(admin.locator("[data-lifetime]")).to_contain_text("kept for 30 days")
    lena.close()
    max_page = log_in(browser.new_context(viewport=DESKTOP), server, "max")
    max_page.goto(f"{server.base_url}/?group=you&sort=oldest")
    expect(max_page.locator("[data-expiry='expired']").first).to_be_visible()
