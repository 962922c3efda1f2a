"""The reads a hybrid recall makes, besides the lexical ranking (`store.persistence.search`).

- `recall_candidates`: every record at the turn's scopes, reduced to what ranking needs — its key,
  its pin and its vector (only one the turn's embedder made) — in listed order. This is clause 1,
  filter to scopes before ranking: no vector outside the scopes is ever read, so another tenant's
  nearest neighbour cannot take a place.
- `records_of_keys`: the records of the chosen keys at the scopes (clause 3).
- `vectors_to_make`, `texts_to_embed`, `store_vectors`: filling or rebuilding the stored vectors
  (`onfile db reembed`).

Each statement has one shape per backend and number of scopes (and of keys), built once and then only
executed with new parameters.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from sqlalchemy import ColumnElement, Select, bindparam, case, func, null, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from store.domain.types import MemoryRecord
from store.persistence.driver import ReadConnection, has_fast_driver, searched_rows
from store.persistence.memories import LIVE, MEMORY_COLUMNS, records_from_rows, records_from_sqlite_rows
from store.persistence.tables import MemoryRow, table_of

__all__ = (
    "candidates_statement",
    "of_keys_statement",
    "recall_candidates",
    "records_of_keys",
    "store_vectors",
    "texts_to_embed",
    "vectors_to_make",
)

memory = table_of(MemoryRow)


async def recall_candidates(
    connection: ReadConnection, scopes: Sequence[str], embedder: str | None, *, few: bool = False
) -> tuple[list[tuple[str, bool]], list[str], list[bytes]]:
    """`(key, pinned)` of every record at `scopes`, narrowest scope first, newest first, then by key
    (the listed order `store.domain.recall.listed_keys` reads); and the records that hold a vector of
    `embedder` (None: read no vector), as parallel lists of key and vector. `few`: the person is
    known to hold few memories at `scopes` (`searched_rows`)."""
    if not scopes:
        return [], [], []
    statement, params = candidates_statement(connection.dialect.name, scopes, embedder)
    rows = await searched_rows(connection, statement, params, inline=few)
    listed = [(row[0], bool(row[1])) for row in rows]
    keys = [row[0] for row in rows if row[2] is not None]
    vectors = [bytes(row[2]) for row in rows if row[2] is not None]
    return listed, keys, vectors


async def records_of_keys(connection: ReadConnection, scopes: Sequence[str], keys: Sequence[str]) -> list[MemoryRecord]:
    """Every record at `scopes` of one of `keys`, in no particular order."""
    if not scopes or not keys:
        return []
    statement, params = of_keys_statement(connection.dialect.name, scopes, keys)
    rows = await searched_rows(connection, statement, params, inline=True)  # as many as the keys asked
    if connection.dialect.name != "postgresql" and has_fast_driver(connection.dialect):
        return records_from_sqlite_rows(rows)
    return records_from_rows(rows)


def candidates_statement(
    dialect_name: str, scopes: Sequence[str], embedder: str | None
) -> tuple[Select[tuple[object, ...]], dict[str, object]]:
    """The statement `recall_candidates` runs, and its parameters (for a benchmark's floor)."""
    distinct = tuple(dict.fromkeys(scopes))
    params: dict[str, object] = {f"scope_{n}": scope for n, scope in enumerate(distinct)}
    params["embedder"] = embedder or ""
    return _candidates(dialect_name, len(distinct)), params


def of_keys_statement(
    dialect_name: str, scopes: Sequence[str], keys: Sequence[str]
) -> tuple[Select[tuple[object, ...]], dict[str, object]]:
    """The statement `records_of_keys` runs, and its parameters (for a benchmark's floor)."""
    distinct = tuple(dict.fromkeys(scopes))
    wanted = tuple(dict.fromkeys(keys))
    params: dict[str, object] = {f"scope_{n}": scope for n, scope in enumerate(distinct)}
    params.update({f"key_{n}": key for n, key in enumerate(wanted)})
    return _of_keys(dialect_name, len(distinct), len(wanted)), params


def _at_scopes(count: int) -> ColumnElement[bool]:
    """A record at one of the bound scopes that has not expired (`LIVE`)."""
    return memory.c.scope.in_([bindparam(f"scope_{n}") for n in range(count)]) & LIVE


@lru_cache(maxsize=64)
def _candidates(dialect_name: str, count: int) -> Select[tuple[object, ...]]:
    rank = case(*((memory.c.scope == bindparam(f"scope_{n}"), n) for n in range(count)), else_=count)
    key = memory.c.key.collate("C") if dialect_name == "postgresql" else memory.c.key
    vector = case((memory.c.embedder == bindparam("embedder"), memory.c.embedding), else_=null())
    return (
        select(memory.c.key, memory.c.pinned, vector)
        .where(_at_scopes(count))
        .order_by(rank, memory.c.updated_at.desc(), key)
    )


@lru_cache(maxsize=256)
def _of_keys(dialect_name: str, count: int, keys: int) -> Select[tuple[object, ...]]:
    return select(*MEMORY_COLUMNS).where(
        _at_scopes(count), memory.c.key.in_([bindparam(f"key_{n}") for n in range(keys)])
    )


async def vectors_to_make(connection: AsyncConnection, *, embedder: str, everything: bool) -> int:
    """How many records `texts_to_embed` will hand out: those without a vector of `embedder` (or,
    `everything`, all of them)."""
    statement = select(func.count()).select_from(memory)
    if not everything:
        statement = statement.where(_not_embedded_by(embedder))
    return int((await connection.execute(statement)).scalar_one())


async def texts_to_embed(
    connection: AsyncConnection, *, embedder: str, everything: bool, after: int, most: int
) -> list[tuple[int, str, str]]:
    """The next `most` records past row `after`, in row order, as `(row, key, text)`: those without a
    vector of `embedder`, or all of them when `everything`."""
    statement = select(memory.c.seq, memory.c.key, memory.c.text).where(memory.c.seq > after)
    if not everything:
        statement = statement.where(_not_embedded_by(embedder))
    rows = (await connection.execute(statement.order_by(memory.c.seq).limit(most))).all()
    return [(row[0], row[1], row[2]) for row in rows]


async def store_vectors(connection: AsyncConnection, rows: Sequence[tuple[int, str, bytes]], embedder: str) -> int:
    """Give each `(row, text, vector)` its vector, made by `embedder` — only where the record still
    holds that text, so a record rewritten meanwhile keeps the vector its rewrite wrote. How many took."""
    if not rows:
        return 0
    statement = (
        update(memory)
        .where(memory.c.seq == bindparam("row_seq"), memory.c.text == bindparam("row_text"))
        .values(embedding=bindparam("vector"), embedder=embedder)
    )
    stored = 0
    for seq, text, vector in rows:  # one at a time: a batch's rowcount is not reported by every driver
        result = await connection.execute(statement, {"row_seq": seq, "row_text": text, "vector": vector})
        stored += result.rowcount
    return stored


def _not_embedded_by(embedder: str) -> ColumnElement[bool]:
    return or_(memory.c.embedder.is_(None), memory.c.embedder != embedder)
