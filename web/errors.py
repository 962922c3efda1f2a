"""How a request that needs a login is answered: a page goes to the login, an htmx request is told
to go there (not silently redirected), and an API call gets 401."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from litestar import Request, Response
from litestar.datastructures import State
from litestar.plugins.htmx import ClientRedirect

__all__ = ("LoginRequiredError", "login_required_handler")


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
