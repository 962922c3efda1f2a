"""Screenshots of each dashboard page, on a desktop and a phone, in the light and the dark theme.

`make screenshots` (`python -m tests.browser.screenshots`) starts what the browser tests start — the
identity provider with the demo people, `onfile serve` over a fresh copy of the demo's data, and the
`chromium` on the PATH — signs in as each demo person through the provider, and writes one PNG per
page, size and theme into docs/images/screens/ (`<page>-<desktop|phone>-<light|dark>.png`). Each is
what the window shows on arrival, not the whole scrolled page, so the files stay small.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from playwright.sync_api import Browser, Page, ViewportSize, sync_playwright

from tests.browser.conftest import CHROMIUM_ARGS
from tests.browser.demo_server import demo_provider, demo_server
from tests.browser.signing_in import press_sign_in_as

__all__ = ("DESKTOP", "OUT", "PAGES", "PHONE", "SIZES", "THEMES", "Shot", "main", "sign_in")

OUT = Path(__file__).resolve().parents[2] / "docs" / "images" / "screens"
DESKTOP = ViewportSize(width=1280, height=800)
PHONE = ViewportSize(width=390, height=844)
SIZES = {"desktop": DESKTOP, "phone": PHONE}
THEMES: tuple[Literal["light", "dark"], ...] = ("light", "dark")


@dataclass(frozen=True, slots=True)
class Shot:
    """One page as `person` sees it at `path`; `then`, if given, acts on it before the picture."""

    name: str
    title: str
    person: str | None
    path: str
    then: Callable[[Page], None] | None = None


def _search_pallet(page: Page) -> None:
    page.fill("[data-filter='text']", "pallet")
    page.press("[data-filter='text']", "Enter")  # a phone with JavaScript has no Filter button: changes apply
    page.wait_for_selector("[data-entry]")


def _correct_first(page: Page) -> None:
    page.locator("[data-action='edit']").first.click()
    page.wait_for_selector("textarea")


def _choose_two(page: Page) -> None:
    page.locator("[data-select]").nth(0).check()
    page.locator("[data-select]").nth(1).check()
    page.click("[data-action='forget-chosen']")
    page.wait_for_selector("[data-chooser-confirm] form")
    page.mouse.move(0, 0)
    page.locator("[data-chooser-confirm]").evaluate("confirm => confirm.scrollIntoView({block: 'center'})")


def _preview_ada(page: Page) -> None:
    page.fill("[data-field='actor_id']", "ada")
    page.fill("[data-field='text']", "which depot gets the pallets on Thursday?")
    page.click("[data-action='preview']")
    page.wait_for_selector("pre.block")
    page.locator(".preview-result").evaluate("result => result.scrollIntoView({block: 'start'})")


PAGES = (
    Shot("personal", "What's on file (Ada)", "ada", "/"),
    Shot("personal-search", "A search (Ada)", "ada", "/", _search_pallet),
    Shot("personal-at-scale", "What's on file (Max, thousands of memories)", "max", "/"),
    Shot("personal-administrator", "An administrator's own page (Lena)", "lena", "/"),
    Shot("correct", "Correcting a memory in place (Ada)", "ada", "/", _correct_first),
    Shot("forget-chosen", "Forgetting the ticked ones, asked first (Ada)", "ada", "/", _choose_two),
    Shot("forget-all", "Forget all of yours (Ada)", "ada", "/memories/forget-all"),
    Shot("who-looked", "Who looked at your memories (Ada)", "ada", "/looked"),
    Shot("waiting", "Notes waiting for your approval (Ada)", "ada", "/memories/waiting"),
    Shot("import", "Bringing memories in (Ada)", "ada", "/memories/import"),
    Shot("admin-shared-facts", "Shared facts (Lena, administrator)", "lena", "/admin"),
    Shot("admin-audit", "The audit trail (Lena)", "lena", "/admin/audit"),
    Shot("admin-organisation", "The organisation's settings (Lena)", "lena", "/admin/organisation"),
    Shot("admin-people", "People (Lena)", "lena", "/admin/people"),
    Shot("admin-erase", "Erasing a person (Lena)", "lena", "/admin/people/erase?person=max"),
    Shot("support-preview", "Prompt preview (Sam, support)", "sam", "/support/preview"),
    Shot("support-preview-result", "A previewed prompt (Sam)", "sam", "/support/preview", _preview_ada),
    Shot("forbidden", "Refused: 403 (Ada at /admin)", "ada", "/admin"),
    Shot("not-found", "Not found: 404", "ada", "/no-such-page"),
    Shot("signed-out", "Signed out", None, "/signed-out"),
)


def sign_in(page: Page, base_url: str, who: str) -> None:
    """Sign in as `who` from the demo's sign-in page, through the identity provider, as a person would."""
    page.goto(f"{base_url}/")
    press_sign_in_as(page, who)
    page.wait_for_url(f"{base_url}/")


def take(browser: Browser, base_url: str, out: Path, shots: tuple[Shot, ...]) -> list[Path]:
    """Every shot at every size in every theme; one signed-in context per person, size and theme."""
    written: list[Path] = []
    for size, viewport in SIZES.items():
        for theme in THEMES:
            contexts = {}
            for shot in shots:
                if shot.person not in contexts:
                    context = browser.new_context(viewport=viewport, color_scheme=theme, reduced_motion="reduce")
                    page = context.new_page()
                    if shot.person is not None:
                        sign_in(page, base_url, shot.person)
                    contexts[shot.person] = page
                page = contexts[shot.person]
                page.goto(f"{base_url}{shot.path}")
                if shot.then is not None:
                    shot.then(page)
                page.evaluate("document.activeElement && document.activeElement.blur()")
                page.mouse.move(0, 0)
                path = out / f"{shot.name}-{size}-{theme}.png"
                page.screenshot(path=str(path), animations="disabled", caret="hide")
                written.append(path)
            for page in contexts.values():
                page.context.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=OUT, help="the folder to write into (default: %(default)s)")
    parser.add_argument("--only", action="append", default=[], help="a page's name; may be repeated")
    arguments = parser.parse_args(argv)
    chromium = shutil.which("chromium")
    if chromium is None:
        print("chromium is not on the PATH (make test installs Debian's package)", file=sys.stderr)  # noqa: T201
        return 1
    shots = tuple(shot for shot in PAGES if not arguments.only or shot.name in arguments.only)
    arguments.out.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory() as folder,
        demo_provider() as provider,
        demo_server(Path(folder), provider) as server,
        sync_playwright() as driver,
    ):
        browser = driver.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            written = take(browser, server.base_url, arguments.out, shots)
        finally:
            browser.close()
    for path in written:
        print(path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path)  # noqa: T201
    return 0


if __name__ == "__main__":
    sys.exit(main())
