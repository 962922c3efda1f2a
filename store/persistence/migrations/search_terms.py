"""For the revisions that change what the search index holds: recompute every row's `search_terms`."""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from sqlalchemy.engine import Connection

__all__ = ("recompute_search_terms",)

_BATCH = 5_000


def recompute_search_terms(bind: Connection, terms_of: Callable[[str, str, str], str]) -> None:
    """Every row's terms by `terms_of(scope, key, text)`, a batch of rows at a time in order of `seq`
    (so none is missed); only the rows whose terms change are written, so a revision that changes few
    rows reads the table once and barely writes it. Each index follows the column (SQLite's postings
    by the update trigger of revision 0004, PostgreSQL's generated `search_vector`)."""
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
