"""For the revisions that recompute what rows store from their own text: a batch of rows at a time."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

__all__ = ("recompute_columns",)

_BATCH = 5_000


def recompute_columns(
    bind: Connection, given: Sequence[str], kept: Sequence[str], compute: Callable[..., tuple[Any, ...]]
) -> None:
    """Each `agent_memory` row's `kept` columns as `compute(*given columns)` makes them, read a batch at
    a time in order of `seq` (so none is missed); only the rows whose values change are written, so a
    revision that changes few rows reads the table once and barely writes it."""
    memory = sa.table("agent_memory", *(sa.column(name) for name in ("seq", *given, *kept)))
    read = sa.select(*memory.c).order_by(memory.c.seq).limit(_BATCH)
    write = (
        sa.update(memory)
        .where(memory.c.seq == sa.bindparam("row_seq"))
        .values({name: sa.bindparam(f"new_{name}") for name in kept})
    )
    last = None
    while True:
        batch = bind.execute(read if last is None else read.where(memory.c.seq > last)).all()
        if not batch:
            return
        changed = [
            {"row_seq": row[0], **{f"new_{name}": value for name, value in zip(kept, values, strict=True)}}
            for row in batch
            if (values := compute(*row[1 : 1 + len(given)])) != tuple(row[1 + len(given) :])
        ]
        if changed:
            bind.execute(write, changed)
        last = batch[-1][0]
