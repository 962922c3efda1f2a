"""Finding memories by their words on the person's page, and the orders the page lists them in.

The page's search is not the turn's ranking (`store.domain.relevance`): it keeps every memory that
holds every word typed, and leaves the order to the person. Its rules:

- **Words are cut as a turn's are** (ICU's word boundaries, so Chinese, Japanese and Thai divide into
  words by a dictionary, and "fiscal-year" is two words), then **folded**: case-folded, decomposed
  (NFKD), stripped of their accents (the combining diacritical marks, U+0300–U+036F and their
  extensions) and recomposed. So "Kilometres", "KILOMETRES" and "kilomètres" are one word, "Straße"
  and "strasse" one, and "Ćevapi" is found by "cevapi". The Latin letters whose stroke or ligature
  no decomposition takes apart, and which ICU's root collation ranks as their plain letters, are
  written as those: "Łódź" is found by "lodz", "Søren" by "soren", "Đặng" by "dang", "Æbeltoft" by
  "aebeltoft" (ł, ø, đ, ð, ħ, æ, œ). The marks that are letters' own parts in other scripts stay:
  Japanese "が" is not "か", Thai "ง่าย" is not "งาย".
- **Every word of the search must match a word of the memory, in any order.** A search word matches
  a memory word that begins with it ("kilom" finds "kilometres"). A search word of four letters or
  more ending in "s" also matches its singular, as a whole word: the word without that "s", or
  without "es" after "s", "x", "z", "ch" or "sh". So "Thursdays" finds "Thursday", "reports" finds
  "report", "boxes" finds "box", and "miles" finds "mile" but not "mileage". A search with no words
  (only punctuation or spaces) matches everything.
- **Where a memory's words are** is the same cut over its own text, with each word's place in it,
  so the page marks exactly the words that matched (`marked_pieces`).
- **A database can test the same thing** without ICU: each record keeps its `folded_memory` and its
  `sort_key` beside it, and a search word matches when the stored text holds one of its `needles`
  (a test of "holds this substring" any SQL `LIKE` answers).

Folding a text costs a segmentation by ICU; the folded form of a text depends on nothing else, so it
is kept for the most recent texts (`folded`), and a page over ten thousand memories folds only the
texts it has not seen before.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache
from operator import attrgetter
from typing import Literal, get_args

import icu

from store.domain.relevance import word_boundaries
from store.domain.types import MemoryRecord

__all__ = (
    "FOLD_CACHE_SIZE",
    "ORDERS",
    "Order",
    "fold",
    "folded",
    "folded_memory",
    "in_page_order",
    "marked_pieces",
    "matches_all",
    "needles",
    "search_words",
    "sort_key",
    "sought_person",
    "word_spans",
    "words_pattern",
)

Order = Literal["newest", "oldest", "key"]
ORDERS: tuple[Order, ...] = get_args(Order)
FOLD_CACHE_SIZE = 1 << 16
"""How many texts' folded words are kept: a few people's pages of ten thousand memories each."""
_NOT_WORD_CHAR = re.compile(r"\W")
_WORD_STATUS = icu.UWordBreak.NONE_LIMIT
_PIECE = re.compile(r"\S+")
_ES_PLURALS = ("ses", "xes", "zes", "ches", "shes")
_ACCENTS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_PLAIN_LETTERS = str.maketrans({"ł": "l", "ø": "o", "đ": "d", "ð": "d", "ħ": "h", "æ": "ae", "œ": "oe"})
"""Case-folded Latin letters with a stroke or a ligature that NFKD leaves whole, as the letters ICU's
root collation ranks them with (it tells them apart only as it tells "é" from "e")."""


def fold(word: str) -> str:
    """A word as searches compare it: case-folded, without accents, recomposed, with a stroked or
    joined Latin letter as its plain ones (`_PLAIN_LETTERS`). Case-folded after the compatibility
    decomposition too, since that is what turns letters with no case of their own (𝐁, ℍ, Ⓐ) into
    capitals."""
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", word).casefold())
    return unicodedata.normalize("NFC", _ACCENTS.sub("", decomposed)).translate(_PLAIN_LETTERS)


def word_spans(text: str) -> list[tuple[int, int, str]]:
    """Every word of `text` as (start, end, folded word), with `text[start:end]` the word as written."""
    if not text:
        return []
    wide = any(ord(c) > 0xFFFF for c in text)
    # ICU counts offsets in UTF-16 units: past the Basic Multilingual Plane they are not Python's.
    source = icu.UnicodeString(text) if wide else text
    at = _utf16_to_index(text) if wide else None
    boundaries = word_boundaries()
    boundaries.setText(source)
    spans: list[tuple[int, int, str]] = []
    start = 0
    for end in boundaries:
        if boundaries.getRuleStatus() >= _WORD_STATUS:
            first = at[start] if at else start
            piece = text[first : at[end] if at else end]
            # Marks stay with their word; any other character that is not a letter, digit or
            # underscore separates (the same substitution keeps every offset in place).
            for found in _PIECE.finditer(_NOT_WORD_CHAR.sub(_mark_or_space, piece)):
                word = fold(found[0])
                if word.strip("_"):
                    spans.append((first + found.start(), first + found.end(), word))
        start = end
    return spans


def _utf16_to_index(text: str) -> dict[int, int]:
    positions = {0: 0}
    units = 0
    for index, char in enumerate(text, 1):
        units += 2 if ord(char) > 0xFFFF else 1
        positions[units] = index
    return positions


def _mark_or_space(found: re.Match[str]) -> str:
    return found[0] if unicodedata.category(found[0]).startswith("M") else " "


@lru_cache(maxsize=FOLD_CACHE_SIZE)
def _spans_of(text: str) -> tuple[tuple[int, int, str], ...]:
    """`word_spans`, kept for the texts a page shows again (the next page, the same search)."""
    return tuple(word_spans(text))


@lru_cache(maxsize=FOLD_CACHE_SIZE)
def folded(text: str) -> str:
    """The folded words of `text` between spaces (" road distances in miles "): a search word begins a
    word of the text exactly when " " + it is in this string, and is one when " " + it + " " is."""
    return " " + "".join(word + " " for _, _, word in word_spans(text))


def search_words(query: str) -> tuple[str, ...]:
    """The words of a search, folded, each once, in the order typed."""
    return tuple(dict.fromkeys(word for _, _, word in word_spans(query)))


def sought_person(sought: str, person_id: str, name: str | None) -> bool:
    """Whether a search for `sought` finds this person: their id exactly as typed, or a name in which
    every word of the search begins a word, in any order, whatever the case and accents ("love ada"
    finds "Ada Lovelace", "zoe" finds "Zoë")."""
    if person_id == sought:
        return True
    words = search_words(sought)
    if not words or not name:
        return False
    known = folded(name)
    return all(" " + word in known for word in words)


@lru_cache(maxsize=1024)
def needles(word: str) -> tuple[str, ...]:
    """What a search word looks for in a folded text: a word it begins, or its singular as a whole
    word (see the module docstring). A folded text holds the word when it holds any of these."""
    found = [" " + word]
    if len(word) >= 4 and word.endswith("s"):
        found.append(f" {word[:-1]} ")
        if word.endswith(_ES_PLURALS):
            found.append(f" {word[:-2]} ")
    return tuple(found)


@lru_cache(maxsize=1024)
def words_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    """A pattern that matches a `folded` text (or several joined) holding every one of `words`: one
    look-ahead per word, for any of its needles, so the whole test runs in the regular expression
    engine rather than word by word in Python."""
    ahead = ("(?=.*?(?:" + "|".join(re.escape(n) for n in needles(word)) + "))" for word in words)
    return re.compile("".join(ahead), re.DOTALL)


def matches_all(words: tuple[str, ...], texts: Sequence[str]) -> bool:
    """Whether every search word begins a word of one of `texts` (each already `folded`)."""
    return words_pattern(words).match("".join(texts)) is not None


@lru_cache(maxsize=FOLD_CACHE_SIZE)
def folded_memory(key: str, text: str) -> str:
    """A memory's key and fact, folded and joined: what a search by words looks in."""
    return folded(key) + folded(text)


