"""Where a page starts, where a date jump lands, and the words a record is found by beneath it."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from store import MemoryOrigin, MemoryRecord, resolve_digest
from store.domain.finding import Order, folded_memory, needles, search_words, sort_key
from store.domain.paging import found_beneath, jump_instant, jump_page, page_start

ORIGIN = MemoryOrigin("human")
WHEN = datetime(2026, 3, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("matching", "page", "start"),
    [
        (0, 1, 0),
        (0, 7, 0),
        (49, 1, 0),
        (50, 2, 0),
        (51, 2, 50),
        (120, 3, 100),
        (120, 4, 100),
        (120, 0, 0),
        (120, -3, 0),
    ],
)
def test_a_page_starts_inside_the_list(matching: int, page: int, start: int) -> None:
    assert page_start(matching, page, 50) == start


@pytest.mark.parametrize(("ahead", "page"), [(0, 1), (49, 1), (50, 2), (99, 2), (100, 3), (-1, 1)])
def test_a_date_jump_lands_on_the_page_holding_the_first_record_past_those_ahead(ahead: int, page: int) -> None:
    assert jump_page(ahead, 50) == page


@pytest.mark.parametrize(
    ("day", "order", "cut"),
    [
        (date(2026, 3, 1), "newest", datetime(2026, 3, 2, tzinfo=UTC)),
        (date(2026, 12, 31), "newest", datetime(2027, 1, 1, tzinfo=UTC)),
        (date(2026, 3, 1), "oldest", datetime(2026, 3, 1, tzinfo=UTC)),
        (date(2026, 3, 1), "key", None),
        (date.max, "newest", datetime(9999, 12, 31, tzinfo=UTC)),
    ],
)
def test_a_date_jump_cuts_the_list_at_the_days_end_newest_first_and_at_its_start_oldest_first(
    day: date, order: Order, cut: datetime | None
) -> None:
    assert jump_instant(day, order) == cut


def record(id: str, key: str, text: str, scope: str) -> MemoryRecord:
    return MemoryRecord(id, key, text, scope, ORIGIN, WHEN)


def test_a_record_that_applies_is_found_by_the_words_of_the_values_it_beats_and_no_other() -> None:
    records = [
        record("own", "units", "miles", "actor:ada"),
        record("org", "units", "kilometres", "tenant:berlin"),
        record("all", "units", "metric everywhere", "global"),
        record("tone", "tone", "formal", "tenant:berlin"),
    ]
    entries = resolve_digest(records, scopes=("actor:ada", "tenant:berlin", "global"), max_memories=None).entries

    found = found_beneath(entries, ("kilom", "everywhere", "miles", "formal"))

    assert found == {
        "kilom": frozenset({"own"}),
        "everywhere": frozenset({"own"}),
        "miles": frozenset(),
        "formal": frozenset(),
    }


@pytest.mark.parametrize(
    ("key", "text", "query", "held"),
    [
        ("units", "Kilomètres", "kilom", True),
        ("Straße", "", "strasse", True),
        ("route", "they report on Thursday", "Thursdays", True),
        ("route", "the mileage", "miles", False),
        ("fiscal_year", "April", "fiscal_y", True),
    ],
)
def test_a_stored_folded_text_holds_a_search_word_as_the_rules_match_it(
    key: str, text: str, query: str, held: bool
) -> None:
    stored = folded_memory(key, text)
    (word,) = search_words(query)

    assert any(needle in stored for needle in needles(word)) is held


def test_the_order_by_key_compares_the_key_folded() -> None:
    assert sort_key("Ćevapi") == "cevapi"
