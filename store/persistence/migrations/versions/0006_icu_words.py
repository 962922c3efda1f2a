"""A word is cut by ICU's word boundaries: every row's `agent_memory.search_terms` is recomputed.

What a word is changed (`store.domain.relevance`): a run of Chinese, Japanese or Thai is now several
words, where it was one, and a word with combining marks (Thai, Devanagari…) is whole, where each
mark cut it. A row's terms are its words' digests (`store.persistence.terms`), so a row stored before
would not be found by the words a turn now searches with. Each row gets its terms from the current
rule, a batch at a time in order of `seq`; a row whose terms come out the same (nearly every row of
Latin text) is not written, so a store in such languages is read once and barely touched.

Both indexes follow the column: SQLite's postings and word count by the update trigger of revision
0004, PostgreSQL's `search_vector` because it is generated from `search_terms`.

The downgrade recomputes the terms by the rule revision 0005 searched with — runs of letters, digits
and underscores after NFKC and case folding, kept here because the current rule differs — so a
downgraded store finds its rows by the words revision 0005's code asks with.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04
"""

from __future__ import annotations

import re
import unicodedata

from alembic import op

from store.persistence.migrations.search_terms import recompute_search_terms
from store.persistence.terms import index_terms, term

revision = "0006"
down_revision = "0005"

_OLD_WORD = re.compile(r"\w+")


def upgrade() -> None:
    recompute_search_terms(op.get_bind(), index_terms)


def downgrade() -> None:
    recompute_search_terms(op.get_bind(), _terms_before_icu)


def _terms_before_icu(scope: str, key: str, text: str) -> str:
    """A row's terms as revision 0005 computed them: words were `\\w+` runs of the normalised text."""
    words = [*_words_before_icu(key), *_words_before_icu(text)]
    return " ".join([term(scope, word) for word in words])


def _words_before_icu(text: str) -> list[str]:
    return _OLD_WORD.findall(unicodedata.normalize("NFKC", text).casefold())