def marked_pieces(text: str, words: Sequence[str]) -> tuple[tuple[str, bool], ...]:
    """`text` cut into pieces, each with whether it is a word a search word matched: the page marks
    those. Without search words, the whole text as one unmarked piece."""
    if not words:
        return ((text, False),) if text else ()
    wanted = tuple(needle for w in words for needle in needles(w))
    pieces: list[tuple[str, bool]] = []
    done = 0
    for start, end, word in _spans_of(text):
        if not f" {word} ".startswith(wanted):  # the word begins with a search word, or is its singular
            continue
        if start > done:
            pieces.append((text[done:start], False))
        pieces.append((text[start:end], True))
        done = end
    if done < len(text):
        pieces.append((text[done:], False))
    return tuple(pieces)


def in_page_order(order: Order, records: Iterable[MemoryRecord]) -> list[MemoryRecord]:
    """Records held at one scope as the page lists them: `newest` (the default) by when each was last
    written, newest first; `oldest` the reverse; `key` by the folded key. Ties go to the key as
    written, then the id, so the order is the same on every request. (Two stable sorts, the tie
    first: a sort in reverse keeps equal items in their order.)"""
    by_tie = sorted(records, key=attrgetter("key", "id"))
    if order == "key":
        return sorted(by_tie, key=lambda r: _folded_key(r.key))
    return sorted(by_tie, key=attrgetter("updated_at"), reverse=order == "newest")


@lru_cache(maxsize=FOLD_CACHE_SIZE)
def _folded_key(key: str) -> str:
    return fold(key)


def sort_key(key: str) -> str:
    """What the order by key compares first: the key folded (`fold`), by code point."""
    return _folded_key(key)
