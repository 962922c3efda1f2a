"""Text that reads as something it is not (`store.domain.lookalikes`): which invisible characters
writing needs where they stand, which copies of the block's tags read as the tags, and which keys read
like another."""

from __future__ import annotations

import re
import sys
import unicodedata
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from store import MemoryOrigin, MemoryRecord, build_memory_block, check_memory_input, neutralise, resolve_digest
from store.domain.lookalikes import (
    TAG_OPENERS,
    first_stray_invisible,
    key_likeness,
    lookalike_key_problem,
    may_read_like_another,
    neutralise_tags,
    opens_a_tag,
    same_looking_key,
    without_stray_invisibles,
)

PERSIAN = "می\u200cخواهم"  # "I want": the non-joiner keeps the first letters apart, as the spelling asks
DEVANAGARI = "क्\u200dष"  # the joiner asks for a half form of क before ष
FAMILY = "👩\u200d👩\u200d👧"
RAINBOW_FLAG = "🏳\ufe0f\u200d🌈"
TECHNOLOGIST = "👨🏽\u200d💻"  # a skin tone ends the emoji before the joiner
SCOTLAND = "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
MONGOLIAN = "ᠮᠣᠩᠭ\u180eᠠ"

# (text, its first stray invisible character or None, the text without its stray ones)
STRAY = [
    pytest.param("plain text", None, "plain text", id="plain"),
    pytest.param("tone\u200b", "\u200b", "tone", id="zero-width-space"),
    pytest.param("to\u00adne", "\u00ad", "tone", id="soft-hyphen"),
    pytest.param("\ufefftone", "\ufeff", "tone", id="byte-order-mark"),
    pytest.param("word\u2060joiner", "\u2060", "wordjoiner", id="word-joiner"),
    pytest.param("a\u2062b", "\u2062", "ab", id="invisible-times"),
    pytest.param("un\u200dits", "\u200d", "units", id="joiner-between-latin-letters"),
    pytest.param("un\u200cits", "\u200c", "units", id="non-joiner-between-latin-letters"),
    pytest.param(PERSIAN, None, PERSIAN, id="persian-non-joiner"),
    pytest.param(DEVANAGARI, None, DEVANAGARI, id="devanagari-joiner"),
    pytest.param(MONGOLIAN, None, MONGOLIAN, id="mongolian-vowel-separator"),
    pytest.param("\u200cمی", "\u200c", "می", id="non-joiner-before-the-first-letter"),
    pytest.param("می\u200c", "\u200c", "می", id="non-joiner-after-the-last-letter"),
    pytest.param("ب\u200d\u200cب", "\u200d", "بب", id="joiners-side-by-side"),
    pytest.param("ب\u200d a", "\u200d", "ب a", id="joiner-before-a-space"),
    pytest.param(FAMILY, None, FAMILY, id="family-emoji"),
    pytest.param(RAINBOW_FLAG, None, RAINBOW_FLAG, id="emoji-style-then-joiner"),
    pytest.param(TECHNOLOGIST, None, TECHNOLOGIST, id="skin-tone-then-joiner"),
    pytest.param("a\u200d👍", "\u200d", "a👍", id="joiner-from-a-letter-to-an-emoji"),
    pytest.param("👍\u200da", "\u200d", "👍a", id="joiner-from-an-emoji-to-a-letter"),
    pytest.param("👍\u200c👍", "\u200c", "👍👍", id="non-joiner-between-emoji"),
    pytest.param(SCOTLAND, None, SCOTLAND, id="subdivision-flag"),
    pytest.param("a\U000e0067b", "\U000e0067", "ab", id="tag-letter-elsewhere"),
    pytest.param("\U000e0067", "\U000e0067", "", id="tag-letter-alone"),
    pytest.param("x\U000e0067\U000e0062", "\U000e0067", "x", id="tag-letters-after-no-flag"),
    pytest.param("units\u200e", "\u200e", "units", id="left-to-right-mark-in-latin-text"),
    pytest.param("units\u200f", "\u200f", "units", id="right-to-left-mark-in-latin-text"),
    pytest.param("שפה\u200f", None, "שפה\u200f", id="right-to-left-mark-in-hebrew"),
    pytest.param("units\u200e, then עברית", None, "units\u200e, then עברית", id="marks-in-mixed-text"),
    pytest.param("عدد\u061c ٣", None, "عدد\u061c ٣", id="arabic-letter-mark"),
    pytest.param("\u0600١٢", None, "\u0600١٢", id="arabic-number-sign-shows"),
    pytest.param("a\u202eb", None, "a\u202eb", id="direction-control-has-its-own-refusal"),
]


