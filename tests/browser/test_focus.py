"""The keyboard's place after an in-place update: the first new entry, the restored entry, the fact
acted on, or the error — never the top of the document."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.test_admin import log_in
from tests.browser.test_forget_chosen import serious_violations
from tests.processes.servers import ServerProcess

pytestmark = pytest.mark.browser


def test_the_focus_follows_a_page_number_and_undo(browser: Browser, server: ServerProcess, artifacts: Path) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = log_in(context, server, "max")
    page.goto(f"{server.base_url}/?sort=key")  # by key, an entry written back returns to its place
    group = page.locator("#entries-you")

    page.focus("#page-you-next")
    page.keyboard.press("Enter")
    expect(page.locator("#group-you [aria-current='page']")).to_have_text("Page 2")
    first_new = group.locator("[data-entry]").first
    expect(first_new).to_be_focused()
    page.screenshot(path=str(artifacts / "focus-page-number-1280.png"))

    # Undo puts the entry back in its place on this page, and the focus on it.
    key = first_new.get_attribute("data-key")
    first_new.locator("[data-action='forget']").focus()
    page.keyboard.press("Enter")
    expect(page.locator("[data-action='undo']")).to_be_focused()
    expect(page.locator(f"[data-entry][data-key='{key}']")).to_have_count(0)
    page.keyboard.press("Enter")
    expect(page.locator("[data-notice='restored']")).to_be_visible()
    expect(page.locator(f"[data-entry][data-key='{key}']")).to_be_focused()
    context.close()


def test_the_focus_follows_a_save_and_a_refused_publish(
    browser: Browser, server: ServerProcess, artifacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = log_in(context, server, "lena")
    page.goto(f"{server.base_url}/admin")

    page.locator("[data-fact-id][data-key='tone'] [data-action='edit']").click()
    page.fill("[data-editing] [data-field='text']", "answer formally, in full sentences")
    page.click("[data-editing] [data-action='save']")
    expect(page.locator("[data-notice='done']")).to_contain_text("Saved")
    expect(page.locator("[data-fact-id][data-key='tone']")).to_be_focused()

    page.fill("[data-field='key']", "   ")
    page.fill("[data-field='text']", "something")
    page.click("[data-action='publish']")
    expect(page.locator("#create-error")).to_be_focused()
    page.screenshot(path=str(artifacts / "focus-publish-error-390.png"))
    context.close()


def test_closing_what_a_control_opened_gives_the_keyboard_back_to_that_control(
    browser: Browser, server: ServerProcess
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = log_in(context, server, "ada")
    row = page.locator("#group-you [data-entry]").first
    row_id = row.get_attribute("id")

    row.locator("[data-action='edit']").click()
    page.locator(f"#{row_id} [data-action='cancel-edit']").click()
    expect(page.locator(f"#{row_id} [data-action='edit']")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(f"#{row_id} [data-edit-text]")).to_be_focused()
    page.keyboard.press("Escape")  # closes it as Cancel does
    expect(page.locator(f"#{row_id} [data-action='edit']")).to_be_focused()

    page.locator("[data-action='pause-memory']").click()
    expect(page.locator("[data-action='resume-memory']")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("[data-action='pause-memory']")).to_be_focused()
    context.close()

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = log_in(context, server, "lena")
    page.goto(f"{server.base_url}/admin")
    fact = page.locator("#" + (page.locator("[data-fact-id][data-key='tone']").get_attribute("id") or ""))
    fact.locator("[data-action='edit']").click()
    fact.locator("[data-action='cancel']").click()
    expect(fact.locator("[data-action='edit']")).to_be_focused()
    fact.locator("[data-action='delete']").click()
    expect(fact.locator("[data-action='cancel']")).to_be_focused()
    page.keyboard.press("Enter")
    expect(fact.locator("[data-action='delete']")).to_be_focused()

    page.fill("[data-field='key']", "tone")
    page.fill("[data-field='text']", "answer in one line")
    page.click("[data-action='publish']")
    expect(page.locator("#replace-heading")).to_be_focused()
    page.click("[data-action='keep']")
    expect(page.locator("[data-action='publish']")).to_be_focused()
    expect(page.locator("[data-field='text']")).to_have_value("answer in one line")

    page.keyboard.press("Enter")  # the same question again, closed by Escape as "Keep the current fact" does
    expect(page.locator("#replace-heading")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("[data-confirm-replace]")).to_have_count(0)
    expect(page.locator("[data-action='publish']")).to_be_focused()
    expect(page.locator("[data-field='text']")).to_have_value("answer in one line")
    context.close()


def test_enter_in_a_facts_box_saves_it_rather_than_starting_a_second_line(
    browser: Browser, server: ServerProcess
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = log_in(context, server, "ada")
    row_id = page.locator("#group-you [data-entry]").first.get_attribute("id")
    page.locator(f"#{row_id} [data-action='edit']").click()

    page.fill(f"#{row_id} [data-edit-text]", "corrected in one line")
    page.keyboard.press("Enter")

    expect(page.locator(f"#{row_id}")).to_contain_text("corrected in one line")
    expect(page.locator(f"#{row_id} [data-edit-text]")).to_have_count(0)
    expect(page.locator("[data-edit-error]")).to_have_count(0)
    context.close()


def test_the_first_tab_offers_a_way_past_the_header_to_the_page(browser: Browser, server: ServerProcess) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = log_in(context, server, "lena")
    page.goto(f"{server.base_url}/admin")

    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")

    assert page.evaluate("() => document.querySelector('main').contains(document.activeElement)")
    context.close()


def test_keep_them_closes_the_question_in_place_with_the_ticks_as_they_were(
    browser: Browser, server: ServerProcess
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = log_in(context, server, "ada")
    boxes = page.locator("#group-you [data-select]")
    boxes.nth(0).check()
    boxes.nth(1).check()
    page.locator("[data-action='forget-chosen']").click()
    expect(page.locator("[data-confirm-chosen] h2")).to_have_text("Forget these 2 memories?")

    page.locator("[data-confirm-chosen] [data-action='cancel']").click()

    expect(page.locator("[data-confirm-chosen]")).to_have_count(0)
    expect(page.locator("[data-action='forget-chosen']")).to_be_focused()
    expect(page.locator("#group-you [data-select]:checked")).to_have_count(2)
    expect(page.locator("[data-chosen-count]")).to_have_text("2 ticked.")

    page.get_by_label("Tick all on this page").check()
    expect(page.locator("#group-you [data-select]:checked")).to_have_count(boxes.count())
    context.close()

    context = browser.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=False)
    page = log_in(context, server, "ada")
    expect(page.get_by_label("Tick all on this page")).to_be_hidden()
    context.close()


@pytest.mark.parametrize(("width", "height", "person"), [(390, 844, "max"), (320, 640, "max"), (320, 640, "ada")])
def test_on_a_phone_the_undo_toast_never_covers_the_control_the_keyboard_is_on(
    browser: Browser, server_at_scale: ServerProcess, artifacts: Path, width: int, height: int, person: str
) -> None:
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme="dark", bypass_csp=True)
    page = log_in(context, server_at_scale, person)
    page.locator("#group-you [data-entry] [data-action='forget']").first.click()
    expect(page.locator("[data-action='undo']")).to_be_focused()
    page.screenshot(path=str(artifacts / f"focus-undo-toast-{width}-{person}-dark.png"))
    assert serious_violations(page) == []  # the Undo button reads in the dark theme too

    covered = []
    for key in ["Tab"] * 40 + ["Shift+Tab"] * 60:  # on down the page, then back up past the filters
        page.keyboard.press(key)
        covered += page.evaluate(
            """() => {
                const focused = document.activeElement, toast = document.querySelector('#notice .notice');
                if (!focused || focused === document.body || !toast || toast.contains(focused)) return [];
                const a = focused.getBoundingClientRect(), b = toast.getBoundingClientRect();
                const under = a.bottom > b.top && a.top < b.bottom && a.right > b.left && a.left < b.right;
                return under ? [focused.outerHTML.slice(0, 120)] : [];
            }"""
        )
    assert covered == []
    context.close()
