"""Login, the provider's callback, logout."""

from __future__ import annotations

import logging
from typing import Annotated
from urllib.parse import quote

from litestar import Request, get, post
from litestar.datastructures import Cookie, State
from litestar.di import NamedDependency
from litestar.params import QueryParameter
from litestar.response import Redirect, Template

from web.auth.demo_sign_in import DemoSignIn, SignInPage
from web.kit.identity.oidc import LoginError, LoginTransaction, OidcClient, TransactionSealer
from web.kit.identity.sessions import LOGIN_COOKIE, SESSION_COOKIE, end_session, load_viewer, start_session
from web.kit.security import safe_next_path
from web.services import Services

__all__ = ("callback", "login", "logout", "signed_out")

logger = logging.getLogger(__name__)


def _login_failed(error: LoginError, next_path: str, status: int, cookies: list[Cookie] | None = None) -> Template:
    logger.warning("login failed: %s (%s)", error.message, error.detail)
    retry = f"/login?next={quote(next_path, safe='/')}" if next_path != "/" else "/login"
    return Template(
        template_name="auth/login_error.html",
        context={"message": error.message, "retry_url": retry},
        status_code=status,
        cookies=cookies or [],
    )


async def _account(services: Services, request: Request[object, object, State]) -> dict[str, str] | None:
    """Who is signed in on this browser, for a page that must not pretend nobody is: their name, and
    the token their Sign out form sends."""
    viewer = await load_viewer(services, request.cookies.get(SESSION_COOKIE))
    return None if viewer is None else {"viewer_name": viewer.name, "csrf_token": viewer.csrf_token}


@get("/login", name="login", include_in_schema=False)
async def login(
    request: Request[object, object, State],
    services: NamedDependency[Services],
    oidc: NamedDependency[OidcClient],
    sealer: NamedDependency[TransactionSealer],
    demo_sign_in: NamedDependency[DemoSignIn | None],
    next_path: Annotated[str | None, QueryParameter(name="next")] = None,
    person: Annotated[str | None, QueryParameter(name="person")] = None,
) -> Template | Redirect:
    """Send the person to their organisation's sign-in page. In the demo, OnFile's own page lists the
    demo people; `person` is the one whose button was pressed, signed in through the local provider."""
    target = safe_next_path(next_path)
    if demo_sign_in is not None:
        if person is None:  # the demo's own page, saying who is signed in already, if anyone is
            return _sign_in_page(SignInPage(demo_sign_in.people, target), account=await _account(services, request))
        return await _demo_login(services, oidc, sealer, demo_sign_in, target, person)
    try:
        url, transaction = await oidc.begin(target)
    except LoginError as error:
        return _login_failed(error, target, 503)
    return Redirect(url, status_code=303, cookies=[_login_cookie(services, sealer, transaction)])


async def _demo_login(
    services: Services,
    oidc: OidcClient,
    sealer: TransactionSealer,
    demo_sign_in: DemoSignIn,
    target: str,
    person: str,
) -> Template | Redirect:
    """For a person on the demo's page, the code flow begun and the provider's form answered for them,
    so the browser goes on to the callback with the code the provider issued."""
    chosen = demo_sign_in.person(person)
    if chosen is None:
        error = f"No one with the id “{person}” is in this demo. Choose one of the people below."
        return _sign_in_page(SignInPage(demo_sign_in.people, target, error), status=400)
    try:
        url, transaction = await oidc.begin(target)
        callback_url = await demo_sign_in.answer(url, chosen.sub)
    except LoginError as error:
        return _login_failed(error, target, 503)
    if not callback_url.startswith(f"{services.settings.base_url}/auth/callback?"):
        unexpected = LoginError("The demo's sign-in service answered unexpectedly.", f"to {callback_url}")
        return _login_failed(unexpected, target, 503)
    return Redirect(callback_url, status_code=303, cookies=[_login_cookie(services, sealer, transaction)])


def _sign_in_page(page: SignInPage, status: int = 200, account: dict[str, str] | None = None) -> Template:
    context: dict[str, object] = {"page": page, **({"account": account} if account else {})}
    return Template(template_name="auth/sign_in.html", context=context, status_code=status)


def _login_cookie(services: Services, sealer: TransactionSealer, transaction: LoginTransaction) -> Cookie:
    return Cookie(
        key=LOGIN_COOKIE,
        value=sealer.seal(transaction),
        path="/auth",
        max_age=600,
        httponly=True,
        samesite="lax",
        secure=services.settings.secure_cookies,
    )


@get("/auth/callback", name="auth_callback", include_in_schema=False)
async def callback(
    request: Request[object, object, State],
    services: NamedDependency[Services],
    oidc: NamedDependency[OidcClient],
    sealer: NamedDependency[TransactionSealer],
) -> Template | Redirect:
    """The provider sends the person back here: check, exchange, validate, then start a fresh session."""
    cleared = Cookie(key=LOGIN_COOKIE, value="", path="/auth", max_age=0, expires=0)
    try:
        transaction = sealer.unseal(request.cookies.get(LOGIN_COOKIE))
    except LoginError as error:
        return _login_failed(error, "/", 400)
    try:
        person = await oidc.complete(transaction, dict(request.query_params))
    except LoginError as error:
        return _login_failed(error, transaction.next_path, 400, [cleared])
    session_id = await start_session(services, person, request.cookies.get(SESSION_COOKIE))
    return Redirect(
        transaction.next_path,
        status_code=303,
        cookies=[
            cleared,
            Cookie(
                key=SESSION_COOKIE,
                value=session_id,
                path="/",
                httponly=True,
                samesite="lax",
                secure=services.settings.secure_cookies,
            ),
        ],
    )


@post("/logout", name="logout", include_in_schema=False)
async def logout(
    request: Request[object, object, State],
    services: NamedDependency[Services],
    oidc: NamedDependency[OidcClient],
    demo_sign_in: NamedDependency[DemoSignIn | None],
) -> Template | Redirect:
    """End the session here, then at the provider when it offers that and comes back to OnFile's
    signed-out page. The demo's local provider keeps no session in the browser (its form was answered
    for the person), so there the person goes straight to OnFile's signed-out page."""
    session_id = request.cookies.get(SESSION_COOKIE)
    viewer = await load_viewer(services, session_id)
    await end_session(services, session_id)
    after = f"{services.settings.base_url}/signed-out"
    id_token = viewer.id_token if viewer else None
    at_provider = None if demo_sign_in is not None else await oidc.end_session_url(id_token, after)
    target = at_provider or "/signed-out"
    return Redirect(
        target, status_code=303, cookies=[Cookie(key=SESSION_COOKIE, value="", path="/", max_age=0, expires=0)]
    )


@get("/signed-out", name="signed_out", include_in_schema=False)
async def signed_out(request: Request[object, object, State], services: NamedDependency[Services]) -> Template:
    """Where signing out ends. Opened again while signed in (from the history, say), it says who still
    is, with Sign out, rather than that nobody is."""
    account = await _account(services, request)
    return Template(
        template_name="auth/signed_out.html",
        context={"account": account} if account else {},
        headers={"Cache-Control": "no-store"},
    )
