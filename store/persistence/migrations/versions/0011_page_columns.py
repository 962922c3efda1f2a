"""The personal page searches and sorts in SQL: `agent_memory.folded_words` and `sort_key`.

Each row keeps its key's and text's words folded as the page searches them (`folded_memory`) and its
key folded (`sort_key`), both computed by the rules in `store.domain.finding`, so a search by words,
its counts and its pages are answered by the database instead of by reading every record. The rows
already stored get both here, a batch at a time in order of `seq`. An index on (scope, updated_at)
serves the page's newest- and oldest-first orders.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from store.domain.finding import folded_memory, sort_key

revision = "0011"
down_revision = "0010"

_BATCH = 5_000
_INDEX = "ix_agent_memory_scope_updated_at"


def upgrade() -> None:
    op.add_column("agent_memory", sa.Column("folded_words", sa.Text(), server_default="", nullable=False))
    op.add_column("agent_memory", sa.Column("sort_key", sa.Text(), server_default="", nullable=False))
    _fill(op.get_bind())
    op.create_index(_INDEX, "agent_memory", ["scope", "updated_at"])


def downgrade() -> None:
    op.drop_index(_INDEX, table_name="agent_memory")
    op.execute("ALTER TABLE agent_memory DROP COLUMN sort_key")
    op.execute("ALTER TABLE agent_memory DROP COLUMN folded_words")


def _fill(bind: sa.engine.Connection) -> None:
    memory = sa.table("agent_memory", *(sa.column(name) for name in ("seq", "key", "text", "folded_words", "sort_key")))
    read = sa.select(memory.c.seq, memory.c.key, memory.c.text).order_by(memory.c.seq).limit(_BATCH)
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
        bind.execute(
            write,
            [{"row_seq": seq, "words": folded_memory(k, text), "folded_key": sort_key(k)} for seq, k, text in batch],
        )
        last = batch[-1][0]
