"""Signing in as a demo person the way a newcomer does: OnFile's own sign-in page, one button each."""

from __future__ import annotations

from playwright.sync_api import Page

__all__ = ("press_sign_in_as",)


def press_sign_in_as(page: Page, who: str) -> None:
    """On the demo's sign-in page, press the button of the person whose id is `who`."""
    page.click(f"[data-sign-in] button[data-action='sign-in-as'][value='{who}']")
