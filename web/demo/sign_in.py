"""The demo's sign-in page, in front of the local development identity provider (oidc-provider-mock).

The provider's authorization endpoint shows a form asking for a user id and, posted one, issues an
authorization code and sends the browser to the client's redirect URI. `answer_provider_form` posts
that form for the demo person whose button was pressed, and hands back where the provider redirects:
OnFile's callback with the code, which the browser then follows as after any sign-in.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx

from web.auth.demo_sign_in import DemoPersonChoice, DemoSignIn
from web.demo.content import DEMO_PEOPLE
from web.kit.identity.oidc import LoginError
from web.settings import Settings

__all__ = ("answer_provider_form", "demo_sign_in_for")

_FORM_TIMEOUT_S = 5.0
_UNANSWERED = "The demo's sign-in service did not answer. Is `onfile demo` still running?"


def demo_sign_in_for(settings: Settings) -> DemoSignIn | None:
    """The demo's sign-in page when the settings ask for it (`ONFILE_DEMO_SIGN_IN`), else None."""
    if not settings.demo_sign_in:
        return None
    people = tuple(DemoPersonChoice(p.sub, p.name, p.who) for p in DEMO_PEOPLE)
    return DemoSignIn(people=people, answer=answer_provider_form)


async def answer_provider_form(authorization_url: str, sub: str) -> str:
    """Post the local provider's sign-in form at `authorization_url` as `sub`; the URL it redirects
    to. The provider must be on loopback: the demo never posts a person's id anywhere else."""
    if urlsplit(authorization_url).hostname not in {"127.0.0.1", "localhost", "::1"}:
        raise LoginError(_UNANSWERED, f"the authorization endpoint {authorization_url} is not on loopback")
    try:
        async with httpx.AsyncClient(timeout=_FORM_TIMEOUT_S) as client:
            response = await client.post(authorization_url, data={"sub": sub})
    except httpx.HTTPError as error:
        raise LoginError(_UNANSWERED, repr(error)) from None
    location = response.headers.get("location")
    if response.status_code not in {302, 303} or not isinstance(location, str) or not location:
        raise LoginError(_UNANSWERED, f"the provider's form answered {response.status_code}")
    return location
