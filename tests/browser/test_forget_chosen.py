"""Forgetting several memories at once, with and without JavaScript, and correcting one in place."""

from __future__ import annotations

from pathlib import Path

import axe_playwright_python
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.test_admin import log_in
from tests.processes.servers import ServerProcess

pytestmark = pytest.mark.browser
AXE = Path(axe_playwright_python.__file__).with_name("axe.min.js")


def tick(page: Page, *rows: int) -> list[str]:
    """Tick the person's own memories at these places in the list; their ids."""
    listed = page.locator("#group-you [data-entry]")
    for row in rows:
        listed.nth(row).locator("[data-select]").check()
    return [listed.nth(row).get_attribute("data-entry") or "" for row in rows]


def shot(page: Page, artifacts: Path, name: str) -> None:
    page.screenshot(path=str(artifacts / f"{name}.png"))


def serious_violations(page: Page) -> list[str]:
    page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    found: list[str] = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => v.id + ': ' + v.help)"
    )
    return found


@pytest.mark.parametrize("width", [1280, 390])
def test_max_ticks_a_range_forgets_it_with_one_confirmation_and_one_undo_brings_it_back_as_it_was(
    browser: Browser, server_at_scale: ServerProcess, artifacts: Path, width: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 844 if width == 390 else 900}, bypass_csp=True)
    page = log_in(context, server_at_scale, "max")
    rows = page.locator("#group-you [data-entry]")
    before = [
        (rows.nth(i).get_attribute("data-entry"), rows.nth(i).locator("time").get_attribute("datetime"))
        for i in range(6)
    ]

    total = int(page.locator("#summary").get_attribute("data-total") or 0)
    rows.nth(1).locator("[data-select]").click()
    rows.nth(4).locator("[data-select]").click(modifiers=["Shift"])

    expect(page.locator("[data-chosen-count]")).to_have_text("4 ticked.")
    page.locator("[data-action='forget-chosen']").click()
    confirm = page.locator("[data-confirm-chosen]")
    expect(confirm.locator("h2")).to_have_text("Forget these 4 memories?")
    assert serious_violations(page) == []
    shot(page, artifacts, f"forget-chosen-confirm-{width}")

    page.locator("[data-action='confirm-forget-chosen']").click()

    expect(page.locator("[data-notice='forgotten'] .notice-message")).to_have_text("Forgotten: 4 memories.")
    expect(page.locator("[data-action='undo']")).to_be_focused()
    for id, _ in before[1:5]:
        expect(page.locator(f"#entry-{id}")).to_have_count(0)
    expect(page.locator("#summary")).to_have_attribute("data-total", str(total - 4))
    shot(page, artifacts, f"forget-chosen-done-{width}")

    page.locator("[data-action='undo']").click()

    expect(page.locator("[data-notice='restored'] .notice-message")).to_have_text("4 memories are back on file.")
    after = [
        (rows.nth(i).get_attribute("data-entry"), rows.nth(i).locator("time").get_attribute("datetime"))
        for i in range(6)
    ]
    assert after == before, "the same memories, with their original dates, in their places"
    expect(page.locator("#summary")).to_have_attribute("data-total", str(total))
    context.close()


def test_without_javascript_all_that_match_a_search_go_exactly_and_come_back(
    browser: Browser, server_at_scale: ServerProcess, artifacts: Path
) -> None:
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    page = log_in(context, server_at_scale, "max")
    total = int(page.locator("#summary").get_attribute("data-total") or 0)
    page.goto(f"{server_at_scale.base_url}/?q=pallet")

    page.locator("[data-action='choose-all-matching']").click()

    confirm = page.locator("[data-confirm-chosen]")
    expect(confirm).to_have_attribute("data-confirm-chosen", "1250")
    expect(confirm.locator("h2")).to_have_text("Forget these 1,250 memories?")
    expect(confirm.locator("[data-chosen-more]")).to_have_text("and 1,238 more")
    shot(page, artifacts, "forget-all-matching-page-390")

    page.locator("[data-action='confirm-forget-chosen']").click()

    expect(page.locator("[data-notice='forgotten'] .notice-message")).to_have_text("Forgotten: 1,250 memories.")
    page.goto(f"{server_at_scale.base_url}/")
    expect(page.locator("#summary")).to_have_attribute("data-total", str(total - 1250))
    page.goto(f"{server_at_scale.base_url}/?q=pallet")
    expect(page.locator("#group-you [data-entry]")).to_have_count(0)
    expect(page.locator("[data-entry][data-key='pallet-labels']")).to_have_count(1)  # the shared fact stays
    context.close()


