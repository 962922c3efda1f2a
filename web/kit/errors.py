"""How a request that could not be answered as asked is answered, for each kind of caller.

- A request that needs a login: a page goes to the login; an htmx request (a session that ended while
  the page was open) is told in a notice that nothing was changed, with a sign-in link that comes back
  to the page (not sent to the identity provider, which dropped what was asked); an API call gets 401.
- A database outage: 503 saying so, as JSON for the APIs, as a page for people and a notice for htmx.
- A form without its CSRF token, an unknown address (404), a method the address does not take (405):
  for people a page in OnFile's own layout with a way on, for htmx the same words as a notice
  (`kit/errors/_notice.html`, which the page's htmx configuration puts in `#notice`), and for the JSON
  routes JSON as before.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from litestar import Litestar, MediaType, Request, Response
from litestar.datastructures import State
from litestar.exceptions import HTTPException
from litestar.plugins.htmx import ClientRedirect
from litestar.response import Template
from litestar.response.base import ASGIResponse
from litestar.types import Logger, Receive, Scope, Send

from store.domain.scopes import ScopeResolverError
from store.persistence.outage import database_unavailable
from web.kit.api_errors import http_problem
from web.kit.identity.sessions import SESSION_COOKIE, load_viewer
from web.kit.security import safe_next_path, split_id_problem

__all__ = (
    "CSRF_REFUSED",
    "CSRF_REFUSED_JSON",
    "DATABASE_UNAVAILABLE",
    "ErrorView",
    "LoginRequiredError",
    "csrf_refusal",
    "current_page",
    "database_error_handler",
    "error_answer",
    "internal_error_handler",
    "log_failure",
    "login_required_handler",
    "method_not_allowed_handler",
    "not_found_handler",
)

logger = logging.getLogger(__name__)

DATABASE_UNAVAILABLE = (
    "OnFile cannot reach its database right now, so nothing was read or changed. "
    "This is usually brief: try again in a few seconds."
)
CSRF_REFUSED = "This form was out of date or did not come from OnFile, so nothing was changed."
CSRF_REFUSED_JSON = (
    "This request did not come from OnFile with this session's X-CSRF-Token header, so nothing was changed."
)
SESSION_ENDED = "Nothing was changed. Sign in again, and you come back to this page to carry on."
RETRY_AFTER_SECONDS = 5
# Routes that answer JSON: an outage there is JSON too, so a client can read it.
LOG_IN_FIRST = "Log in to the dashboard first."
_JSON_PREFIXES = ("/agent/", "/admin/memories", "/admin/audit.json", "/schema", "/metrics", "/healthz", "/readyz")
_NO_STORE = {"Cache-Control": "no-store"}


class LoginRequiredError(Exception):
    """Raised by the viewer dependency when there is no live session."""


@dataclass(frozen=True, slots=True)
class ErrorView:
    """Why a request was not done, in words, and the one link that leads on from it."""

    status: int
    heading: str
    message: str
    next_href: str
    next_label: str
    next_action: str
    """The link's `data-action`, for tests."""


@dataclass(frozen=True, slots=True)
class SignedIn:
    """Who an error page says is signed in, with the token their sign-out form sends."""

    viewer_name: str
    csrf_token: str


class _ErrorPage(Template):
    """An error page that, for a live session, says who is signed in and offers to sign out, as every
    other page does. An exception handler cannot wait on the database, so the session is read as the
    page is sent (`_SignedInFirst`); a session that cannot be read leaves the page without them, never
    without the page."""

    def to_asgi_response(self, app: Litestar | None, request: Request[Any, Any, Any], **kwargs: Any) -> ASGIResponse:
        return _SignedInFirst(self, app, request, kwargs)


class _SignedInFirst(ASGIResponse):
    """`page`, sent once who is signed in has been read into its context."""

    def __init__(self, page: _ErrorPage, app: Litestar | None, request: Request[Any, Any, Any], kwargs: Any) -> None:
        # Nothing of Litestar's own response is set up here: `__call__` sends the page's.
        self._page, self._app, self._request, self._kwargs = page, app, request, kwargs

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        signed_in = await _signed_in(self._request)
        if signed_in is not None:
            self._page.context = {**self._page.context, "account": signed_in}
        sent = Template.to_asgi_response(self._page, self._app, self._request, **self._kwargs)
        await sent(scope, receive, send)


async def _signed_in(request: Request[Any, Any, Any]) -> SignedIn | None:
    session_id = request.cookies.get(SESSION_COOKIE)
    if not session_id:
        return None
    try:
        viewer = await load_viewer(request.app.state.services, session_id)
    except Exception as error:  # the error page is shown whatever reading the session did
        if not database_unavailable(error):
            logger.warning("an error page could not read its session", exc_info=error)
        return None
    return None if viewer is None else SignedIn(viewer.name, viewer.csrf_token)


