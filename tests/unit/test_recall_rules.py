"""The recall rules: fusing the ranking by words with the ranking by meaning, and filling the block."""

from __future__ import annotations

import pytest

from store.domain.recall import (
    MEANING_CHARS_AT_MOST,
    RRF_K,
    content_words,
    fuse_rankings,
    listed_keys,
    listed_rows,
    meaning_text,
)
from tests.builders import make_record

LISTED = ["a", "b", "c", "d", "e"]


@pytest.mark.parametrize(
    ("rankings", "limit", "expected"),
    [
        # nothing ranked: the listed order, up to the limit
        (((), ()), 3, ["a", "b", "c"]),
        # meaning alone ranks a turn that shares no word with anything, and the rest fills the block
        (((), ("d",)), 3, ["d", "a", "b"]),
        # a key both rankings hold beats a key one ranking holds first
        ((("c", "e"), ("e", "b")), 2, ["e", "c"]),
        # equal fused scores go to the listed order
        ((("d",), ("b",)), 2, ["b", "d"]),
        # a ranked key that does not apply to the turn is dropped
        ((("zzz", "c"), ()), 2, ["c", "a"]),
        # a key repeated within one ranking counts once, at its first place
        ((("e", "e", "e"), ("d",)), 2, ["d", "e"]),
        # a full block takes no listed key
        ((("e", "d", "c"), ()), 2, ["e", "d"]),
        # room for everything: every listed key
        ((("b",), ()), 10, ["b", "a", "c", "d", "e"]),
        # no room
        ((("a",), ("a",)), 0, []),
        ((("a",), ("a",)), -1, []),
    ],
)
def test_fusion_ranks_by_both_and_fills_the_block_in_listed_order(
    rankings: tuple[tuple[str, ...], ...], limit: int, expected: list[str]
) -> None:
    assert fuse_rankings(rankings, LISTED, limit) == expected


def test_a_first_place_in_one_ranking_weighs_less_than_second_places_in_both() -> None:
    lexical = ["x", "y"]
    semantic = ["z", "y"]

    assert fuse_rankings((lexical, semantic), ["x", "y", "z"], 1) == ["y"]
    assert 1 / (RRF_K + 1) < 2 / (RRF_K + 2)


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        ([], ([], [])),
        ([("a", False), ("b", False)], (["a", "b"], [])),
        # a key takes the place of its first (narrowest, newest) row
        ([("b", False), ("a", False), ("b", False)], (["b", "a"], [])),
        # a key is pinned when any of its records is, once
        ([("a", False), ("b", True), ("a", True), ("a", True)], (["a", "b"], ["b", "a"])),
    ],
)
def test_listed_keys_take_their_first_rows_place_and_any_pin(
    rows: list[tuple[str, bool]], expected: tuple[list[str], list[str]]
) -> None:
    assert listed_keys(rows) == expected


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (("how", "far", "away", "is", "the", "depot"), ("far", "away", "depot")),
        (("wie", "weit", "ist", "das", "lager"), ("weit", "lager")),
        (("où", "est", "le", "dépôt"), ("dépôt",)),
        (("dónde", "está", "el", "almacén"), ("dónde", "está", "almacén")),
        (("他们", "用", "公里"), ("他们", "用", "公里")),
        (("the", "and"), ()),
    ],
)
def test_the_ranking_by_words_is_asked_with_content_words_only(
    words: tuple[str, ...], expected: tuple[str, ...]
) -> None:
    assert content_words(words) == expected


@pytest.mark.parametrize(
    ("held", "expected"),
    [
        # narrowest scope first, whatever the age
        ([("b", "global", 0), ("a", "actor:ada", 5)], [("a", False), ("b", False)]),
        # within a scope, newest first
        ([("a", "tenant:berlin", 3), ("b", "tenant:berlin", 1)], [("b", False), ("a", False)]),
        # the same moment: by key
        ([("c", "global", 2), ("a", "global", 2), ("b", "global", 2)], [("a", False), ("b", False), ("c", False)]),
        # a key held at two scopes is listed at both places, its narrowest first
        ([("k", "global", 0), ("k", "actor:ada", 9)], [("k", False), ("k", False)]),
        ([], []),
    ],
)
def test_records_are_listed_narrowest_scope_first_then_newest_then_by_key(
    held: list[tuple[str, str, float]], expected: list[tuple[str, bool]]
) -> None:
    records = [make_record(key, "a fact", scope, age_days=age) for key, scope, age in held]

    assert listed_rows(records, ["actor:ada", "tenant:berlin", "global"]) == expected


def test_a_listed_row_carries_its_record_s_pin() -> None:
    records = [make_record("a", scope="global", pinned=True), make_record("b", scope="actor:ada")]

    assert listed_rows(records, ["actor:ada", "global"]) == [("b", False), ("a", True)]


_OPENING, _MIDDLE, _CLOSE = "how far is the depot? " * 23, "filler " * 20_000, " which way is shorter?" * 23


@pytest.mark.parametrize(
    ("turn", "expected"),
    [
        # a turn of any usual length is its own meaning, whole
        ("how far is the depot?", "how far is the depot?"),
        ("", ""),
        ("x" * MEANING_CHARS_AT_MOST, "x" * MEANING_CHARS_AT_MOST),
        # one character more: its first and last halves, on two lines
        ("a" * 500 + "b" + "c" * 500, "a" * 500 + "\n" + "c" * 500),
        # a pasted document between a question and another: the opening and the close
        (_OPENING + _MIDDLE + _CLOSE, _OPENING[:500] + "\n" + _CLOSE[-500:]),
    ],
)
def test_a_turns_meaning_is_taken_from_at_most_its_opening_and_its_close(turn: str, expected: str) -> None:
    assert meaning_text(turn) == expected
    assert len(meaning_text(turn)) <= MEANING_CHARS_AT_MOST + 1
