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
and underscores after NFKC and case folding, kept here because the code no longer has it — so a
downgraded store finds its rows by the words the older code asks with.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

import sqlalchemy as sa
from alembic import op

from store.persistence.terms import index_terms, term

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

_BATCH = 5_000
_OLD_WORD = re.compile(r"\w+")


def upgrade() -> None:
    _recompute_search_terms(index_terms)


def downgrade() -> None:
    _recompute_search_terms(_terms_before_icu)


def _terms_before_icu(scope: str, key: str, text: str) -> str:
    """A row's terms as revision 0005 computed them: words were `\\w+` runs of the normalised text."""
    words = [*_words_before_icu(key), *_words_before_icu(text)]
    return " ".join([term(scope, word) for word in words])


def _words_before_icu(text: str) -> list[str]:
    return _OLD_WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def _recompute_search_terms(terms_of: Callable[[str, str, str], str]) -> None:
    """Every row's terms by `terms_of(scope, key, text)`, a batch of rows at a time in order of `seq`
    (so none is missed); only the rows whose terms change are written."""
    bind = op.get_bind()
    names = ("seq", "scope", "key", "text", "search_terms")
    memory = sa.table("agent_memory", *(sa.column(name) for name in names))
    read = sa.select(memory.c.seq, memory.c.scope, memory.c.key, memory.c.text, memory.c.search_terms)
    read = read.order_by(memory.c.seq).limit(_BATCH)
    write = sa.update(memory).where(memory.c.seq == sa.bindparam("row_seq")).values(search_terms=sa.bindparam("terms"))
    last = None
    while True:
        batch = bind.execute(read if last is None else read.where(memory.c.seq > last)).all()
        if not batch:
            return
        changed = [
            {"row_seq": seq, "terms": terms}
            for seq, scope, key, text, stored in batch
            if (terms := terms_of(scope, key, text)) != stored
        ]
        if changed:
            bind.execute(write, changed)
        last = batch[-1][0]
