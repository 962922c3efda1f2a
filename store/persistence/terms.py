"""What the search index holds for a record: one opaque term per (scope, word), never a word.

A record's `search_terms` column, which both backends index (SQLite's postings `memory_terms`,
`store.persistence.search_index`; PostgreSQL's `search_vector` tsvector with its GIN index), is its
words (`store.domain.relevance.record_words`) each replaced by a 12-letter digest of the record's
scope and the word. Two things follow:

- **A search costs what applies.** A turn's query is the digests of its words at the turn's own
  scopes, so the index walks only postings of records at those scopes — a word held by a million
  records elsewhere in the store costs nothing here — and BM25's document count for a term (how many
  records hold it) counts only within the scope (the ranking `store.domain.relevance` describes).
- **The index never holds memory text.** Whatever the database may keep of a forgotten record's
  entries (SQLite's `secure_delete` overwrites deleted cells, but a write-ahead log holds old pages
  until its checkpoint; PostgreSQL keeps a dead tuple until vacuum) is digests, not words, so no scan
  of the database file for a forgotten fact finds it. A digest is not a secret: someone holding the
  file who guesses a word and a scope can test the guess, as they could read any memory still on file.

Digests are letters `a`–`p` only (hex, shifted), always 12 of them, separated by single spaces:
PostgreSQL's tokenizer keeps each one whole and unchanged, SQLite's triggers read a column as a JSON
array of them, and its search counts a record's words from the column's length. 48 bits make a
collision (a record matched by a word it does not hold) vanishingly rare, and harmless: the scope
filter is applied to the rows themselves, never to terms.

Stored terms are only as good as this function: changing `term` or what a word is changes every
row's terms, and needs a migration that recomputes `search_terms` (as 0002 computed them first).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from store.domain.relevance import record_words

__all__ = ("index_terms", "query_terms", "term")

_LETTERS = str.maketrans("0123456789abcdef", "abcdefghijklmnop")


def term(scope: str, word: str) -> str:
    """The index term for `word` held at `scope`."""
    scoped = f"{len(scope)}:{scope}{word}".encode()
    return hashlib.blake2b(scoped, digest_size=6, person=b"onfile-terms").hexdigest().translate(_LETTERS)


def index_terms(scope: str, key: str, text: str) -> str:
    """A record's `search_terms`: one term per word of its key and text, in order, repeats kept (the
    ranking counts them), separated by single spaces."""
    return " ".join([term(scope, word) for word in record_words(key, text)])


def query_terms(scopes: Iterable[str], words: Sequence[str]) -> list[str]:
    """The terms a turn searches with: each word at each scope (repeated scopes once), scope by scope
    and word by word within it — the order BM25 sums in, so every backend adds up alike."""
    return [term(scope, word) for scope in dict.fromkeys(scopes) for word in words]