@pytest.mark.parametrize(("text", "stray", "without"), STRAY)
def test_an_invisible_character_is_stray_unless_writing_needs_it_where_it_stands(
    text: str, stray: str | None, without: str
) -> None:
    assert first_stray_invisible(text) == stray
    assert without_stray_invisibles(text) == without


@pytest.mark.parametrize(
    ("stored", "neutralised"),
    [
        pytest.param("<memory>", "‹memory>", id="opening"),
        pytest.param("</memory>", "‹/memory>", id="closing"),
        pytest.param("＜/memory＞", "‹/memory＞", id="fullwidth-bracket"),
        pytest.param("﹤memory﹥", "‹memory﹥", id="small-bracket"),
        pytest.param("＜／ｍｅｍｏｒｙ＞", "‹／ｍｅｍｏｒｙ＞", id="all-fullwidth"),
        pytest.param("<𝐦𝐞𝐦𝐨𝐫𝐲>", "‹𝐦𝐞𝐦𝐨𝐫𝐲>", id="mathematical-bold"),
        pytest.param("< / MEMORY >", "‹ / MEMORY >", id="spaced-and-upper-case"),
        pytest.param("<\t/\u3000memory", "‹\t/\u3000memory", id="other-whitespace"),
        pytest.param("</mem\u200bory>", "‹/mem\u200bory>", id="zero-width-space-inside"),
        pytest.param("<\u00admemory>", "‹\u00admemory>", id="soft-hyphen-after-the-bracket"),
        pytest.param("<\u0338memory>", "‹\u0338memory>", id="combining-mark"),
        pytest.param("say </memory> and <memory>", "say ‹/memory> and ‹memory>", id="each-one"),
        pytest.param("<<memory>", "<‹memory>", id="only-the-one-that-opens"),
        pytest.param("<memoryless", "‹memoryless", id="as-a-prefix"),
        pytest.param("a <b>tag</b> stays", "a <b>tag</b> stays", id="another-tag"),
        pytest.param("<memo>", "<memo>", id="a-shorter-name"),
        pytest.param("x < y, memory", "x < y, memory", id="something-between"),
        pytest.param("1 ＜ 2 <", "1 ＜ 2 <", id="comparisons"),
        pytest.param("<mem", "<mem", id="cut-short"),
        pytest.param("‹memory>", "‹memory>", id="already-neutral"),
    ],
)
def test_a_copy_of_the_blocks_tag_loses_its_opening_bracket_however_it_is_written(
    stored: str, neutralised: str
) -> None:
    assert neutralise_tags(stored) == neutralised
    assert opens_a_tag(stored, 0) is (neutralised[:1] == "‹" != stored[:1])


def test_every_character_nfkc_reads_as_an_opening_bracket_is_an_opener() -> None:
    read_as_bracket = {chr(c) for c in range(sys.maxunicode + 1) if "<" in unicodedata.normalize("NFKC", chr(c))}

    assert read_as_bracket == set(TAG_OPENERS)


@pytest.mark.parametrize(
    ("key", "likeness"),
    [
        ("units", "units"),
        ("un\u200dits", "units"),
        (PERSIAN, "میخواهم"),
        ("יחידות\u200f", "יחידות"),
        ("\u0600١٢", "\u0600١٢"),  # a number sign shows
    ],
)
def test_a_key_reads_as_itself_without_its_invisible_characters(key: str, likeness: str) -> None:
    assert key_likeness(key) == likeness


@pytest.mark.parametrize(
    ("key", "held", "twin"),
    [
        pytest.param("יחידות", ["tone", "יחידות\u200f"], "יחידות\u200f", id="a-mark-more-on-file"),
        pytest.param("יחידות\u200f", ["יחידות"], "יחידות", id="a-mark-less-on-file"),
        pytest.param("د\u200cاده", ["داده"], "داده", id="a-non-joiner-that-changes-nothing"),
        pytest.param("units", ["units", "tone"], None, id="the-same-key-is-no-twin"),
        pytest.param("יחידות", ["יחידה"], None, id="another-word"),
        pytest.param("units", [], None, id="nothing-held"),
    ],
)
def test_a_key_that_reads_like_another_held_is_found(key: str, held: list[str], twin: str | None) -> None:
    assert same_looking_key(key, held) == twin


