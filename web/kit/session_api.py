"""The JSON endpoints a dashboard session calls (the elevated area's and the prompt preview's): how they
are authenticated, and the shapes of their refusals.

Authenticated by the dashboard session, with the `X-CSRF-Token` header on every call; every refusal
is `{"error"}` — a body that does not parse or match its schema, one too large, a missing session, a
person the endpoint's part of the elevated area is not for.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.datastructures import CacheControlHeader, State
from litestar.openapi.spec import SecurityScheme
from litestar.types import ExceptionHandlersMap

from web.kit.api_errors import JSON_API_EXCEPTIONS
from web.kit.errors import LoginRequiredError
from web.kit.identity.elevation import ROLES_UNCONFIRMED, NotElevatedError
from web.kit.wire import ProblemOut, refusal

__all__ = (
    "API_EXCEPTIONS",
    "INVALID",
    "NO_SESSION",
    "NO_STORE_JSON",
    "SESSION_SECURITY",
    "api_login_required",
    "api_not_elevated",
    "csrf_scheme",
    "session_scheme",
)

session_scheme = SecurityScheme(
    type="apiKey", name="onfile_session", security_scheme_in="cookie", description="The dashboard session, from login."
)
csrf_scheme = SecurityScheme(
    type="apiKey",
    name="X-CSRF-Token",
    security_scheme_in="header",
    description="The session's CSRF token (the dashboard's pages carry it); needed on every unsafe call.",
)
SESSION_SECURITY: list[dict[str, list[str]]] = [{"dashboardSession": [], "csrfToken": []}]
NO_STORE_JSON = CacheControlHeader(no_store=True)
"""What a JSON answer about a signed-in person is sent with: no cache keeps it, as none keeps their pages."""


def api_login_required(_: Request[Any, Any, State], __: LoginRequiredError) -> Response[ProblemOut]:
    return Response(ProblemOut("Log in to the dashboard first."), status_code=401)


def api_not_elevated(_: Request[Any, Any, State], error: NotElevatedError) -> Response[ProblemOut]:
    """403 saying why the person may not use the endpoint: their roles unconfirmed, or what its part of
    the elevated area needs and they lack."""
    actor = error.viewer.actor.id
    if error.elevation.roles_unconfirmed:
        reason = ROLES_UNCONFIRMED
    elif error.need == "preview":
        reason = f"Previewing prompts is for support staff; {actor} may not preview them."
    else:
        reason = (
            f"{actor} administers no scope: changing shared facts needs someone who administers the scope they "
            "are held at."
        )
    return Response(ProblemOut(reason), status_code=403)


API_EXCEPTIONS: ExceptionHandlersMap = {
    LoginRequiredError: api_login_required,
    NotElevatedError: api_not_elevated,
    **JSON_API_EXCEPTIONS,
}
"""Every refusal in the endpoints' one shape, `{"error"}`: a body that does not parse or match its
schema, one too large, a missing session, someone the endpoint is not for."""


NO_SESSION = refusal("No dashboard session", "Log in to the dashboard first.")
INVALID = refusal(
    "Invalid input: empty, too long, not one line, or a body that does not parse",
    "The fact contains a line break. It must be a single line of plain text.",
)
