"""Every JSON request body, held to its handler's type strictly before the handler is called.

Litestar converts a body to the handler's type in msgspec's lax mode, which reads `"true"` and `1` as
true and `"1"` as a number. OnFile's JSON clients are programs: a value of the wrong type is their
mistake, to be named, not guessed at. So before any handler that takes a JSON body runs, the body is
decoded with `msgspec.json.decode(body, type=<the handler's type>, strict=True)`, and a body that does
not decode is refused (`RefusedBodyError`): 415 when it was not sent as JSON, otherwise 400 — empty,
not JSON, a value of the wrong type, a field the type does not have or one it needs missing — naming
the field by the path the client sent it under (`pinned`, `actor.roles[0]`). The decoded value is
what the handler then gets: Litestar is handed it as the request's JSON and passes it through, so a
body is decoded once.

It runs in the application's `before_request`, for every route whose `data` is JSON, so a new route
is held to it without saying so (`tests/web/test_strict_bodies.py` finds the routes in the OpenAPI
document). A refused body — that, or one too large to read on any route — is one warning line naming
the route and why (`log_refused_body`), never a stack trace: nothing failed but the request.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import msgspec
from litestar import Request
from litestar.datastructures import State
from litestar.enums import RequestEncodingType
from litestar.exceptions import ClientException, HTTPException
from litestar.handlers import BaseRouteHandler
from litestar.params import BodyKwarg
from litestar.status_codes import HTTP_413_REQUEST_ENTITY_TOO_LARGE, HTTP_415_UNSUPPORTED_MEDIA_TYPE
from litestar.types import Empty, Scope
from litestar.utils.scope.state import ScopeState

from web.kit.api_errors import TOO_DEEP, problem_message

__all__ = (
    "BYTE_ORDER_MARK",
    "COMPRESSED",
    "NOT_JSON_TYPE",
    "RefusedBodyError",
    "decode_strictly",
    "json_body_type",
    "log_refused_body",
    "refuse_unfit_body",
)


logger = logging.getLogger(__name__)

NOT_JSON_TYPE = "The request body must be JSON, sent with Content-Type: application/json"
COMPRESSED = "The request body must be sent uncompressed: OnFile reads no Content-Encoding"
BYTE_ORDER_MARK = (
    "The request is not valid: its body starts with a byte-order mark (EF BB BF), which JSON does not "
    "allow. Send the JSON without it."
)
_BYTE_ORDER_MARK = b"\xef\xbb\xbf"
_AT = re.compile(r"^(?P<message>.*?) - at `\$(?P<path>[^`]*)`$", re.DOTALL)
_PARAMETER_TYPE = re.compile(r":\w+}")
_LINE_BREAKING = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_MOST_SAID = 500  # characters of a reason a log line carries
_FIELD = re.compile(r"^Object (?P<what>contains unknown|missing required) field `(?P<name>[^`]*)`$")
_HALF_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
"""A JSON escape of half of a character that takes two (a surrogate), or text that looks like one: msgspec
refuses a half without its pair, saying only that the input "was truncated". A body holding this sign is
read again with the halves kept (`_read_with_halves`), to say where a half is, or to take it where it
is a model's own text (`MODEL_TEXT`)."""
HALF_A_CHARACTER = (
    "The request is not valid: its body holds half of a character that takes two (a \\uD800 to \\uDFFF "
    "escape without its pair, as a cut emoji leaves), which no text can hold. Send the whole character."
)


class RefusedBodyError(ClientException):
    """A request body refused before its handler ran; `web.kit.api_errors` answers it as `{"error"}`."""


def json_body_type(handler: BaseRouteHandler) -> Any | None:
    """The type `handler` takes its body as, when that body is JSON (the default); None for a handler
    that takes no body or a form."""
    data = handler.parsed_fn_signature.parameters.get("data")
    if data is None:
        return None
    declared = data.kwarg_definition
    media_type = declared.media_type if isinstance(declared, BodyKwarg) else RequestEncodingType.JSON
    return data.annotation if media_type == RequestEncodingType.JSON else None


async def refuse_unfit_body(request: Request[Any, Any, State]) -> None:
    """Refuse the request's body unless it decodes strictly as the JSON its handler takes."""
    body_type = json_body_type(request.route_handler)
    if body_type is None:
        return
    media_type, _ = request.content_type
    if media_type != RequestEncodingType.JSON:
        sent = f"this one came as {media_type}" if media_type else "this one had no Content-Type"
        raise RefusedBodyError(detail=f"{NOT_JSON_TYPE}; {sent}.", status_code=HTTP_415_UNSUPPORTED_MEDIA_TYPE)
    encoding = request.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        detail = f"{COMPRESSED}; this one came with Content-Encoding: {encoding[:40]}."
        raise RefusedBodyError(detail=detail, status_code=HTTP_415_UNSUPPORTED_MEDIA_TYPE)
    _hand_to_handler(request, decode_strictly(await request.body(), body_type))


def _hand_to_handler(request: Request[Any, Any, State], decoded: Any) -> None:
    """Give Litestar the body decoded here as the request's JSON, so that it converts this value (a
    value of the handler's type passes through as it is) instead of decoding the bytes again. Where
    Litestar keeps no such place, it decodes them again, to the same value."""
    state = ScopeState.from_scope(request.scope)
    if getattr(state, "json", None) is Empty:
        state.json = decoded


