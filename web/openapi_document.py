"""The OpenAPI document as served: Litestar's, with the request bodies described exactly.

Litestar's schema for a msgspec struct drops what msgspec enforces on it: an unknown field is refused
(`forbid_unknown_fields`), yet the schema says nothing of `additionalProperties`, and a constraint on
a list's items (`roles`, `runIds`: 1–200 characters each) is lost. A runtime generating a client from
the document would then send what the service refuses. So the schemas of the request bodies are
msgspec's own, which state exactly what the decoder accepts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
from litestar import Request
from litestar.openapi.plugins import JsonRenderPlugin

from web.admin.api import PinIn, SharedMemoryIn, TextIn
from web.agent.api import DroppedRunsIn, RememberIn
from web.kit.security import request_path
from web.kit.wire import DigestIn

__all__ = ("REQUEST_BODIES", "SCHEMA_PATH", "ExactBodiesJsonRenderPlugin", "names_nothing_in_the_schema")

SCHEMA_PATH = "/schema"
"""Where the document is served (`/schema`, `/schema/openapi.json`)."""

REQUEST_BODIES: tuple[type[msgspec.Struct], ...] = (DigestIn, RememberIn, DroppedRunsIn, SharedMemoryIn, TextIn, PinIn)
"""Every JSON request body the application decodes (the support preview's is the digest's)."""


class ExactBodiesJsonRenderPlugin(JsonRenderPlugin):
    """Serves the document as JSON with the components of `bodies` replaced by msgspec's schemas."""

    def __init__(self, bodies: Sequence[type[msgspec.Struct]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _, self._exact = msgspec.json.schema_components(bodies, ref_template="#/components/schemas/{name}")

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        # the dictionary is Litestar's cached document: replacing the same entries again changes nothing
        components = openapi_schema.setdefault("components", {}).setdefault("schemas", {})
        for name, schema in self._exact.items():
            described = components.get(name, {})
            components[name] = {**schema, **{k: v for k, v in described.items() if k in ("description", "examples")}}
        return super().render(request, openapi_schema)


_UNKNOWN = "/{path:str}"
"""The path of the handler Litestar adds for any address under the document's path that names nothing."""


def names_nothing_in_the_schema(request: Request[Any, Any, Any]) -> bool:
    """Whether `request` reached the handler Litestar adds under the document's path for what names
    nothing, which answers a bare HTML page of its own; OnFile answers it as every JSON route does,
    with `{"error"}` (`web.kit.errors.not_found_handler`)."""
    return request_path(request).startswith(SCHEMA_PATH) and _UNKNOWN in request.route_handler.paths
