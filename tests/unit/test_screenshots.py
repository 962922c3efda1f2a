"""Every page `make screenshots` takes has its four pictures in docs/images/screens/, each shown in
docs/dashboard.md, and no picture there is left from a page no longer taken."""

from __future__ import annotations

import re

from tests.browser.screenshots import OUT, PAGES, SIZES, THEMES
from web.app import PROJECT_ROOT

EXPECTED = {f"{shot.name}-{size}-{theme}.png" for shot in PAGES for size in SIZES for theme in THEMES}


def test_every_page_taken_has_its_four_pictures_and_no_other_is_left() -> None:
    assert {path.name for path in OUT.glob("*.png")} == EXPECTED


def test_the_dashboard_page_shows_every_picture() -> None:
    text = (PROJECT_ROOT / "docs" / "dashboard.md").read_text(encoding="utf-8")
    shown = set(re.findall(r"\(images/screens/([\w-]+\.png)\)", text))
    assert shown == EXPECTED