def test_without_javascript_ticked_memories_go_after_a_confirmation_page(
    browser: Browser, server_at_scale: ServerProcess
) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = log_in(context, server_at_scale, "max")
    ids = tick(page, 0, 2, 3)

    page.locator("[data-action='forget-chosen']").click()
    expect(page.locator("[data-confirm-chosen] h2")).to_have_text("Forget these 3 memories?")
    page.locator("[data-action='confirm-forget-chosen']").click()

    expect(page.locator("[data-notice='forgotten'] .notice-message")).to_have_text("Forgotten: 3 memories.")
    for id in ids:
        expect(page.locator(f"#entry-{id}")).to_have_count(0)
    page.locator("[data-action='undo']").click()
    expect(page.locator("[data-notice='restored'] .notice-message")).to_have_text("3 memories are back on file.")
    for id in ids:
        expect(page.locator(f"#entry-{id}")).to_have_count(1)
    context.close()


@pytest.mark.parametrize("javascript", [True, False], ids=["javascript", "no-javascript"])
def test_ada_ticks_just_one_memory_and_forgets_it(browser: Browser, server: ServerProcess, javascript: bool) -> None:
    context = browser.new_context(java_script_enabled=javascript)
    page = log_in(context, server, "ada")
    row = page.locator("#group-you [data-entry]").first
    memory_id, key = row.get_attribute("data-entry"), row.get_attribute("data-key")

    row.locator("[data-select]").check()
    page.locator("[data-action='forget-chosen']").click()
    expect(page.locator("[data-confirm-chosen] h2")).to_have_text("Forget this memory?")
    page.locator("[data-action='confirm-forget-chosen']").click()

    expect(page.locator("[data-notice='forgotten'] .notice-message")).to_have_text(f"Forgotten: “{key}”.")
    expect(page.locator(f"#entry-{memory_id}")).to_have_count(0)
    page.locator("[data-action='undo']").click()
    expect(page.locator(f"#entry-{memory_id}")).to_have_count(1)
    context.close()


def test_all_that_match_is_asked_again_in_place_when_another_tab_changed_what_matches(
    browser: Browser, server: ServerProcess
) -> None:
    context = browser.new_context()
    first = log_in(context, server, "ada")
    mine = int(first.locator("#count-you").get_attribute("data-count") or 0)
    first.locator("[data-action='choose-all-matching']").click()
    expect(first.locator("[data-confirm-chosen]")).to_have_attribute("data-confirm-chosen", str(mine))

    second = context.new_page()
    second.goto(f"{server.base_url}/")
    second.locator("#group-you [data-entry]").first.locator("[data-action='forget']").click()
    expect(second.locator("[data-notice='forgotten']")).to_be_visible()
    first.locator("[data-action='confirm-forget-chosen']").click()

    asked = first.locator("[data-confirm-chosen]")
    expect(asked.locator("[data-changed]")).to_have_text(
        "What matches changed since you chose: this is what matches now."
    )
    expect(asked).to_have_attribute("data-confirm-chosen", str(mine - 1))
    expect(first.locator("#notice [data-problem]")).to_have_count(0)
    first.locator("[data-action='confirm-forget-chosen']").click()
    expect(first.locator("[data-notice='forgotten'] .notice-message")).to_have_text(f"Forgotten: {mine - 1} memories.")
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_ada_corrects_her_memory_in_place_and_it_reads_as_stated_by_her(
    browser: Browser, server: ServerProcess, artifacts: Path, width: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 844 if width == 390 else 900}, bypass_csp=True)
    page = log_in(context, server, "ada")
    units = page.locator("[data-entry='mem_a2']")
    expect(page.locator("[data-entry][data-key='manifest-required'] [data-action='edit']")).to_have_count(0)

    units.locator("[data-action='edit']").click()
    text = page.locator("[data-editing] textarea")
    expect(text).to_be_focused()
    text.fill("")
    page.locator("[data-action='save-edit']").click()
    expect(page.locator("[data-edit-error]")).to_be_visible()
    assert serious_violations(page) == []
    shot(page, artifacts, f"correct-in-place-error-{width}")
    page.locator("[data-editing] textarea").fill("road distances in kilometres, even for the UK depots")
    page.locator("[data-action='save-edit']").click()

    expect(units.locator("[data-fact]")).to_have_text("road distances in kilometres, even for the UK depots")
    expect(units).to_have_attribute("data-author", "you")
    expect(page.locator("[data-notice='done']")).to_contain_text("It now reads as stated by you.")
    shot(page, artifacts, f"correct-in-place-done-{width}")
    units.locator("[data-action='edit']").click()  # corrected again, and refused this time
    page.locator("[data-editing] textarea").fill("")
    page.locator("[data-action='save-edit']").click()
    expect(page.locator("[data-edit-error]")).to_be_visible()
    expect(page.locator("[data-notice='done']")).to_have_count(0)  # the last one's "Corrected" is not this answer
    page.locator("[data-action='cancel-edit']").click()
    page.goto(f"{server.base_url}/memories/{units.get_attribute('data-entry')}/edit")  # the page without JavaScript
    assert serious_violations(page) == []
    shot(page, artifacts, f"correct-page-{width}")
    context.close()


