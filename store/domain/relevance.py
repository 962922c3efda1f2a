"""Relevance of a memory to a turn: which words a text holds, and how well a record answers them.

A person's turn text is never a query language. It is cut into words after Unicode compatibility
normalisation (NFKC) and case folding, so "Ｆiscal", "FISCAL" and "fiscal" are one word, "Straße" and
"STRASSE" one, "über" and "uber" two:

- **Where words divide is ICU's word boundaries** (Unicode's rules, with dictionaries for the scripts
  written without spaces), so "他们用公里报告距离" is five words, "距离" among them, as the turn
  "距离是多少？" needs; Japanese and Thai alike, and a change of script ("OnFile用公里") divides too.
  Of ICU's pieces only those it counts as words (numbers, letters, kana, ideographs) are kept:
  spaces, punctuation and emoji only separate.
- **Within a piece, a word is a run of letters, digits, underscores and combining marks** holding
  more than underscores. The punctuation ICU lets inside a word still separates: "don't" is "don"
  and "t", so "Ada's" is found by "ada" and "l'entrepôt" by "entrepôt", and a
  typographic apostrophe (’) cuts as a typewriter one does; "3.14", "12:30" and "ada@example.com"
  divide at their punctuation; a hyphen always separates ("fiscal-year" is two words, "fiscal_year"
  one). A combining mark belongs to its word ("ง่าย", "हिन्दी"); it never cuts one.

So Latin text is cut at every character that is not a letter, digit or underscore; ICU decides where
text written without spaces divides, and keeps combining marks with their letters. A dictionary cuts a run by its
neighbours, so now and then a run is cut differently in a turn and in a memory ("しました" is "しま"
and "した"). Stored index terms depend on all of this (`store.persistence.terms`): changing it needs a
migration that recomputes them, as revision 0006 does. A record's words are those of its key followed
by those of its text.

A record scores by Okapi BM25 (k1 = 1.2, b = 0.75), with each word's document frequency counted
**within the record's own scope**: how many records at that scope hold it. That is what the SQL
index stores (a word is indexed per scope), so a search's cost follows what applies to the turn, not
what is stored, and a word common in one organisation does not drown a word rare in another. The
store's size and average length are store-wide, as FTS5 kept them.

Each word's share of a score is FTS5's `bm25()` arithmetic, operation for operation, then counted in
whole units of 2⁻⁴⁰ (truncated), and a score is the sum of those integers. Integer sums are exact in
any order, and SQL's `sum()` promises no order of its rows: so SQLite's search, which computes the
same shares with the same operations on the same doubles, sums to the same integer as this
reference, to the last unit, whatever order its rows arrive in. A unit is far below any difference
that matters (a word held almost everywhere still weighs about a million of them in a record of
average length), and no sum comes near 2⁶³: idf is under 43 in any store of fewer than 10¹⁸ records,
so a share is under 43 × (k1 + 1) < 95, and a record holds at most `MAX_QUERY_WORDS` of a turn's
terms (those at its own scope): under 256 × 95 × 2⁴⁰ ≈ 2.7 × 10¹⁶ units.
"""

from __future__ import annotations

import math
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import icu

__all__ = (
    "BM25_B",
    "BM25_K1",
    "IDF_FLOOR",
    "MAX_QUERY_WORDS",
    "MAX_TURN_CHARS",
    "SCORE_UNITS",
    "CorpusStats",
    "bm25_score",
    "query_words",
    "record_words",
    "text_words",
    "word_boundaries",
)

MAX_QUERY_WORDS = 256
"""A turn's distinct words beyond this many are not searched with: a bound on one query's cost."""
MAX_TURN_CHARS = 100_000
"""The longest turn text a digest takes (a long pasted document included); a longer one is refused."""

BM25_K1 = 1.2
BM25_B = 0.75
IDF_FLOOR = 1e-6
"""The weight of a word held by half the records or more, whose idf would not be positive: it still
counts a little, as in FTS5."""
SCORE_UNITS = 2.0**40
"""Units of score per 1: a word's share is counted in whole units (see the module docstring)."""
_NOT_WORD_CHAR = re.compile(r"\W")
_BEYOND_BMP = re.compile("[\U00010000-\U0010ffff]")
_WORD_STATUS = icu.UWordBreak.NONE_LIMIT
"""ICU's rule status of a piece it counts as a word (a number, letters, kana, ideographs); below it,
spaces, punctuation and emoji."""
_threads = threading.local()


