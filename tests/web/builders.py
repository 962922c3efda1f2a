"""Builders for the dashboard's tests: records, seeding, and reading a response as an HTML tree."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from httpx import Response

from store import Actor, Author, MemoryOrigin, MemoryRecord
from tests.web.html_tree import Element, parse
from web.services import Services

__all__ = ("ADA", "BOB", "HTMX", "make_record", "page_of", "seed")

ADA = Actor(id="ada", tenant_ref="berlin")
BOB = Actor(id="bob", tenant_ref="berlin")
HTMX = {"HX-Request": "true"}


def make_record(
    id: str,
    key: str,
    text: str,
    scope: str = "actor:ada",
    *,
    author: Author = "agent",
    actor_ref: str | None = "ada",
    thread_id: str | None = None,
    run_id: str | None = None,
    days_ago: float = 3,
    pinned: bool = False,
) -> MemoryRecord:
    return MemoryRecord(
        id=id,
        key=key,
        text=text,
        scope=scope,
        origin=MemoryOrigin(author=author, thread_id=thread_id, run_id=run_id, actor_ref=actor_ref),
        updated_at=datetime.now(UTC) - timedelta(days=days_ago),
        pinned=pinned,
    )


async def seed(services: Services, *records: MemoryRecord) -> None:
    await services.provider.add(records)


def page_of(response: Response) -> Element:
    assert response.headers["content-type"].startswith("text/html"), response.headers["content-type"]
    return parse(response.text)