def test_two_corrections_open_at_once_saved_with_enter_each_get_their_own_answer(
    browser: Browser, server: ServerProcess
) -> None:
    context = browser.new_context()
    page = log_in(context, server, "ada")
    units, depot = page.locator("[data-entry='mem_a2']"), page.locator("[data-entry='mem_a4']")
    units.locator("[data-action='edit']").click()
    depot.locator("[data-action='edit']").click()

    units.locator("textarea").fill("kilometres, even for the UK depots")
    units.locator("textarea").press("Enter")
    expect(page.locator("[data-notice='done']")).to_contain_text("Corrected")
    depot.locator("textarea").fill("")
    depot.locator("textarea").press("Enter")

    expect(depot.locator("[data-edit-error]")).to_be_visible()
    expect(page.locator("[data-notice='done']")).to_have_count(0)  # the other one's "Corrected" is not this answer
    context.close()


def test_without_javascript_a_correction_is_a_page_of_its_own(browser: Browser, server: ServerProcess) -> None:
    context = browser.new_context(java_script_enabled=False, bypass_csp=True)
    page = log_in(context, server, "ada")

    page.locator("[data-entry='mem_a2'] [data-action='edit']").click()
    expect(page.locator("h1")).to_have_text("Correct one of your memories")
    page.locator("textarea").fill("kilometres everywhere")
    page.locator("[data-action='save-edit']").click()

    expect(page.locator("[data-entry='mem_a2'] [data-fact]")).to_have_text("kilometres everywhere")
    expect(page.locator("[data-entry='mem_a2']")).to_have_attribute("data-author", "you")
    context.close()


def test_ticks_stay_through_a_correction_in_place_and_an_undo(browser: Browser, server: ServerProcess) -> None:
    context = browser.new_context()
    page = log_in(context, server, "ada")
    first, second = tick(page, 0, 1)
    expect(page.locator("[data-chosen-count]")).to_have_text("2 ticked.")

    page.locator(f"#entry-{first} [data-action='edit']").click()
    page.locator(f"#entry-{first} [data-action='cancel-edit']").click()
    expect(page.locator(f"#entry-{first} [data-select]")).to_be_checked()

    page.locator(f"#entry-{second} [data-action='edit']").click()
    page.locator(f"#entry-{second} [data-edit-text]").fill("corrected while ticked")
    page.locator(f"#entry-{second} [data-action='save-edit']").click()
    expect(page.locator(f"#entry-{second} [data-fact]")).to_have_text("corrected while ticked")
    expect(page.locator(f"#entry-{second} [data-select]")).to_be_checked()
    expect(page.locator("[data-chosen-count]")).to_have_text("2 ticked.")

    page.locator(f"#entry-{first} [data-action='forget']").click()
    expect(page.locator(f"#entry-{first}")).to_have_count(0)
    page.locator("[data-action='undo']").click()
    expect(page.locator(f"#entry-{first}")).to_have_count(1)
    expect(page.locator(f"#entry-{first} [data-select]")).not_to_be_checked()  # forgotten, not opened: untouched
    expect(page.locator(f"#entry-{second} [data-select]")).to_be_checked()  # the list redrawn by Undo keeps it
    expect(page.locator("[data-chosen-count]")).to_have_text("1 ticked.")
    context.close()


def test_without_javascript_keep_them_leads_back_with_the_memories_still_ticked(
    browser: Browser, server: ServerProcess
) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = log_in(context, server, "ada")
    rows = page.locator("#group-you [data-entry]")
    ticked = tick(page, 0, 2)
    page.locator("[data-action='forget-chosen']").click()
    expect(page.locator("[data-confirm-chosen] h2")).to_have_text("Forget these 2 memories?")

    page.locator("[data-confirm-chosen] [data-action='cancel']").click()

    expect(page.locator("h1")).to_have_text("What's on file about you")
    for i in range(rows.count()):
        box = rows.nth(i).locator("[data-select]")
        if rows.nth(i).get_attribute("data-entry") in ticked:
            expect(box).to_be_checked()
        else:
            expect(box).not_to_be_checked()
    page.locator("[data-action='forget-chosen']").click()
    expect(page.locator("[data-confirm-chosen] h2")).to_have_text("Forget these 2 memories?")
    context.close()


def test_changing_a_tick_while_asked_closes_the_question_so_what_goes_is_what_is_ticked(
    browser: Browser, server: ServerProcess
) -> None:
    context = browser.new_context()
    page = log_in(context, server, "ada")
    rows = page.locator("#group-you [data-entry]")
    first, second = tick(page, 0, 1)
    page.locator("[data-action='forget-chosen']").click()
    expect(page.locator("[data-confirm-chosen] h2")).to_have_text("Forget these 2 memories?")

    rows.nth(1).locator("[data-select]").uncheck()

    expect(page.locator("[data-confirm-chosen]")).to_have_count(0)
    page.locator("[data-action='forget-chosen']").click()
    expect(page.locator("[data-confirm-chosen] h2")).to_have_text("Forget this memory?")
    page.locator("[data-action='confirm-forget-chosen']").click()
    expect(page.locator(f"#entry-{first}")).to_have_count(0)
    expect(page.locator(f"#entry-{second}")).to_have_count(1)
    context.close()
