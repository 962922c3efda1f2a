"""Every JSON body on every route is decoded strictly: a value of the wrong type is never guessed at
(`"true"` and `1` are not true, `42` is not a string), and a field the body's type does not have is
refused. Each is a 400 in the APIs' one shape, `{"error"}`, naming the field by the path it was sent
under. The routes and their bodies come from the OpenAPI document, so a route added later is held to
the same rule without anyone listing it here; and every route that takes a JSON body is in it."""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import litestar.connection.request
import pytest
from litestar import Litestar
from litestar.routes import HTTPRoute
from litestar.serialization import decode_json
from litestar.testing import AsyncTestClient

from store import Actor, ScopeContext
from tests.web.conftest import AGENT_TOKEN, LoginAs
from web.kit.json_bodies import BYTE_ORDER_MARK, COMPRESSED, json_body_type
from web.services import Services

LENA = Actor("lena", "berlin", ("onfile-admin", "onfile-global-admin", "onfile-support"))
PUBLISH = {"scope": "tenant:berlin", "key": "manifest-required", "text": "print the manifest"}
# What a lax decoder would take for a value of each JSON type, and strict decoding refuses.
WRONG: dict[str, list[Any]] = {
    "string": [42, True],
    "boolean": ["true", 1, "false", 0],
    "integer": ["1", 1.5],
    "array": ["run_1", {"0": "run_1"}],
    "object": ["u1", ["u1"]],
}
EXPECTED = {"string": "str", "boolean": "bool", "integer": "int", "array": "array", "object": "object"}


@dataclass(frozen=True, slots=True)
class JsonRoute:
    method: str
    path: str
    """The document's path with each parameter filled in."""
    body: dict[str, Any]
    """The document's own example of a valid body."""
    schema: dict[str, Any]
    refusals: frozenset[str]
    """The statuses the document says the route may refuse with."""


@dataclass(frozen=True, slots=True)
class Mistake:
    field: str
    """The field as a client names it: `pinned`, `actor.id`, `actor.roles[0]`."""
    body: dict[str, Any]
    expected: str


@pytest.fixture
async def headers(login_as: LoginAs) -> dict[str, str]:
    """Credentials for every JSON route at once: an agent token, and a session of someone who
    administers Berlin and everyone, and may preview prompts."""
    csrf = await login_as(LENA)
    return {"Authorization": f"Bearer {AGENT_TOKEN}", "X-CSRF-Token": csrf}


async def json_routes(client: AsyncTestClient[Litestar]) -> list[JsonRoute]:
    document = (await client.get("/schema/openapi.json")).json()
    schemas = document["components"]["schemas"]
    routes = []
    for template, operations in document["paths"].items():
        path = template.replace("{", "").replace("}", "")  # {run_id} -> run_id: a plain id
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" not in content:
                continue
            described = content["application/json"]
            schema = resolved(described["schema"], schemas)
            example = described["schema"]["examples"][0]
            refusals = frozenset(code for code in operation["responses"] if code.startswith("4"))
            routes.append(JsonRoute(method.upper(), path, example, schema, refusals))
    return routes


