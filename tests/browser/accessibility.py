"""axe's findings on a page, for the browser tests that check their pages with it."""

from __future__ import annotations

from pathlib import Path

import axe_playwright_python
from playwright.sync_api import Page

__all__ = ("serious_violations",)


def serious_violations(page: Page) -> list[str]:
    """axe's serious and critical findings on the page as it is now."""
    page.add_script_tag(
        content=Path(axe_playwright_python.__file__).with_name("axe.min.js").read_text(encoding="utf-8")
    )
    found: list[str] = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => v.id + ': ' + v.help)"
    )
    return found
