"""CSRF on every unsafe request from a browser, and the security headers on every response."""

from __future__ import annotations

import hmac
import re
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import unquote, urlsplit

from litestar import Request
from litestar.connection import ASGIConnection
from litestar.datastructures import State
from litestar.exceptions import ValidationException
from litestar.types import BeforeMessageSendHookHandler, Message, Scope

from store.domain.identifiers import id_problem
from web.kit.identity.sessions import SESSION_COOKIE, csrf_token
from web.settings import Settings

__all__ = (
    "CONTROL_IN_ADDRESS",
    "CSRF_FIELD",
    "CSRF_HEADER",
    "bearer_presented",
    "content_security_policy",
    "csrf_refused",
    "refuse_control_characters",
    "refuse_split_ids",
    "request_path",
    "safe_next_path",
    "security_headers",
    "security_headers_hook",
    "split_id_problem",
)

CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf_token"
_UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_CONTROL = re.compile("[\x00-\x1f\x7f]")
CONTROL_IN_ADDRESS = (
    "The address contains a control character (such as %00 or a line break); no id or name OnFile stores contains one."
)
# Routes an agent runtime calls with a bearer token: no cookie is accepted there, so no CSRF either.
_BEARER_PREFIXES = ("/agent/runs/", "/agent/threads/")


def content_security_policy(settings: Settings) -> str:
    """No inline script anywhere. Forms may post here and, for logout, lead on to the identity provider."""
    issuer = urlsplit(settings.oidc_issuer)
    provider = f" {issuer.scheme}://{issuer.netloc}" if issuer.netloc else ""
    return (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        f"connect-src 'self'; form-action 'self'{provider}; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
    )


def security_headers(settings: Settings) -> dict[str, str]:
    headers = {
        "Content-Security-Policy": content_security_policy(settings),
        "X-Content-Type-Options": "nosniff",
        "X-Frame-Options": "DENY",
        "Referrer-Policy": "same-origin",
        "Cross-Origin-Opener-Policy": "same-origin",
        "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
    }
    if settings.secure_cookies:
        headers["Strict-Transport-Security"] = "max-age=31536000"
    return headers


async def csrf_refused(request: Request[object, object, State], settings: Settings) -> bool:
    """Whether an unsafe request from a session lacks its token (`web.kit.errors.csrf_refusal` answers it).

    The token comes from the `X-CSRF-Token` header (htmx sets it from `<body hx-headers>`) or the
    `csrf_token` field of a plain form. A request carrying no session cookie has no session to abuse:
    its handler answers that a login is needed.
    """
    if request.method not in _UNSAFE or request_path(request).startswith(_BEARER_PREFIXES):
        return False
    session_id = request.cookies.get(SESSION_COOKIE)
    if not session_id:
        return False
    presented = request.headers.get(CSRF_HEADER)
    if presented is None and request.headers.get("content-type", "").startswith(
        ("application/x-www-form-urlencoded", "multipart/form-data")
    ):
        presented = (await request.form()).get(CSRF_FIELD)
    expected = csrf_token(settings.secret_key, session_id)
    return not (isinstance(presented, str) and hmac.compare_digest(presented, expected))


def bearer_presented(headers: Iterable[tuple[bytes, bytes]], tokens: Sequence[str]) -> bool:
    """Whether the raw request `headers` carry `Authorization: Bearer <one of tokens>`, compared in
    constant time against each of them (several at once, for rotation)."""
    header = next((value for name, value in headers if name == b"authorization"), b"")
    scheme, _space, presented = header.decode("latin-1").partition(" ")
    matched = False
    for token in tokens:
        matched |= hmac.compare_digest(presented.strip().encode(), token.encode())
    return scheme.lower() == "bearer" and bool(presented) and matched


def request_path(request: ASGIConnection[Any, Any, Any, Any]) -> str:
    """The path the request was addressed to, percent-decoded, under the application's root path: what
    `request.url.path` says, without building the whole URL (the checks every request passes need only
    this)."""
    scope = request.scope
    return scope.get("root_path", "") + scope["path"]


def refuse_control_characters(request: Request[object, object, State]) -> None:
    """An address whose path decodes to a control character names nothing OnFile stores — and
    PostgreSQL cannot even compare a NUL — so it is refused as invalid input before any handler
    looks it up (a 400, in the shape the route answers invalid input with)."""
    if _CONTROL.search(request_path(request)):
        raise ValidationException(detail=CONTROL_IN_ADDRESS)


_ADDRESSED_IDS = {"runs": "runId", "threads": "threadId"}


def _raw_path(request: Request[Any, Any, State]) -> bytes:
    """The address's path as it was sent, still encoded: the ASGI `raw_path`, without the query some
    servers and test clients leave on it."""
    raw: bytes = request.scope.get("raw_path") or b""
    return raw.split(b"?", 1)[0]


def split_id_problem(request: Request[Any, Any, State]) -> str | None:
    """Why an agent address cannot be answered when a run or thread id in it holds an encoded '/': the
    router reads `/agent/runs/a%2Fb/digest` as two segments (nothing there), and `a%2F` as `a`, another
    run. The API's 400 naming the id, as for the same id in a body; None for any other address."""
    segments = _raw_path(request).decode("latin-1").split("/")
    if len(segments) < 4 or segments[1] != "agent" or segments[2] not in _ADDRESSED_IDS:
        return None
    value = unquote(segments[3], errors="replace")
    return id_problem(_ADDRESSED_IDS[segments[2]], value, in_address=True) if "/" in value else None


_PATH_NAMES = {"run_id": "runId", "thread_id": "threadId"}
"""An address's parameters as the agent API names them in a body."""


def refuse_split_ids(request: Request[Any, Any, State]) -> None:
    """An address holding an encoded '/' (`%2F`) is refused before its route acts on what the router
    made of it: it decodes the '/' into a separator and folds the empty segments, so `a%2F` reached the
    route as `a` — another run, thread or memory than the one sent — whichever way the rest of the
    address was written. No id OnFile stores holds a '/'. The 400 names the address's id."""
    if b"%2f" not in _raw_path(request).lower():
        return
    named = [_PATH_NAMES.get(name, name.replace("_", " ")) for name in request.path_params]
    said = named[0] if named else "The address"
    raise ValidationException(
        detail=f"{said} contains '/' (sent as %2F), which an address cannot carry inside one segment; use "
        "another separator."
    )


def safe_next_path(candidate: str | None) -> str:
    """A return address that stays on this site: a local path, never another host."""
    if not candidate or not candidate.startswith("/") or candidate.startswith(("//", "/\\")):
        return "/"
    parts = urlsplit(candidate)
    if parts.scheme or parts.netloc or "\\" in candidate or any(ord(ch) < 32 for ch in candidate):
        return "/"
    return candidate


def security_headers_hook(headers: dict[str, str]) -> BeforeMessageSendHookHandler:
    """A `before_send` hook that adds `headers` to the start of every HTTP response the application
    sends, where a response does not set them itself.

    Application-level, not a middleware: Litestar runs middleware only for a request that matched a
    route, so an unknown address (404) or a method the address does not take (405) would be answered
    without them. `before_send` wraps the application's own `send`, which every answer goes through —
    those, failures, refusals and static files alike."""
    extra = [(name.lower().encode(), value.encode()) for name, value in headers.items()]

    async def add_headers(message: Message, _: Scope) -> None:  # async: Litestar runs a sync hook in a thread
        if message["type"] == "http.response.start":
            sent = message.get("headers", [])
            present = {name.lower() for name, _ in sent}
            message["headers"] = [*sent, *(header for header in extra if header[0] not in present)]

    return add_headers
