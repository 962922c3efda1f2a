"""Relevance, pure: what a word is, and how BM25 scores a record against a turn's words."""

from __future__ import annotations

import itertools
import math

import pytest

from store.domain.relevance import (
    IDF_FLOOR,
    MAX_QUERY_WORDS,
    SCORE_UNITS,
    CorpusStats,
    bm25_score,
    query_words,
    record_words,
    text_words,
)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", []),
        ("  ?! — … ", []),
        ("Fiscal YEAR", ["fiscal", "year"]),
        ("fiscal-year, fiscal_year", ["fiscal", "year", "fiscal_year"]),
        ("Ｆｉｓｃａｌ", ["fiscal"]),  # full-width letters are the same word (NFKC)
        ("Straße STRASSE", ["strasse", "strasse"]),  # case folding, not only lower-casing
        ("über uber", ["über", "uber"]),  # diacritics are kept
        ("e\u0301te\u0301", ["été"]),  # a decomposed accent is composed first, not a separator
        ('"pallet" AND NEAR(x, 2) -y* a:b', ["pallet", "and", "near", "x", "2", "y", "a", "b"]),
        ("日本語 のラベル 😀🔥", ["日本語", "の", "ラベル"]),  # ICU cuts the particle from the noun (test_words.py)
        ("\x00pallet\x00", ["pallet"]),
    ],
)
def test_a_word_is_a_run_of_letters_digits_and_underscores_normalised_and_case_folded(
    text: str, words: list[str]
) -> None:
    assert text_words(text) == words


def test_a_record_is_found_by_its_key_then_its_text_repeats_kept() -> None:
    assert record_words("fiscal-year", "the fiscal year starts") == [
        "fiscal",
        "year",
        "the",
        "fiscal",
        "year",
        "starts",
    ]


def test_a_turns_words_are_distinct_in_first_appearance_order() -> None:
    assert query_words("Year? the YEAR, fiscal the") == ("year", "the", "fiscal")


def test_a_turn_is_searched_with_at_most_the_cap_of_distinct_words() -> None:
    text = " ".join(f"w{n}" for n in range(MAX_QUERY_WORDS + 50)) + " w0 w1"

    words = query_words(text)

    assert len(words) == MAX_QUERY_WORDS
    assert words[:2] == ("w0", "w1")
    assert words[-1] == f"w{MAX_QUERY_WORDS - 1}"


def test_the_statistics_count_records_words_and_per_scope_holders_once_per_record() -> None:
    stats = CorpusStats.of([("a", ["x", "x", "y"]), ("a", ["x"]), ("b", ["x"])])

    assert (stats.records, stats.words) == (3, 5)
    assert stats.holding == {("a", "x"): 2, ("a", "y"): 1, ("b", "x"): 1}


def _stats(*records: tuple[str, list[str]]) -> CorpusStats:
    return CorpusStats.of(list(records))


def test_a_record_holding_none_of_the_words_scores_zero() -> None:
    stats = _stats(("a", ["x"]), ("a", ["y"]))

    assert bm25_score(("z",), "a", ["x"], stats) == 0
    assert bm25_score((), "a", ["x"], stats) == 0


def test_the_score_is_okapi_bm25_with_fts5s_constants_in_whole_units() -> None:
    # 4 records, 10 words: average length 2.5. The record has 2 words, "x" twice; 1 record holds it.
    stats = _stats(("a", ["x", "x"]), ("a", ["y", "z", "w"]), ("a", ["y", "z"]), ("a", ["y", "z", "w"]))
    idf = math.log((4 - 1 + 0.5) / (1 + 0.5))
    share = idf * (2 * 2.2) / (2 + 1.2 * (1 - 0.75 + 0.75 * 2 / 2.5))

    score = bm25_score(("x",), "a", ["x", "x"], stats)

    assert isinstance(score, int)
    assert score == math.floor(share * 2**40)
    assert score / SCORE_UNITS == pytest.approx(share, rel=1e-12)


def _float_share(word: str, words: list[str], stats: CorpusStats) -> float:
    """A word's share as a float, FTS5's way, for comparison."""
    tf, held = float(words.count(word)), stats.holding[("a", word)]
    idf = math.log((stats.records - held + 0.5) / (held + 0.5))
    return idf * ((tf * 2.2) / (tf + 1.2 * (1 - 0.75 + 0.75 * len(words) / (stats.words / stats.records))))


def test_a_score_is_the_sum_of_each_words_truncated_share_the_same_in_any_order() -> None:
    words = ["x", "v", "y", "x"]
    stats = _stats(("a", words), ("a", ["y", "y", "y", "y", "u"]), ("a", ["w", "y", "v"]))
    floats = {sum(_float_share(w, words, stats) for w in order) for order in itertools.permutations("xvy")}
    assert len(floats) == 2, "as floats, the order of the words changes the last bit of this sum"

    scores = {bm25_score(order, "a", words, stats) for order in itertools.permutations("xvy")}

    assert scores == {sum(bm25_score((w,), "a", words, stats) for w in "xvy")}
    assert scores != {int(sum(_float_share(w, words, stats) for w in "xvy") * SCORE_UNITS)}, "not the sum truncated"


def test_a_rarer_word_weighs_more_than_a_common_one() -> None:
    stats = _stats(
        ("a", ["the", "forklift"]),
        ("a", ["the", "charger"]),
        ("a", ["the", "dock"]),
        ("a", ["the", "hall"]),
        ("a", ["yard", "gate"]),
    )

    rare = bm25_score(("the", "forklift"), "a", ["the", "forklift"], stats)
    common = bm25_score(("the", "forklift"), "a", ["the", "charger"], stats)

    assert rare > common > 0


def test_document_counts_are_taken_within_the_records_scope() -> None:
    # "pallet" is everywhere at tenant:hamburg, rare at tenant:berlin: Berlin's record is not drowned.
    stats = _stats(
        *[("tenant:hamburg", ["pallet", f"h{n}"]) for n in range(6)],
        ("tenant:berlin", ["pallet", "labels"]),
        ("tenant:berlin", ["depot", "code"]),
    )

    berlin = bm25_score(("pallet",), "tenant:berlin", ["pallet", "labels"], stats)
    hamburg = bm25_score(("pallet",), "tenant:hamburg", ["pallet", "h0"], stats)

    assert berlin > hamburg > 0


def test_a_word_held_by_most_records_still_counts_a_little() -> None:
    stats = _stats(("a", ["the"]), ("a", ["the"]), ("a", ["the", "x"]))

    score = bm25_score(("the",), "a", ["the"], stats)

    assert 0 < score / SCORE_UNITS < 10 * IDF_FLOOR
    assert score > 100_000, "far from the last unit"


def test_a_longer_record_scores_less_for_the_same_word() -> None:
    stats = _stats(("a", ["x", "y"]), ("a", ["x", "y", "z", "w", "v", "u"]), ("a", ["q"]), ("a", ["r"]), ("a", ["s"]))

    short = bm25_score(("x",), "a", ["x", "y"], stats)
    long = bm25_score(("x",), "a", ["x", "y", "z", "w", "v", "u"], stats)

    assert short > long > 0