def text_words(text: str) -> list[str]:
    """Every word of `text`, repeats included, in order (see the module docstring for what a word is)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    # ICU counts offsets in UTF-16 units: past the Basic Multilingual Plane they are not Python's, so
    # such a text is sliced as ICU's own string.
    source = icu.UnicodeString(folded) if _BEYOND_BMP.search(folded) else folded
    boundaries = word_boundaries()
    boundaries.setText(source)
    words: list[str] = []
    start = 0
    status = boundaries.getRuleStatus
    for end in boundaries:
        if status() >= _WORD_STATUS:
            piece = str(source[start:end])
            if piece.isalnum():
                words.append(piece)
            else:
                words.extend(word for word in _NOT_WORD_CHAR.sub(_mark_or_space, piece).split() if word.strip("_"))
        start = end
    return words


def word_boundaries() -> icu.BreakIterator:
    """This thread's word boundary iterator (one is not safe to share, and making one per call costs
    about as much again as cutting a turn): ICU's root rules, for no language in particular."""
    boundaries = getattr(_threads, "word_boundaries", None)
    if boundaries is None:
        boundaries = _threads.word_boundaries = icu.BreakIterator.createWordInstance(icu.Locale.getRoot())
    return boundaries


def _mark_or_space(found: re.Match[str]) -> str:
    """A combining mark belongs to its word; any other character that is not a letter, digit or
    underscore separates."""
    return found[0] if unicodedata.category(found[0]).startswith("M") else " "


def record_words(key: str, text: str) -> list[str]:
    """The words a record is found by: its key's, then its text's."""
    return text_words(key) + text_words(text)


def query_words(text: str) -> tuple[str, ...]:
    """The distinct words of a turn's text, in order of first appearance, at most `MAX_QUERY_WORDS`."""
    seen: dict[str, None] = {}
    for word in text_words(text):
        seen.setdefault(word, None)
        if len(seen) == MAX_QUERY_WORDS:
            break
    return tuple(seen)


@dataclass(frozen=True, slots=True)
class CorpusStats:
    """What BM25 needs to know of the store: its size in records and in words, and, per scope, how
    many records hold each word."""

    records: int
    words: int
    holding: dict[tuple[str, str], int]

    @classmethod
    def of(cls, records: Iterable[tuple[str, Sequence[str]]]) -> CorpusStats:
        """The statistics of `(scope, words)` pairs: every record in the store."""
        count = total = 0
        holding: Counter[tuple[str, str]] = Counter()
        for scope, words in records:
            count += 1
            total += len(words)
            holding.update((scope, word) for word in set(words))
        return cls(records=count, words=total, holding=dict(holding))


def bm25_score(query: Sequence[str], scope: str, words: Sequence[str], stats: CorpusStats) -> int:
    """A record's BM25 score for the distinct `query` words, in units of 2⁻⁴⁰ (higher is better; 0 holds
    none of them).

    Each query word the record holds adds idf × tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen)), with
    idf = ln((N − n + 0.5) / (n + 0.5)) for n records holding it at `scope`, truncated to whole units;
    an idf that would not be positive counts as `IDF_FLOOR`, so a word held almost everywhere still
    counts a little. The operations and their order are the SQL's (`store.persistence.search`)."""
    frequency = Counter(words)
    average = stats.words / stats.records if stats.records else 0.0
    length = float(len(words))
    score = 0
    for word in query:
        tf = float(frequency.get(word, 0))
        if not tf:
            continue
        held = stats.holding.get((scope, word), 0)
        idf = math.log((stats.records - held + 0.5) / (held + 0.5))
        if idf <= 0.0:
            idf = IDF_FLOOR
        share = idf * ((tf * (BM25_K1 + 1.0)) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * length / average)))
        score += int(share * SCORE_UNITS)
    return score
