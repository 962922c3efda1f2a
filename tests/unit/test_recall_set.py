"""The recall set (`bench/recall_set.py`) is what it claims to be: enough topical pairs in each language
(and the inferential ones kept for reference), every pair of a known kind, none of which a word search
could find by a shared content word, each memory placed once among thousands of distractors that take
no memory's key."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from bench.recall import verdict
from bench.recall_set import (
    KINDS,
    LANGUAGES,
    PAIRS,
    Kind,
    Pair,
    build_recall_set,
    pairs_of,
    shared_content_words,
)

KEY = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
RECALL_SET = build_recall_set()
TOPICAL_AT_LEAST = {"en": 70, "de": 55, "fr": 55}
INFERENTIAL_AT_LEAST = 25
"""Per language: the inferential pairs are only printed for reference, but should not quietly vanish."""


def pair(key: str, fact: str, turn: str, language: str = "en", kind: Kind = "topical") -> Pair:
    return Pair(language=language, level="actor", key=key, fact=fact, turn=turn, kind=kind)


def line(**fields: Any) -> dict[str, Any]:
    """A line of `recall_set.json`: an English personal memory with a topical turn, changed by `fields`
    (a field given as None is left out)."""
    made = {"language": "en", "level": "actor", "key": "aisle-seat", "fact": "she always picks an aisle seat"}
    made["topical"] = "the airline is asking where I'd like to sit"
    made.update(fields)
    return {name: value for name, value in made.items() if value is not None}


@pytest.mark.parametrize(
    ("candidate", "shared"),
    [
        (pair("distance-units", "they report distances in kilometres", "how far is the depot?"), ()),
        (pair("distance-units", "they report distances in kilometres", "can you report on it?"), ("report",)),
        (pair("distance-units", "they report distances in kilometres", "send me the reports"), ("reports",)),
        (pair("distance-units", "they report distances in kilometres", "which units do we use?"), ("units",)),
        (pair("diet", "she is vegetarian", "what is on the menu for her?"), ()),
        (pair("reunions", "il préfère les réunions le matin", "une reunion demain ?", "fr"), ("reunion",)),
        (pair("meeting-zeiten", "sie bevorzugt Meetings", "MEETINGS morgen?", "de"), ("meetings",)),
        (pair("support-hours", "support is staffed 8:00–18:00", "anyone there at 8?"), ("8",)),
        (pair("kinder", "ihre Tochter ist sieben", "was schenke ich meinem Kind?", "de"), ("kind",)),
        (pair("hotel-rooms", "he likes quiet rooms", "book me a room", kind="inferential"), ("room",)),
        (pair("car", "he drives a Kia", "where are my cards?"), ()),
    ],
)
def test_shared_content_words_counts_whole_words_five_letter_prefixes_and_stems_but_not_function_words(
    candidate: Pair, shared: tuple[str, ...]
) -> None:
    assert shared_content_words(candidate) == shared


def test_no_turn_of_either_kind_shares_a_content_word_with_its_memory() -> None:
    sharing = {f"{p.language} {p.kind} {p.key}": shared_content_words(p) for p in PAIRS if shared_content_words(p)}
    assert sharing == {}


def test_each_language_holds_enough_topical_pairs_and_keeps_its_inferential_ones() -> None:
    counts = Counter(f"{p.kind} {p.language}" for p in PAIRS)
    wanted = {f"topical {language}": TOPICAL_AT_LEAST[language] for language in LANGUAGES} | {
        f"inferential {language}": INFERENTIAL_AT_LEAST for language in LANGUAGES
    }
    short = {row: counts[row] for row, least in wanted.items() if counts[row] < least}
    assert short == {}, counts
    assert {p.language for p in PAIRS} == set(LANGUAGES)


def test_every_pair_has_a_known_kind() -> None:
    assert [f"{p.key}: {p.kind!r}" for p in PAIRS if p.kind not in KINDS] == []


def test_a_memory_has_at_most_one_pair_of_each_kind() -> None:
    assert [key for key, count in Counter((p.key, p.kind) for p in PAIRS).items() if count > 1] == []


def test_a_line_with_both_turns_gives_the_topical_pair_then_the_inferential_one() -> None:
    pairs = pairs_of(line(inferential="book me the 7am to Madrid"))
    assert [(p.kind, p.turn) for p in pairs] == [
        ("topical", "the airline is asking where I'd like to sit"),
        ("inferential", "book me the 7am to Madrid"),
    ]
    assert {(p.key, p.fact, p.language, p.level) for p in pairs} == {
        ("aisle-seat", "she always picks an aisle seat", "en", "actor")
    }


@pytest.mark.parametrize(
    "bad",
    [
        line(topical=None),
        line(topical=None, topicl="where would I like to sit?"),
        line(related="where would I like to sit?"),
        line(topical="  "),
        line(inferential=3),
        line(fact=None),
        line(language="es"),
        line(level="team"),
    ],
)
def test_a_line_without_a_turn_or_with_an_unknown_kind_field_language_or_level_is_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="recall set line"):
        pairs_of(bad)


def test_pairs_that_share_a_key_but_not_a_fact_cannot_be_placed() -> None:
    first = pair("aisle-seat", "she always picks an aisle seat", "where do I like to sit?")
    second = pair("aisle-seat", "she always picks a window seat", "book me the 7am", kind="inferential")
    with pytest.raises(ValueError, match="aisle-seat"):
        build_recall_set([first, second], distractors=10)


def test_each_memory_is_placed_once_and_its_pairs_share_it_and_the_person_who_asks() -> None:
    placed: dict[str, set[tuple[object, object]]] = {}
    for case in RECALL_SET.cases:
        placed.setdefault(case.pair.key, set()).add((case.memory, case.actor))
    assert [key for key, placings in placed.items() if len(placings) > 1] == []
    assert len(RECALL_SET.memories) - len(RECALL_SET.distractors) == len({p.key for p in PAIRS})
    assert len(RECALL_SET.cases) == len(PAIRS)


def test_keys_are_lowercase_hyphenated_and_unique_across_memories_and_distractors() -> None:
    keys = [memory.key for memory in RECALL_SET.memories]
    assert [key for key, count in Counter(keys).items() if count > 1] == []
    assert [key for key in keys if not KEY.fullmatch(key)] == []


def test_there_are_three_thousand_distractors_and_none_takes_a_pair_key() -> None:
    assert len(RECALL_SET.distractors) >= 3_000
    assert {p.key for p in PAIRS}.isdisjoint(d.key for d in RECALL_SET.distractors)


def test_every_fact_is_one_line_of_at_most_240_characters() -> None:
    too_long = [m.key for m in RECALL_SET.memories if len(m.fact) > 240 or "\n" in m.fact or not m.fact.strip()]
    assert too_long == []


def test_every_turn_is_asked_by_someone_whose_scopes_hold_its_memory() -> None:
    for case in RECALL_SET.cases:
        actor = case.actor
        assert case.memory.scope in (f"actor:{actor.id}", f"tenant:{actor.tenant_ref}", "global"), case.pair.key


def test_the_set_is_the_same_every_time_it_is_built() -> None:
    assert build_recall_set() == RECALL_SET


@pytest.mark.parametrize(
    ("kind", "lexical", "hybrid", "shown"),
    [
        ("topical", 0.40, 0.90, "≥0.9, ≥2× ok"),
        ("topical", 0.0, 0.95, "≥0.9, ≥2× ok"),
        ("topical", 0.10, 0.89, "≥0.9, ≥2× MISSED"),
        ("topical", 0.50, 0.95, "≥0.9, ≥2× MISSED"),
        ("inferential", 0.10, 0.20, "reference"),
        ("inferential", 0.10, 0.95, "reference"),
    ],
)
def test_the_target_applies_to_topical_rows_and_inferential_rows_are_reference(
    kind: str, lexical: float, hybrid: float, shown: str
) -> None:
    assert verdict(kind, lexical, hybrid) == shown
