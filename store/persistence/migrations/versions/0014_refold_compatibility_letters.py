"""A search folds letters that have no case of their own (𝐁, ℍ, Ⓐ) to lower case too: each row's
`agent_memory.folded_words` and `sort_key` are recomputed where they change.

A word was case-folded before its compatibility decomposition (`store.domain.finding.fold`), so 𝐁𝐨𝐥𝐝
was stored as "Bold" while a search for it asked for "bold": SQLite's `LIKE` found it anyway, ignoring
ASCII case, and PostgreSQL's did not. Rows are read a batch at a time in order of `seq`; only those
whose columns come out differently (a row of plain text never does) are written.

The downgrade leaves the columns as they are: the earlier rule finds a lower-cased row exactly as it
found one stored in capitals on SQLite, and on PostgreSQL it finds the rows it would find anyway.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from store.domain.finding import folded_memory, sort_key

revision = "0014"
down_revision = "0013"

_BATCH = 5_000


def upgrade() -> None:
    bind = op.get_bind()
    names = ("seq", "key", "text", "folded_words", "sort_key")
    memory = sa.table("agent_memory", *(sa.column(name) for name in names))
    read = sa.select(*memory.c).order_by(memory.c.seq).limit(_BATCH)
    write = (
        sa.update(memory)
        .where(memory.c.seq == sa.bindparam("row_seq"))
        .values(folded_words=sa.bindparam("words"), sort_key=sa.bindparam("folded_key"))
    )
    last = None
    while True:
        batch = bind.execute(read if last is None else read.where(memory.c.seq > last)).all()
        if not batch:
            return
        changed = [
            {"row_seq": seq, "words": words, "folded_key": folded_key}
            for seq, key, text, stored_words, stored_key in batch
            if (words := folded_memory(key, text), folded_key := sort_key(key)) != (stored_words, stored_key)
        ]
        if changed:
            bind.execute(write, changed)
        last = batch[-1][0]


def downgrade() -> None:
    pass
