"""The JSON APIs' one shape for a refusal, `{"error": "…"}`, for what Litestar itself refuses.

A handler's own refusals already answer that shape; this handler gives it to the rest — a body that
does not parse or does not match its schema (`web.kit.json_bodies`), an address that does not, a missing
credential, a body too large — so a client reads every refusal the same way. Each problem in a body is
named by its path (`actor.id: Expected str of length <= 200`).
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.datastructures import State
from litestar.exceptions import HTTPException
from litestar.status_codes import HTTP_413_REQUEST_ENTITY_TOO_LARGE
from litestar.types import ExceptionHandlersMap

__all__ = ("JSON_API_EXCEPTIONS", "TOO_DEEP", "TOO_LARGE", "http_problem", "problem_message")

TOO_LARGE = "The request body is larger than OnFile accepts; a turn's text or a fact is far smaller."
TOO_DEEP = "The request is not valid: its JSON is nested too deeply."


def problem_message(error: HTTPException) -> str:
    """One sentence for `error`: each problem of an invalid request, named by its field."""
    extra = error.extra if isinstance(error.extra, list) else []
    said = [_named(item) for item in extra if isinstance(item, dict) and item.get("message")]
    if said:
        return f"The request is not valid: {'; '.join(said)}"
    if error.status_code == HTTP_413_REQUEST_ENTITY_TOO_LARGE:
        return TOO_LARGE
    return error.detail


def _named(item: dict[str, Any]) -> str:
    message, key = str(item["message"]), str(item.get("key") or "")
    if not key or message.startswith(key.split(".")[0]):  # our own sentences already name their field
        return message
    return f"{key}: {message}"


def http_problem(_: Request[Any, Any, State], error: HTTPException) -> Response[dict[str, str]]:
    return Response({"error": problem_message(error)}, status_code=error.status_code, headers=error.headers)


JSON_API_EXCEPTIONS: ExceptionHandlersMap = {HTTPException: http_problem}