def error_answer(request: Request[Any, Any, State], view: ErrorView, headers: dict[str, str] | None = None) -> Template:
    """The whole page for a browser, saying who is signed in if anyone is; for htmx the notice alone,
    so it lands in `#notice` instead of a page inside the page."""
    if not _is_htmx(request):
        return _ErrorPage(
            "kit/errors/page.html",
            context={"problem": view},
            status_code=view.status,
            headers={**_NO_STORE, **(headers or {})},
        )
    # What was asked was not shown: the address stays the page's, not the search or page that was asked for.
    stays = {**_NO_STORE, "HX-Push-Url": "false", **(headers or {})}
    return Template("kit/errors/_notice.html", context={"problem": view}, status_code=view.status, headers=stays)


def current_page(request: Request[Any, Any, State]) -> str:
    """The page the person is looking at, as a local address to GET again: for htmx the address the
    browser shows; otherwise the page the request came from (the `Referer` of this same site); "/"
    when neither says."""
    shown = request.headers.get("hx-current-url") if _is_htmx(request) else request.headers.get("referer")
    if not shown:
        return "/"
    parts = urlsplit(shown)
    if parts.netloc and parts.netloc != request.url.netloc:
        return "/"
    return safe_next_path(f"{parts.path}?{parts.query}" if parts.query else parts.path)


def csrf_refusal(request: Request[Any, Any, State]) -> Response[Any]:
    """403 for an unsafe request without its session's CSRF token. The way on is the page the form
    came from, fetched afresh (with a new token): reloading would send the refused form again."""
    if _answers_json(request):
        return Response({"error": CSRF_REFUSED_JSON}, status_code=403, media_type=MediaType.JSON, headers=_NO_STORE)
    back = current_page(request)
    if _is_htmx(request):
        message = f"{CSRF_REFUSED} Reload the page, then try again."
        view = ErrorView(403, "That did not go through", message, back, "Reload the page", "reload")
    else:
        message = f"{CSRF_REFUSED} Open the page again, then try again from there."
        view = ErrorView(403, "That did not go through", message, back, "Open the page again", "back")
    return error_answer(request, view)


def not_found_handler(request: Request[Any, Any, State], error: HTTPException) -> Response[Any]:
    """An address that names nothing: a page (a notice for htmx) leading home; on the JSON routes the
    APIs' `{"error"}`."""
    if _answers_json(request):  # the JSON APIs' one shape for a refusal
        split = split_id_problem(request)
        if split is not None:
            return Response({"error": split}, status_code=400, media_type=MediaType.JSON)
        said = f"Nothing is at {request.method} {request.url.path}; /schema/openapi.json lists what is."
        return Response({"error": said}, status_code=404, media_type=MediaType.JSON)
    message = "The link may be out of date, or the address mistyped: nothing in OnFile is found at it."
    view = ErrorView(404, "There is nothing at this address", message, "/", "Go to what's on file about you", "home")
    return error_answer(request, view)


_LITESTARS_OWN = ("Validation failed for", "Bad Request")
"""How Litestar's own refusals of a request it could not read begin: worded for developers, not people."""


def bad_request_handler(request: Request[Any, Any, State], error: HTTPException) -> Response[Any]:
    """A request Litestar could not read (a form field sent twice, an address it cannot parse): a page in
    OnFile's words that says nothing changed and leads back to where the person was (a notice for
    htmx); on the JSON routes the APIs' `{"error"}`."""
    if _answers_json(request):
        return http_problem(request, error)
    own = error.detail and not error.detail.startswith(_LITESTARS_OWN)  # a sentence of OnFile's, naming the problem
    message = (
        f"{error.detail} Nothing was changed."
        if own
        else "The form was not sent the way OnFile's page sends it, so nothing was changed. Open the page again and "
        "use its own form."
    )
    view = ErrorView(400, "Nothing was changed", message, current_page(request), "Back to the page", "back")
    return error_answer(request, view, dict(error.headers or {}))


def method_not_allowed_handler(request: Request[Any, Any, State], error: HTTPException) -> Response[Any]:
    """An address opened in a way it does not take — in practice a form's target (`/logout`, a
    forget) opened as a page: said in words, with the `Allow` header; JSON on the JSON routes."""
    if _answers_json(request):
        allow = next((v for k, v in (error.headers or {}).items() if k.lower() == "allow"), "")
        allowed = ", ".join(sorted(m.strip() for m in allow.split(",") if m.strip())) or "another method"
        said = f"{request.url.path} does not take {request.method}; it takes {allowed}."
        return Response({"error": said}, status_code=405, headers=dict(error.headers or {}), media_type=MediaType.JSON)
    message = (
        "It is where one of OnFile's buttons sends its form (signing out, forgetting, publishing): opening it "
        "shows nothing and changes nothing. Use the button on the page instead."
    )
    view = ErrorView(405, "This address is not a page", message, "/", "Go to what's on file about you", "home")
    return error_answer(request, view, dict(error.headers or {}))


