"""How a request that needs a login is answered: a page goes to the login, an htmx request is told
to go there (not silently redirected), and an API call gets 401. And how one that met a database
outage is answered: 503 saying so, as JSON for the APIs and as a page for people."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import quote

from litestar import MediaType, Request, Response
from litestar.datastructures import State
from litestar.plugins.htmx import ClientRedirect
from litestar.response import Template

from store.persistence.outage import database_unavailable
from web.security import safe_next_path

__all__ = (
    "DATABASE_UNAVAILABLE",
    "LoginRequiredError",
    "database_error_handler",
    "login_required_handler",
)

logger = logging.getLogger(__name__)

DATABASE_UNAVAILABLE = (
    "OnFile cannot reach its database right now, so nothing was read or changed. "
    "This is usually brief: try again in a few seconds."
)
RETRY_AFTER_SECONDS = 5
# Routes that answer JSON: an outage there is JSON too, so a client can read it.
_JSON_PREFIXES = ("/agent/", "/admin/memories", "/admin/audit.json", "/schema", "/metrics", "/healthz")


class LoginRequiredError(Exception):
    """Raised by the viewer dependency when there is no live session."""


def login_required_handler(request: Request[Any, Any, State], _: LoginRequiredError) -> Response[Any]:
    path = request.url.path
    if request.url.query:
        path = f"{path}?{request.url.query}"
    # After login the browser comes back with a GET: return it to a page, never to a form's target.
    back = path if request.method == "GET" else "/"
    login = f"/login?next={quote(back, safe='/')}"
    if path.startswith("/agent/"):
        return Response({"error": "Log in to the dashboard first."}, status_code=401)
    if request.headers.get("hx-request") == "true":
        return ClientRedirect(redirect_to=login)
    return Response(content=None, status_code=303, headers={"Location": login})


def database_error_handler(request: Request[Any, Any, State], error: Exception) -> Response[Any]:
    """503 with a clear message when the database is unreachable (the next request tries it again,
    so service resumes by itself); any other database error is a real failure, a 500."""
    if not database_unavailable(error):
        logger.error("database error on %s %s", request.method, request.url.path, exc_info=error)
        return Response({"status_code": 500, "detail": "Internal Server Error"}, status_code=500)
    logger.warning("database unavailable on %s %s: %r", request.method, request.url.path, error)
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS), "Cache-Control": "no-store"}
    if _answers_json(request):
        return Response({"error": DATABASE_UNAVAILABLE}, status_code=503, headers=headers, media_type=MediaType.JSON)
    retry = safe_next_path(request.url.path) if request.method == "GET" else "/"
    return Template(
        template_name="errors/unavailable.html",
        context={"message": DATABASE_UNAVAILABLE, "retry_url": retry},
        status_code=503,
        headers=headers,
    )


def _answers_json(request: Request[Any, Any, State]) -> bool:
    path = request.url.path
    if path == "/support/preview":  # the form is a page; posting to it is the JSON API
        return request.method != "GET"
    return path.startswith(_JSON_PREFIXES)