def resolved(schema: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    """A schema with its references followed, recursively, and a nullable type reduced to its type."""
    if "$ref" in schema:
        return resolved(schemas[schema["$ref"].rsplit("/", 1)[-1]], schemas)
    if "allOf" in schema and len(schema["allOf"]) == 1:
        return resolved(schema["allOf"][0], schemas)
    for either in ("anyOf", "oneOf"):
        if either in schema:
            kinds = [resolved(s, schemas) for s in schema[either] if s.get("type") != "null"]
            return kinds[0]
    if schema.get("type") == "object" and "properties" in schema:
        return {**schema, "properties": {k: resolved(v, schemas) for k, v in schema["properties"].items()}}
    if schema.get("type") == "array":
        return {**schema, "items": resolved(schema["items"], schemas)}
    return schema


def wrong_types(body: dict[str, Any], schema: dict[str, Any], at: str = "") -> Iterator[Mistake]:
    """Each field of `schema` (nested objects and array items too) set, one at a time, to a value of
    another type than its own."""
    for name, field in schema["properties"].items():
        path = f"{at}{name}"
        for value in WRONG[field["type"]]:
            yield Mistake(path, {**body, name: value}, EXPECTED[field["type"]])
        inner = body.get(name)
        if field["type"] == "object":
            for mistake in wrong_types(inner or {}, field, f"{path}."):
                yield Mistake(mistake.field, {**body, name: mistake.body}, mistake.expected)
        if field["type"] == "array" and field["items"].get("type") == "string":
            yield Mistake(f"{path}[0]", {**body, name: [42]}, "str")


def with_unknown(body: dict[str, Any], schema: dict[str, Any], at: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """The body with a field its type does not have, at the top and inside each nested object."""
    yield f"{at}extra", {**body, "extra": True}
    for name, field in schema["properties"].items():
        if field["type"] == "object":
            for path, inner in with_unknown(body.get(name) or {}, field, f"{at}{name}."):
                yield path, {**body, name: inner}


async def test_the_document_names_every_route_that_takes_a_json_body_and_its_refusals(
    client: AsyncTestClient[Litestar],
) -> None:
    routes = await json_routes(client)

    assert all({"400", "415"} <= route.refusals for route in routes), [(r.path, r.refusals) for r in routes]
    assert {(r.method, r.path) for r in routes} == {
        ("POST", "/agent/runs/run_id/digest"),
        ("POST", "/agent/runs/run_id/remember"),
        ("POST", "/agent/threads/thread_id/dropped-runs"),
        ("POST", "/admin/memories"),
        ("PUT", "/admin/memories/memory_id"),
        ("POST", "/admin/memories/memory_id/pin"),
        ("POST", "/support/preview"),
    }


async def test_every_route_that_decodes_a_json_body_is_in_the_document(
    app: Litestar, client: AsyncTestClient[Litestar]
) -> None:
    taking = {
        (method, re.sub(r"[{}]|:\w+", "", route.path))
        for route in app.routes
        if isinstance(route, HTTPRoute)
        for handler in route.route_handlers
        if json_body_type(handler) is not None
        for method in handler.http_methods
    }

    assert taking == {(r.method, r.path) for r in await json_routes(client)}


async def test_a_value_of_the_wrong_type_is_a_400_naming_its_field_on_every_json_route(
    client: AsyncTestClient[Litestar], headers: dict[str, str]
) -> None:
    answered = []
    for route in await json_routes(client):
        for mistake in wrong_types(route.body, route.schema):
            answer = await client.request(route.method, route.path, json=mistake.body, headers=headers)
            said = answer.json()
            answered.append((route.method, route.path, mistake.field, answer.status_code, said))
            assert answer.status_code == 400, answered[-1]
            assert list(said) == ["error"], answered[-1]
            expected = f"The request is not valid: {mistake.field}: Expected `{mistake.expected}"
            assert said["error"].startswith(expected), answered[-1]
            assert "data:" not in said["error"], answered[-1]
    assert len(answered) > 40


async def test_a_body_is_decoded_once_and_its_handler_gets_the_strictly_decoded_value(
    client: AsyncTestClient[Litestar], headers: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    decoded_again: list[bytes] = []
    litestars_decode = decode_json  # what litestar.connection.request decodes a body with

    def counted(value: bytes, *args: Any, **kwargs: Any) -> Any:
        decoded_again.append(value)
        return litestars_decode(value, *args, **kwargs)

    monkeypatch.setattr(litestar.connection.request, "decode_json", counted)
    answered = []
    for route in await json_routes(client):
        answer = await client.request(route.method, route.path, json=route.body, headers=headers)
        answered.append((route.method, route.path, answer.status_code))
    assert [a for a in answered if a[2] >= 500] == []
    assert [a for a in answered if a[2] in {400, 415}] == []
    assert len(answered) >= 6
    assert decoded_again == []


async def test_a_field_the_body_does_not_have_is_a_400_naming_it_on_every_json_route(
    client: AsyncTestClient[Litestar], headers: dict[str, str]
) -> None:
    answered = []
    for route in await json_routes(client):
        for field, body in with_unknown(route.body, route.schema):
            answer = await client.request(route.method, route.path, json=body, headers=headers)
            answered.append((route.method, route.path, field, answer.status_code, answer.json()))
            assert answer.status_code == 400, answered[-1]
            assert answer.json() == {"error": f"The request is not valid: Unknown field `{field}`"}, answered[-1]
    assert {field for _, _, field, _, _ in answered} == {"extra", "actor.extra"}


@pytest.mark.parametrize(
    ("body", "said"),
    [
        pytest.param({**PUBLISH, "pinned": "true"}, "pinned: Expected `bool`, got `str`", id="pinned-as-text"),
        pytest.param({**PUBLISH, "pinned": 1}, "pinned: Expected `bool`, got `int`", id="pinned-as-number"),
        pytest.param({**PUBLISH, "key": 7}, "key: Expected `str`, got `int`", id="key-as-number"),
        pytest.param({**PUBLISH, "extra": 1}, "Unknown field `extra`", id="unknown-field"),
        pytest.param({"scope": "tenant:berlin", "key": "k"}, "Missing required field `text`", id="missing-field"),
        pytest.param([PUBLISH], "Expected `object`, got `array`", id="not-an-object"),
    ],
)
async def test_publishing_with_a_body_that_is_not_exactly_right_changes_nothing(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs, body: Any, said: str
) -> None:
    csrf = await login_as(LENA)

    answer = await client.post("/admin/memories", json=body, headers={"X-CSRF-Token": csrf})

    assert answer.status_code == 400
    assert answer.json() == {"error": f"The request is not valid: {said}"}
    assert await services.provider.list(scopes=["tenant:berlin"], ctx=ScopeContext(actor=LENA)) == ()


@pytest.mark.parametrize(
    ("raw", "content_type", "status", "said"),
    [
        pytest.param(b"", "application/json", 400, "The request is not valid: its body is empty", id="empty"),
        pytest.param(b"{", "application/json", 400, "The request is not valid: its body is not JSON", id="truncated"),
        pytest.param(b"callId=c", "application/json", 400, "The request is not valid: its body is not JSON", id="form"),
        pytest.param(b'{"callId": "c", "key": "k", "fact": "f"}', "text/plain", 415, "Content-Type", id="as-text"),
        pytest.param(b'{"callId": "c", "key": "k", "fact": "f"}', None, 415, "Content-Type", id="no-type"),
    ],
)
async def test_a_body_that_is_not_json_sent_as_json_is_refused_saying_so(
    client: AsyncTestClient[Litestar], raw: bytes, content_type: str | None, status: int, said: str
) -> None:
    sent = {"Authorization": f"Bearer {AGENT_TOKEN}"}
    if content_type is not None:
        sent["Content-Type"] = content_type

    answer = await client.post("/agent/runs/run_1/remember", content=raw, headers=sent)

    assert answer.status_code == status
    assert list(answer.json()) == ["error"]
    assert said in answer.json()["error"]


async def test_a_byte_order_mark_or_a_compressed_body_is_named_not_called_malformed(
    client: AsyncTestClient[Litestar],
) -> None:
    sent = {"Authorization": f"Bearer {AGENT_TOKEN}", "Content-Type": "application/json"}
    body = b'{"actor": {"id": "ada", "tenantRef": "berlin"}, "text": ""}'

    marked = await client.post("/agent/runs/run_1/digest", content=b"\xef\xbb\xbf" + body, headers=sent)
    compressed = await client.post(
        "/agent/runs/run_1/digest", content=gzip.compress(body), headers={**sent, "Content-Encoding": "gzip"}
    )
    identity = {**sent, "Content-Encoding": "identity"}
    plain = await client.post("/agent/runs/run_1/digest", content=body, headers=identity)

    assert (marked.status_code, marked.json()) == (400, {"error": BYTE_ORDER_MARK})
    assert compressed.status_code == 415
    assert compressed.json() == {"error": f"{COMPRESSED}; this one came with Content-Encoding: gzip."}
    assert plain.status_code == 200, plain.text


async def test_json_sent_with_a_charset_is_json(client: AsyncTestClient[Litestar]) -> None:
    sent = {"Authorization": f"Bearer {AGENT_TOKEN}", "Content-Type": "application/json; charset=utf-8"}
    body = b'{"actor": {"id": "ada", "tenantRef": "berlin"}, "text": ""}'

    answer = await client.post("/agent/runs/run_1/digest", content=body, headers=sent)

    assert answer.status_code == 200, answer.text