def login_required_handler(request: Request[Any, Any, State], _: LoginRequiredError) -> Response[Any]:
    path = request.url.path
    if request.url.query:
        path = f"{path}?{request.url.query}"
    # After login the browser comes back with a GET: return it to a page, never to a form's target.
    back = path if request.method == "GET" else "/"
    login = f"/login?next={quote(back, safe='/')}"
    if path.startswith("/agent/"):
        return Response({"error": LOG_IN_FIRST}, status_code=401)
    if _is_htmx(request):  # said in place: a redirect would drop what was asked without a word
        again = f"/login?next={quote(current_page(request), safe='/')}"
        view = ErrorView(401, "Your session has ended", SESSION_ENDED, again, "Sign in again", "sign-in")
        return error_answer(request, view)
    if request.headers.get("hx-request") == "true":  # restoring history wants a whole page: the login's
        return ClientRedirect(redirect_to=login)
    return Response(content=b"", status_code=303, headers={"Location": login}, media_type=MediaType.TEXT)


FAILED = (
    "Something failed inside OnFile while it answered this, and the failure was logged for whoever runs it. "
    "What you asked may not have been done: look again before you try it a second time."
)
FAILED_JSON = (
    "Something failed inside OnFile while it answered this request, and the failure was logged. It may not "
    "have been carried out; a retry with the same ids is safe."
)
SCOPES_FAILED = (
    "OnFile cannot tell which memories apply right now: the part of this deployment that says whose "
    "memories apply to whom failed, so nothing was shown or changed. Whoever runs OnFile has the reason in "
    "their log."
)
_AGENT_RUNTIME_PREFIXES = ("/agent/runs/", "/agent/threads/")
"""The routes only an agent runtime calls (with its token): told why a scope resolver failed."""


def internal_error_handler(request: Request[Any, Any, State], error: Exception) -> Response[Any]:
    """A failure nobody foresaw (a 500), answered in OnFile's own words, as a page, a notice for htmx
    or the JSON APIs' `{"error"}` (`log_failure` logs it). A deployment's scope resolver that fails is
    said as such: its reason (which names the setting) goes to the log and to agent runtimes, never to
    a person's page. A database outage, whatever type it surfaced as (a driver's error raised past
    SQLAlchemy, say), is the outage's 503."""
    if database_unavailable(error):
        return database_error_handler(request, error)
    resolver = isinstance(error, ScopeResolverError)
    if _answers_json(request):
        if resolver and request.url.path.startswith(_AGENT_RUNTIME_PREFIXES):
            said = f"Nothing was resolved or written: {error}."
        else:
            said = SCOPES_FAILED if resolver else FAILED_JSON
        return Response({"error": said}, status_code=500, media_type=MediaType.JSON, headers=_NO_STORE)
    if resolver:
        view = ErrorView(
            500, "OnFile cannot show this right now", SCOPES_FAILED, current_page(request), "Try again", "reload"
        )
    else:
        view = ErrorView(500, "That did not work", FAILED, current_page(request), "Look again", "reload")
    return error_answer(request, view)


def log_failure(_: Logger, scope: Scope, __: list[str]) -> None:
    """Litestar's hook for an exception no route answered itself: a failure nobody foresaw is logged
    with its traceback, once; a database outage is not (its 503 handler logs one warning line for it,
    as an outage is expected and can last thousands of requests)."""
    error = sys.exc_info()[1]
    if error is None or database_unavailable(error):
        return
    where = f"{scope.get('method', '')} {scope.get('path', '')}"
    if isinstance(error, ScopeResolverError):
        logger.error("scope resolver failed on %s: %s", where, error, exc_info=error)
    else:
        logger.error("unexpected failure on %s", where, exc_info=error)


def database_error_handler(request: Request[Any, Any, State], error: Exception) -> Response[Any]:
    """503 with a clear message when the database is unreachable (the next request tries it again,
    so service resumes by itself); any other database error is a real failure, a 500."""
    if not database_unavailable(error):
        return internal_error_handler(request, error)
    logger.warning("database unavailable on %s %s: %r", request.method, request.url.path, error)
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS), "Cache-Control": "no-store"}
    if _answers_json(request):
        return Response({"error": DATABASE_UNAVAILABLE}, status_code=503, headers=headers, media_type=MediaType.JSON)
    if _is_htmx(request):
        view = ErrorView(
            503,
            "OnFile is unavailable for a moment",
            DATABASE_UNAVAILABLE,
            current_page(request),
            "Reload the page",
            "reload",
        )
        return error_answer(request, view, headers)
    retry = safe_next_path(request.url.path) if request.method == "GET" else "/"
    return Template(
        template_name="kit/errors/unavailable.html",
        context={"message": DATABASE_UNAVAILABLE, "retry_url": retry},
        status_code=503,
        headers=headers,
    )


def _is_htmx(request: Request[Any, Any, State]) -> bool:
    headers = request.headers
    return headers.get("hx-request") == "true" and headers.get("hx-history-restore-request") != "true"


def _answers_json(request: Request[Any, Any, State]) -> bool:
    path = request.url.path
    if path == "/support/preview":  # the form is a page; posting to it is the JSON API
        return request.method != "GET"
    return path == "/agent" or path.startswith(_JSON_PREFIXES)