def decode_strictly(body: bytes, body_type: Any) -> Any:
    """`body` as `body_type`, with no value converted from another type; `RefusedBodyError` naming the
    problem otherwise."""
    if not body:
        raise RefusedBodyError(detail="The request is not valid: its body is empty; send a JSON object.")
    if body.startswith(_BYTE_ORDER_MARK):
        raise RefusedBodyError(detail=BYTE_ORDER_MARK)
    try:
        return msgspec.json.decode(body, type=body_type, strict=True)
    except msgspec.ValidationError as error:
        raise RefusedBodyError(detail=str(error), extra=[_problem(str(error))]) from None
    except msgspec.DecodeError as error:
        read = _read_with_halves(body) if _HALF_ESCAPE.search(body) else _NOT_JSON
        if read is _NOT_JSON:
            raise RefusedBodyError(detail=f"The request is not valid: its body is not JSON ({error}).") from None
        return _held_to_type(read, body_type)
    except RecursionError:
        raise RefusedBodyError(detail=TOO_DEEP) from None


_NOT_JSON = object()


def _read_with_halves(body: bytes) -> Any:
    """`body` read as JSON with halves of characters kept (Python's reader takes them); `_NOT_JSON` when
    it is not JSON even so (msgspec's reason then stands)."""

    def refused(constant: str) -> Any:
        raise ValueError(constant)  # NaN and Infinity: Python's reader takes them, JSON does not

    try:
        return json.loads(body, parse_constant=refused)
    except (ValueError, RecursionError):
        return _NOT_JSON


def _held_to_type(read: Any, body_type: Any) -> Any:
    """A body read with its halves kept, as `body_type`: refused naming where a half is, unless it is in
    the model's own text (`MODEL_TEXT`, the fields a body type names as the model's: refused later by
    their own rules, as a mistake the model can correct) or in a value a later one of the same name
    replaced. Held to the type as strictly as any body."""
    try:
        found = _where_half(read, model_text=getattr(body_type, "MODEL_TEXT", ()))
    except RecursionError:  # read, but nested deeper than it can be walked here
        raise RefusedBodyError(detail=TOO_DEEP) from None
    if found is not None:
        raise _half_a_character(*found)
    try:
        return msgspec.convert(read, type=body_type, strict=True)
    except msgspec.ValidationError as error:
        raise RefusedBodyError(detail=str(error), extra=[_problem(str(error))]) from None


def _half_a_character(path: str, in_name: bool) -> RefusedBodyError:
    """The refusal of a body holding half of a character, naming where, as sent (`actor.id`, `runIds[2]`,
    or a field's name)."""
    shown = path if len(path) <= _PATH_SHOWN else path[: _PATH_SHOWN - 1] + "…"
    if in_name:
        where = f"in the name of a field of `{shown}`" if path else "in the name of a field"
    else:
        where = f"in `{shown}`" if path else "as the whole body"
    detail = HALF_A_CHARACTER.replace("its body holds", f"its body holds, {where},", 1)
    return RefusedBodyError(detail=detail)


_PATH_SHOWN = 120
"""Characters of a field's path a refusal shows at most."""


def _where_half(value: Any, path: str = "", *, model_text: tuple[str, ...] = ()) -> tuple[str, bool] | None:
    """Where the first text in `value` holding half of a character is: its path and whether it is a
    field's name (the path is then its object's); None if no text does. The values at the paths
    `model_text` names are the model's own text, and not looked in."""
    if isinstance(value, str):
        return (path, False) if _has_half(value) and path not in model_text else None
    items: list[tuple[str, Any]] = []
    if isinstance(value, list):
        items = [(f"{path}[{index}]", item) for index, item in enumerate(value)]
    elif isinstance(value, dict):
        for name, item in value.items():
            if _has_half(name):
                return path, True
            items.append((f"{path}.{name}" if path else name, item))
    for inner, item in items:
        found = _where_half(item, inner, model_text=model_text)
        if found is not None:
            return found
    return None


def _has_half(text: str) -> bool:
    return any("\ud800" <= c <= "\udfff" for c in text)


def _problem(said: str) -> dict[str, str]:
    """msgspec's sentence as a problem naming its field by the path the client sent it under: a field
    the type does not have or needs is named in the sentence, a value by its key."""
    located = _AT.match(said)
    message, path = (located["message"], located["path"].lstrip(".")) if located else (said, "")
    field = _FIELD.match(message)
    if field is None:
        return {"message": message, "key": path}
    name = f"{path}.{field['name']}" if path else field["name"]
    what = "Unknown field" if field["what"] == "contains unknown" else "Missing required field"
    return {"message": f"{what} `{name}`"}


async def log_refused_body(error: Exception, scope: Scope) -> None:
    """An `after_exception` hook: one warning line for a body refused here or too large to read,
    naming the route as written (`/agent/runs/{run_id}/remember`) and why. Async: Litestar would run a
    plain function in a thread."""
    if not isinstance(error, HTTPException):
        return
    if isinstance(error, RefusedBodyError) or error.status_code == HTTP_413_REQUEST_ENTITY_TOO_LARGE:
        route = _PARAMETER_TYPE.sub("}", scope.get("path_template") or scope["path"])
        # The reason may quote the client (an unknown field's name): escaped and cut short, it stays one line.
        why = _LINE_BREAKING.sub(lambda found: ascii(found[0])[1:-1], problem_message(error)[:_MOST_SAID])
        logger.warning("refused the body of %s %s: %s", scope.get("method"), route, why)
