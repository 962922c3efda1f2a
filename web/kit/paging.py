"""What a listed view is asked for and where it is: its page number, its address with its query, and the
query of the view a form came back from."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlencode, urlsplit

from litestar.plugins.htmx import HTMXRequest

from web.kit.security import safe_next_path

__all__ = (
    "MAX_PAGE",
    "MAX_QUERY_CHARS",
    "ListQuery",
    "PageLink",
    "PagerView",
    "back_params",
    "page_number",
    "page_numbers",
    "pager",
    "query_href",
    "search_text",
)

MAX_PAGE = 1_000_000
MAX_QUERY_CHARS = 200


def page_number(raw: str | None) -> int:
    """A `page=` query value as a page number: ASCII digits only ("²" is a digit to Python, and `int`
    refuses it), at least 1, at most `MAX_PAGE` however many digits were sent; anything else is page 1."""
    if not raw or not raw.isascii() or not raw.isdigit():
        return 1
    return MAX_PAGE if len(raw) > len(str(MAX_PAGE)) else max(1, min(int(raw), MAX_PAGE))


def search_text(raw: str | None) -> str:
    """Text typed into a search box as the search uses it: runs of white space as one space, none at
    either end, at most `MAX_QUERY_CHARS` characters."""
    return " ".join((raw or "").split())[:MAX_QUERY_CHARS]


class ListQuery(ABC):
    """What a listed view was asked for: a frozen dataclass of its filters and page, whose address is
    `path` with the `pairs` that have a value as its query. Every list page's query object is one."""

    __slots__ = ()
    path: ClassVar[str]

    @abstractmethod
    def pairs(self) -> list[tuple[str, str]]:
        """The query's names and values in the address's order; an empty value is left out."""

    def href(self, **changes: Any) -> str:
        """This query's address with `changes` applied; defaults are left out of it."""
        return self.at(self.path, **changes)

    def at(self, path: str, **changes: Any) -> str:
        """The same query on another address (a download of the same filtered list)."""
        changed: ListQuery = replace(self, **changes)  # type: ignore[type-var]
        return query_href(path, changed.pairs())


def query_href(path: str, pairs: Iterable[tuple[str, str]]) -> str:
    """`path` with the pairs that have a value as its query, in their order; `path` alone when none has
    (so a view's address leaves its defaults out)."""
    encoded = urlencode([(name, value) for name, value in pairs if value])
    return f"{path}?{encoded}" if encoded else path


def back_params(request: HTMXRequest, back: str, path: str) -> dict[str, str]:
    """The query of the view a form came from: for htmx the address the browser shows, otherwise the
    form's `back` field. Only a local address on `path` is read; anything else reads as no query."""
    current = request.htmx.current_url if request.htmx else None
    if current:
        parts = urlsplit(current)
        back = f"{parts.path}?{parts.query}" if parts.query else parts.path
    parts = urlsplit(safe_next_path(back))
    if parts.path != path:
        return {}
    return {name: values[0] for name, values in parse_qs(parts.query).items()}


@dataclass(frozen=True, slots=True)
class PageLink:
    """One numbered page in a pager; `number` 0 stands for the pages left out between two shown."""

    number: int
    href: str | None
    current: bool = False


def page_numbers(page: int, pages: int, around: int = 2) -> tuple[int, ...]:
    """The page numbers a pager names: the first, the last, and `around` either side of `page`, with a
    0 where pages are left out between them (one page left out is named instead of its gap)."""
    named = sorted({1, pages, *range(max(1, page - around), min(pages, page + around) + 1)})
    numbers: list[int] = []
    for number in named:
        if numbers and number - numbers[-1] == 2:
            numbers.append(number - 1)
        elif numbers and number - numbers[-1] > 2:
            numbers.append(0)
        numbers.append(number)
    return tuple(numbers)


@dataclass(frozen=True, slots=True)
class PagerView:
    """Where a paged list is: page `page` of `pages`, showing entries `first` to `last` (1-based) of
    `of`, with the addresses of the pages around it (None where there is none)."""

    page: int
    pages: int
    first: int
    last: int
    of: int
    first_href: str | None
    previous_href: str | None
    next_href: str | None
    last_href: str | None
    numbers: tuple[PageLink, ...] = ()
    """The numbered pages around this one, the first and the last (`page_numbers`)."""


def pager(*, page: int, pages: int, start: int, shown: int, of: int, href: Callable[[int], str]) -> PagerView | None:
    """The pager of a list `shown` entries of which, from index `start`, are on page `page`; `href`
    addresses a page by its number. None for a list that fits on one page."""
    if pages <= 1:
        return None
    earlier, later = page > 1, page < pages
    return PagerView(
        page=page,
        pages=pages,
        first=start + 1,
        last=start + shown,
        of=of,
        first_href=href(1) if earlier else None,
        previous_href=href(page - 1) if earlier else None,
        next_href=href(page + 1) if later else None,
        last_href=href(pages) if later else None,
        numbers=tuple(PageLink(n, href(n) if n else None, n == page) for n in page_numbers(page, pages)),
    )
