"""People and records for the elevated area's tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from httpx import Response

from store import Actor, Author, MemoryOrigin, MemoryRecord
from tests.web.html_tree import Element, parse

__all__ = ("ADA", "GIL", "JONAS", "LENA", "SAM", "csrf_of", "notice_of", "shared", "tree")

LENA = Actor("lena", "berlin", ("onfile-admin",))  # administers tenant:berlin
JONAS = Actor("jonas", "hamburg", ("onfile-admin",))  # administers tenant:hamburg
GIL = Actor("gil", "berlin", ("onfile-global-admin",))  # administers global, and no tenant
ADA = Actor("ada", "berlin")  # an end user
SAM = Actor("sam", "berlin", ("onfile-support",))  # may preview prompts


def shared(
    key: str,
    text: str,
    scope: str = "tenant:berlin",
    *,
    pinned: bool = False,
    author: Author = "human",
    by: str = "lena",
    days_ago: float = 2,
    id: str | None = None,
) -> MemoryRecord:
    return MemoryRecord(
        id=id or f"mem_{scope.replace(':', '_')}_{key}",
        key=key,
        text=text,
        scope=scope,
        origin=MemoryOrigin(author=author, actor_ref=by),
        updated_at=datetime.now(UTC) - timedelta(days=days_ago),
        pinned=pinned,
    )


def tree(response: Response) -> Element:
    assert response.headers["content-type"].startswith("text/html"), response.headers["content-type"]
    return parse(response.text)


def csrf_of(page: Element) -> str:
    return page.find("input", {"name": "csrf_token"})["value"]  # type: ignore[index]


def notice_of(page: Element) -> Element | None:
    return page.find(attrs={"data-notice": True})
