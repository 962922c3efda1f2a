"""Relevance of a memory to a turn: which words a text holds, and how well a record answers them.

A person's turn text is never a query language. It is cut into words — runs of letters, digits and
underscores after Unicode compatibility normalisation (NFKC) and case folding, so "Ｆiscal", "FISCAL"
and "fiscal" are one word, "über" and "uber" two, and quotes, operators, punctuation and emoji are
only separators. A record's words are those of its key followed by those of its text.

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
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = (
    "BM25_B",
    "BM25_K1",
    "IDF_FLOOR",
    "MAX_QUERY_WORDS",
    "SCORE_UNITS",
    "CorpusStats",
    "bm25_score",
    "query_words",
    "record_words",
    "text_words",
)

MAX_QUERY_WORDS = 256
"""A turn's distinct words beyond this many are not searched with: a bound on one query's cost."""

BM25_K1 = 1.2
BM25_B = 0.75
IDF_FLOOR = 1e-6
"""The weight of a word held by half the records or more, whose idf would not be positive: it still
counts a little, as in FTS5."""
SCORE_UNITS = 2.0**40
"""Units of score per 1: a word's share is counted in whole units (see the module docstring)."""
_WORD = re.compile(r"\w+")


def text_words(text: str) -> list[str]:
    """Every word of `text`, repeats included, in order (see the module docstring for what a word is)."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


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
