"""Importing, as Ada does it without JavaScript: she uploads a file, sees what each line would do — the
line that can't be imported, and why — corrects it, sees her value beside the file's, and imports."""

from __future__ import annotations

import json
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests.browser.accessibility import serious_violations
from tests.browser.signing_in import press_sign_in_as
from tests.processes.servers import ServerProcess


def log_in(page: Page, server: ServerProcess, who: str) -> None:
    page.goto(f"{server.base_url}/")
    press_sign_in_as(page, who)  # the demo's sign-in page, in front of the local provider
    page.wait_for_url(f"{server.base_url}/")


def test_ada_previews_an_import_sees_what_cannot_be_imported_and_imports_the_corrected_file(
    browser: Browser, server: ServerProcess, tmp_path: Path, artifacts: Path
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps([{"key": "team", "text": "dispatch"}, {"key": "essay", "text": "x" * 300}]))
    corrected = tmp_path / "corrected.json"
    corrected.write_text(
        json.dumps([{"key": "team", "text": "dispatch"}, {"key": "tone", "text": "answer in one sentence"}])
    )
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    log_in(page, server, "ada")
    page.click("[data-action='import']")

    page.set_input_files("[data-import-file]", str(broken))
    page.click("[data-action='preview-import']")

    expect(page.locator("[data-import-action='error'] [data-import-reason]")).to_have_text(
        "The fact is 300 characters long; the limit is 240. State it in one shorter sentence."
    )
    expect(page.locator("[data-import-summary]")).to_contain_text("Nothing was imported")
    expect(page.locator("[data-action='apply-import']")).to_have_count(0)

    page.set_input_files("[data-import-file]", str(corrected))
    page.click("[data-action='preview-import']")

    tone = page.locator("[data-import-action='replace']")
    expect(tone.locator("[data-import-old]")).to_have_text("prefers short answers with the number first")
    expect(tone.locator("[data-import-new]")).to_have_text("answer in one sentence")
    expect(page.locator("[data-import-action='add'] [data-import-key]")).to_have_text("team")
    page.screenshot(path=str(artifacts / "import-preview.png"), full_page=True)

    page.click("[data-action='apply-import']")

    page.wait_for_url(f"{server.base_url}/")
    expect(page.locator("[data-notice]")).to_contain_text("Imported 2 memories, as written by you.")
    expect(page.locator("[data-entry][data-key='tone'] [data-fact]").first).to_have_text("answer in one sentence")
    expect(page.locator("[data-entry][data-key='team'] [data-written-by]")).to_contain_text("You")
    context.close()


def test_on_a_phone_each_line_of_the_preview_reads_as_a_card_with_its_labels(
    browser: Browser, server: ServerProcess, tmp_path: Path, artifacts: Path
) -> None:
    lines = [{"key": "a-rather-long-key-about-depot-routing", "text": "via the ring road"}, {"key": "", "text": "x"}]
    mixed = tmp_path / "mixed.json"
    mixed.write_text(json.dumps(lines))
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme="dark")
    page = context.new_page()
    log_in(page, server, "ada")
    page.goto(f"{server.base_url}/memories/import")

    page.set_input_files("[data-import-file]", str(mixed))
    page.click("[data-action='preview-import']")

    key = page.locator("[data-import-action='add'] [data-import-key]")
    expect(key).to_have_text("a-rather-long-key-about-depot-routing")
    box = key.bounding_box()
    assert box is not None
    assert box["width"] > 300, "a cell spans the card, not a squeezed column"
    label = key.evaluate("cell => getComputedStyle(cell, '::before').content")
    assert label == '"Key"'
    reason = page.locator("[data-import-action='error'] [data-import-what]")
    expect(reason).to_contain_text("Can't be imported: The key is empty.")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, "nothing scrolls sideways"
    page.screenshot(path=str(artifacts / "import-preview-phone-dark.png"), full_page=True)
    context.close()


def test_the_import_pages_have_no_serious_accessibility_violations(
    browser: Browser, server: ServerProcess, tmp_path: Path
) -> None:
    mixed = tmp_path / "mixed.json"
    mixed.write_text(json.dumps([{"key": "tone", "text": "answer in one sentence"}, {"key": "", "text": "x"}]))
    # axe is injected as a script, which the dashboard's Content-Security-Policy rightly forbids
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    log_in(page, server, "ada")
    page.goto(f"{server.base_url}/memories/import")
    assert serious_violations(page) == []

    page.set_input_files("[data-import-file]", str(mixed))
    page.click("[data-action='preview-import']")

    expect(page.locator("[data-import-action='error']")).to_have_count(1)
    assert serious_violations(page) == []
    context.close()
