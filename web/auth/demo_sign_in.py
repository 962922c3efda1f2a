"""The demo's own sign-in page: the demo people, a button each, in front of the local identity provider.

Only `onfile demo` (and the tests that serve the demo) turn it on (`ONFILE_DEMO_SIGN_IN`), and only
with the local development provider on loopback. Pressing a person's button runs the same OpenID
Connect code flow as any sign-in — state, nonce, PKCE, the code exchanged at the provider's token
endpoint and the ID token checked against its keys — except that the provider's own "who are you"
form is answered for the person by `DemoSignIn.answer`, so the browser goes from OnFile's page
straight to the callback. OnFile never makes up a session: what it signs in is what the provider said.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from web.settings import Settings

__all__ = ("DemoPersonChoice", "DemoSignIn", "SignInPage", "require_demo_sign_in_matches")


@dataclass(frozen=True, slots=True)
class DemoPersonChoice:
    """One button: who signs in (`sub`, their id at the provider), their name and what they are."""

    sub: str
    name: str
    what: str


@dataclass(frozen=True, slots=True)
class DemoSignIn:
    people: tuple[DemoPersonChoice, ...]
    answer: Callable[[str, str], Awaitable[str]]
    """Answers the provider's sign-in form at the authorization URL for the person `sub`; returns
    where the provider sends the browser next (OnFile's callback with the code, or with an error)."""

    def person(self, sub: str) -> DemoPersonChoice | None:
        return next((p for p in self.people if p.sub == sub), None)


@dataclass(frozen=True, slots=True)
class SignInPage:
    """The view-model of `auth/sign_in.html`."""

    people: tuple[DemoPersonChoice, ...]
    next_path: str
    error: str = ""


def require_demo_sign_in_matches(settings: Settings, demo_sign_in: DemoSignIn | None) -> None:
    """The demo's sign-in page is given to the application exactly when the settings turn it on."""
    if settings.demo_sign_in != (demo_sign_in is not None):
        msg = "ONFILE_DEMO_SIGN_IN and the demo's sign-in page (web.demo.sign_in) go together"
        raise ValueError(msg)
