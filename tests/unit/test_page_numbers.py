"""Which page numbers a pager names: the first, the last and a few either side, gaps said once."""

from __future__ import annotations

import pytest

from web.kit.paging import page_numbers, pager


@pytest.mark.parametrize(
    ("page", "pages", "named"),
    [
        (1, 1, (1,)),
        (1, 2, (1, 2)),
        (1, 200, (1, 2, 3, 0, 200)),
        (100, 200, (1, 0, 98, 99, 100, 101, 102, 0, 200)),
        (200, 200, (1, 0, 198, 199, 200)),
        (4, 7, (1, 2, 3, 4, 5, 6, 7)),
        (5, 9, (1, 2, 3, 4, 5, 6, 7, 8, 9)),
        (6, 12, (1, 0, 4, 5, 6, 7, 8, 0, 12)),
    ],
)
def test_a_pager_names_the_ends_and_the_pages_around_this_one(page: int, pages: int, named: tuple[int, ...]) -> None:
    assert page_numbers(page, pages) == named


def test_each_named_page_has_its_address_and_this_one_is_marked() -> None:
    view = pager(page=3, pages=9, start=100, shown=50, of=420, href=lambda n: f"/?page={n}")

    assert view is not None
    assert [(link.number, link.href, link.current) for link in view.numbers] == [
        (1, "/?page=1", False),
        (2, "/?page=2", False),
        (3, "/?page=3", True),
        (4, "/?page=4", False),
        (5, "/?page=5", False),
        (0, None, False),
        (9, "/?page=9", False),
    ]
