"""The OpenAPI document names every schema by its class alone. Litestar names two classes that share a
name by the paths of their modules instead (`readback_OriginOut`), so moving a module would rename a
schema of the public API, and every client generated from the document with it."""

from __future__ import annotations

from litestar import Litestar
from litestar.testing import AsyncTestClient


async def test_every_schema_in_the_document_is_named_by_its_class_alone(client: AsyncTestClient[Litestar]) -> None:
    schemas = (await client.get("/schema/openapi.json")).json()["components"]["schemas"]

    named_by_module = {name: schema["title"] for name, schema in schemas.items() if schema.get("title", name) != name}

    assert named_by_module == {}