@pytest.mark.parametrize(
    ("key", "may"),
    [
        pytest.param("units", False, id="latin"),
        pytest.param("fiscal-year 2026", False, id="latin-digits-punctuation"),
        pytest.param("Größe", False, id="accented"),
        pytest.param("单位", False, id="chinese"),
        pytest.param("יחידות", True, id="hebrew"),
        pytest.param("وحدات", True, id="arabic"),
        pytest.param("इकाई", True, id="devanagari"),
        pytest.param("😀-mood", True, id="emoji"),
        pytest.param("mood\ufe0f", True, id="emoji-style-selector"),
    ],
)
def test_only_a_key_beside_which_an_invisible_character_may_be_needed_is_looked_up(key: str, may: bool) -> None:
    assert may_read_like_another(key) is may


def test_the_refusal_names_the_key_on_file_its_scope_and_the_characters_that_differ() -> None:
    said = lookalike_key_problem("יחידות", "יחידות\u200f", "actor:ada")

    assert said == (
        "The key differs from “יחידות\u200f”, already on file at actor:ada, only in invisible characters "
        "(U+200F), so the two would read as one key. To replace that note, give its key exactly as it is; "
        "otherwise choose a key that reads differently."
    )


def test_keys_with_the_same_invisible_characters_in_other_places_name_them() -> None:
    said = lookalike_key_problem("د\u200cاده", "دا\u200cده", "global")

    assert "only in invisible characters (U+200C)" in said


# Pieces of what reads as a tag and of what hides one: brackets and their lookalikes, the name in
# several forms, whitespace, invisible and combining characters, joiners and what they join.
PIECES = [
    *"<＜﹤/／>＞ \u3000\t\n\u200b\u00ad\u200c\u200d\u200e\u200f\u2060\ufeff\u0338\ufe0fxbمש👍🏴\U000e0067\U000e007f",
    "memory",
    "＜/memory＞",
    "﹤memory",
    "MEMORY",
    "Memory",
    "ｍｅｍｏｒｙ",
    "𝐦𝐞𝐦𝐨𝐫𝐲",
    "mem",
    "ory",
]
lookalike_text = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=2)), max_size=12).map("".join)
SCOPES = ("actor:ada", "global")  # a key at both is an entry and the override beneath it
_TAG_AS_READ = re.compile(r"<\s*/?\s*memory")


def tags_read_in(text: str) -> int:
    """How many block tags NFKC reads in `text`, in any case, with invisible formatting characters
    ignored and whitespace allowed around the slash: the test's own reading, written apart from the
    rule's."""
    read = "".join(ch for ch in unicodedata.normalize("NFKC", text).casefold() if unicodedata.category(ch) != "Cf")
    return len(_TAG_AS_READ.findall(read))


@settings(max_examples=500)
@given(lookalike_text)
def test_nothing_neutralised_reads_as_a_tag(text: str) -> None:
    assert tags_read_in(neutralise_tags(text)) == 0
    assert tags_read_in(neutralise(text)) == 0


@settings(max_examples=500)
@given(lookalike_text, lookalike_text)
def test_what_a_write_stores_reads_as_no_tag_and_holds_no_stray_invisible(key: str, fact: str) -> None:
    checked = check_memory_input(key, fact)

    if checked.ok:
        assert tags_read_in(checked.key) == tags_read_in(checked.fact) == 0
        assert first_stray_invisible(checked.key) is None
        assert first_stray_invisible(checked.fact) is None


@settings(max_examples=500)
@given(lookalike_text)
def test_taking_the_stray_invisibles_out_leaves_none_stray(text: str) -> None:
    assert first_stray_invisible(without_stray_invisibles(text)) is None


@settings(max_examples=500)
@given(
    st.lists(
        st.tuples(st.sampled_from(SCOPES), st.one_of(st.just("k"), lookalike_text), lookalike_text, st.booleans()),
        min_size=1,
        max_size=6,
    )
)
def test_no_stored_key_or_fact_renders_a_tag_into_the_block(stored: list[tuple[str, str, str, bool]]) -> None:
    records = [
        MemoryRecord(
            id=f"mem_{n}",
            key=key,
            text=text,
            scope=scope,
            origin=MemoryOrigin("human" if human else "agent"),
            updated_at=datetime(2026, 1, 1, tzinfo=UTC),
        )
        for n, (scope, key, text, human) in enumerate(stored)
    ]
    block = build_memory_block(resolve_digest(records, scopes=SCOPES), writable=True)

    read = unicodedata.normalize("NFKC", block).casefold()
    assert tags_read_in(block) == 2
    assert (read.count("<memory>"), read.count("</memory>")) == (1, 1)
