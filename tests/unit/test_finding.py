"""Finding memories by their words on the person's page, and the orders the page lists them in."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from store import MemoryOrigin, MemoryRecord
from store.domain.finding import (
    ORDERS,
    Order,
    fold,
    folded,
    in_page_order,
    marked_pieces,
    matches_all,
    search_words,
    sought_person,
    word_spans,
)


@pytest.mark.parametrize(
    ("word", "as_compared"),
    [
        ("Kilometres", "kilometres"),
        ("KILOMÈTRES", "kilometres"),
        ("Straße", "strasse"),
        ("Ćevapi", "cevapi"),
        ("İstanbul", "istanbul"),
        ("ｆｉｓｃａｌ", "fiscal"),
        ("𝐁𝐨𝐥𝐝", "bold"),
        ("ℍ𝕠𝕥𝕖𝕝", "hotel"),
        ("ℚ", "q"),
        ("Łódź", "lodz"),
        ("SØREN", "soren"),
        ("Đặng", "dang"),
        ("Æbeltoft", "aebeltoft"),
        ("Œuvre", "oeuvre"),
        ("Ħamrun", "hamrun"),
        ("Ðanni", "danni"),
        ("Þór", "þor"),
        ("ﬁnal", "final"),
        ("ΣΊΣΥΦΟΣ", "σισυφοσ"),
        ("ありがとう", "ありがとう"),
        ("ง่าย", "ง่าย"),
        ("עִבְרִית", "עִבְרִית"),
    ],
)
def test_a_word_is_folded_to_its_case_free_accent_free_form_and_other_scripts_keep_their_marks(
    word: str, as_compared: str
) -> None:
    assert fold(word) == as_compared


@pytest.mark.parametrize(
    ("query", "text", "found"),
    [
        ("kilometres", "report distances in kilometres", True),
        ("kilom", "report distances in kilometres", True),
        ("lodz", "the depot in Łódź", True),
        ("łódź", "the depot in Lodz", True),
        ("soren aebel", "Søren lives in Æbeltoft", True),
        ("lometres", "report distances in kilometres", False),
        ("report Thursdays", "they report on Thursday", True),
        ("thursdays report", "they report on Thursday", True),
        ("report Fridays", "they report on Thursday", False),
        ("miles", "one mile", True),
        ("miles", "claims for mileage", False),
        ("boxes", "one box", True),
        ("buses", "by bus", True),
        ("churches", "the church", True),
        ("bus", "by bus", True),
        ("gas", "gas", True),
        ("ISO DATES", "write iso dates", True),
        ("kilomètres", "Kilometres", True),
        ("strasse", "Hauptstraße", False),
        ("hauptstrasse", "Hauptstraße 3", True),
        ("fiscal-year", "fiscal year", True),
        ("year fiscal", "fiscal-year", True),
        ("", "anything", True),
        ("— !", "anything", True),
        ("公里 距离", "他们用公里报告距离", True),
        ("距离", "他们用公里报告距离", True),
        ("公里 时间", "他们用公里报告距离", False),
        ("東京", "東京で働いています", True),
        ("大阪", "東京で働いています", False),
        ("ภาษา", "ฉันชอบภาษาไทย", True),
        ("ไทย ชอบ", "ฉันชอบภาษาไทย", True),
        ("ญี่ปุ่น", "ฉันชอบภาษาไทย", False),
        ("😀 miles", "miles 😀", True),
    ],
)
def test_every_word_of_a_search_begins_a_word_of_the_memory_in_any_order(query: str, text: str, found: bool) -> None:
    assert matches_all(search_words(query), [folded(text)]) is found


def test_the_words_may_be_found_across_the_key_the_fact_and_the_wider_values() -> None:
    texts = [folded("units"), folded("road distances in miles"), folded("report in kilometres")]

    assert matches_all(search_words("units kilometres"), texts)
    assert not matches_all(search_words("units furlongs"), texts)
    assert matches_all((), [])


def test_a_search_names_each_word_once_in_the_order_typed() -> None:
    assert search_words("Miles, miles and MILES; kilometres") == ("miles", "and", "kilometres")


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("", []),
        ("Ada's units", [(0, 3, "ada"), (4, 5, "s"), (6, 11, "units")]),
        ("fiscal_year", [(0, 11, "fiscal_year")]),
        ("__ x", [(3, 4, "x")]),
        ("😀 Straße", [(2, 8, "strasse")]),
        ("ห้า 😀 ง่าย", [(0, 3, "ห้า"), (6, 10, "ง่าย")]),
        ("距离😀公里", [(0, 2, "距离"), (3, 5, "公里")]),
    ],
)
def test_each_word_is_found_where_it_is_written(text: str, spans: list[tuple[int, int, str]]) -> None:
    assert word_spans(text) == spans
    assert all(fold(text[start:end]) == word for start, end, word in spans)


@pytest.mark.parametrize(
    ("text", "query", "pieces"),
    [
        ("road distances", "", (("road distances", False),)),
        ("", "", ()),
        ("", "road", ()),
        (
            "they report on Thursday",
            "report thursdays",
            (("they ", False), ("report", True), (" on ", False), ("Thursday", True)),
        ),
        ("Kilomètres!", "kilom", (("Kilomètres", True), ("!", False))),
        ("road distances", "miles", (("road distances", False),)),
        ("他们用公里报告距离", "距离", (("他们用公里报告", False), ("距离", True))),
    ],
)
def test_the_words_a_search_matched_are_marked_where_they_are_written(
    text: str, query: str, pieces: tuple[tuple[str, bool], ...]
) -> None:
    assert marked_pieces(text, search_words(query)) == pieces


NOW = datetime(2026, 12, 5, tzinfo=UTC)


def record(record_id: str, key: str, days_ago: float) -> MemoryRecord:
    origin = MemoryOrigin(author="agent")
    return MemoryRecord(record_id, key, "fact", "actor:ada", origin, NOW - timedelta(days=days_ago))


@pytest.mark.parametrize(
    ("order", "expected"),
    [
        ("newest", ["m_b", "m_a1", "m_a2", "m_c", "m_old"]),
        ("oldest", ["m_old", "m_c", "m_a1", "m_a2", "m_b"]),
        ("key", ["m_old", "m_a1", "m_a2", "m_b", "m_c"]),
    ],
)
def test_the_page_sorts_by_newest_oldest_or_key_and_ties_go_to_the_key_then_the_id(
    order: Order, expected: list[str]
) -> None:
    records = [
        record("m_c", "charlie", 2),
        record("m_old", "Alpha", 9),
        record("m_a2", "alpha", 0),
        record("m_a1", "alpha", 0),
        record("m_b", "Bravo", -1),
    ]

    assert [r.id for r in in_page_order(order, records)] == expected
    assert order in ORDERS


@pytest.mark.parametrize(
    ("sought", "person_id", "name", "found"),
    [
        ("ada", "ada", None, True),  # the id, exactly: someone an assistant spoke for, never signed in
        ("ad", "ada", None, False),  # an id is not searched by its start: it names one person
        ("ADA", "ada", None, False),
        ("lovelace", "u-17", "Ada Lovelace", True),
        ("LOVE ada", "u-17", "Ada Lovelace", True),  # every word begins a word of the name, any order
        ("ada grace", "u-17", "Ada Lovelace", False),
        ("zoe", "u-18", "Zoë Müller", True),
        ("muller zo", "u-18", "Zoë Müller", True),
        ("lace", "u-17", "Ada Lovelace", False),  # inside a word is not the start of one
        ("小明", "u-19", "王小明", True),  # a name written without spaces is cut into words (王 · 小明)
        ("明", "u-19", "王小明", False),
        ("  ", "u-17", "Ada Lovelace", False),
        ("ada", "u-17", "", False),
    ],
)
def test_a_person_is_found_by_their_exact_id_or_by_every_word_of_their_name(
    sought: str, person_id: str, name: str | None, found: bool
) -> None:
    assert sought_person(sought, person_id, name) is found
