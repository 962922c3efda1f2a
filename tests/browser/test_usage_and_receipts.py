"""In a real browser: each memory says when the assistant last used it, or that it never did; a
forget links its receipt, which downloads as JSON; an erasure's page shows the administrator its
receipt."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import APIRequestContext, Browser, Page, expect

from tests.browser.demo_server import AGENT_TOKEN
from tests.browser.signing_in import press_sign_in_as
from tests.processes.servers import ServerProcess

pytestmark = pytest.mark.browser

AUTH = {"Authorization": f"Bearer {AGENT_TOKEN}"}
ADA = {"id": "ada", "tenantRef": "berlin"}


def log_in(page: Page, server: ServerProcess, who: str) -> None:
    page.goto(f"{server.base_url}/")
    press_sign_in_as(page, who)
    page.wait_for_url(f"{server.base_url}/")


def a_turn(request: APIRequestContext, server: ServerProcess, run: str) -> None:
    """A turn of Ada's assistant: its digest, then a note it remembers (so in no prompt yet)."""
    digest = request.post(
        f"{server.base_url}/agent/runs/{run}/digest",
        data={"actor": ADA, "threadId": "thr_browser", "text": ""},
        headers=AUTH,
    )
    assert digest.ok, digest.text()
    remembered = request.post(
        f"{server.base_url}/agent/runs/{run}/remember",
        data={"callId": "call_1", "key": "parking", "fact": "parks in the north lot"},
        headers=AUTH,
    )
    assert remembered.ok, remembered.text()


def test_each_memory_says_when_it_was_last_used_or_that_it_never_was(
    browser: Browser, server: ServerProcess, artifacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    a_turn(context.request, server, "run_browser_1")
    page = context.new_page()

    log_in(page, server, "ada")

    used = page.locator("[data-entry='mem_a2'] [data-usage]")
    expect(used).to_have_attribute("data-usage", "used")
    expect(used).to_contain_text("in 1 turn over the last 30 days")
    expect(used.locator("[data-used]")).to_be_visible()
    never = page.locator("[data-entry][data-key='parking'] [data-usage]")
    expect(never).to_have_attribute("data-usage", "never")
    expect(never).to_have_text("Never used in a conversation")
    page.locator("[data-entry][data-key='parking']").evaluate("entry => entry.scrollIntoView()")
    page.screenshot(path=str(artifacts / "usage-ada.png"))
    context.close()


def test_a_forget_links_its_receipt_which_downloads_as_json(
    browser: Browser, server: ServerProcess, artifacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    page = context.new_page()
    log_in(page, server, "ada")

    page.locator("[data-entry][data-key='tone'] [data-action='forget']").click()
    page.locator("[data-notice='forgotten'] [data-action='receipt']").click()

    expect(page.locator("[data-receipt-line='memories']")).to_have_text("Memories: 1 memory deleted.")
    expect(page.locator("[data-receipt-line='search-index']")).to_contain_text("1 search index entry deleted.")
    page.screenshot(path=str(artifacts / "receipt-ada.png"))
    with page.expect_download() as downloading:
        page.click("[data-action='download-receipt']")
    receipt = json.loads(Path(downloading.value.path()).read_text())
    assert (receipt["act"], receipt["person"]) == ("forget", "ada")
    assert {p["place"]: p["removed"] for p in receipt["places"]}["memories"] == 1
    assert "answer formally" not in json.dumps(receipt)
    context.close()


def test_an_erasure_shows_the_administrator_its_receipt(browser: Browser, server: ServerProcess) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    a_turn(context.request, server, "run_browser_2")
    page = context.new_page()
    log_in(page, server, "lena")

    page.goto(f"{server.base_url}/admin/people/erase?person=ada")
    page.click("[data-action='confirm-erase']")

    expect(page.locator("[data-erasure='done']")).to_be_visible()
    expect(page.locator("[data-receipt-line='journal']")).to_contain_text(
        "2 journal entries of conversations deleted."
    )  # a digest and a remember
    expect(page.locator("[data-action='download-receipt']")).to_have_attribute(
        "href", re.compile(r"^/admin/people/erasure-receipt\.json\?receipt=")
    )
    context.close()
