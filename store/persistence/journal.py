"""The run journal: a run's decisions stored once per position and read back on every replay.

A position is written at most once. `checkpoint` returns what is stored when there is something, and
otherwise computes, stores and returns — atomically: two processes racing on one position may both
compute, but only the first insert is kept and both get that stored answer back. A computation that
writes (a `remember` call) must not run twice, so an `exclusive` checkpoint computes under a lock on
its position, in the same transaction that stores it: a racer waits, then reads the stored answer.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import BindParameter, Text, bindparam, cast, delete, exists, func, select, text, type_coerce
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql.selectable import TextualSelect

from store.persistence.driver import hold_back, point_rows, run_statement
from store.persistence.engine import (
    anchor_outcome,
    in_joined_writes,
    joined_writes,
    only_if_anchor_inserted,
    reading,
    writing,
)
from store.persistence.keyed import KeyedStatement, key_chunks
from store.persistence.tables import PrunedRunRow, RunCheckpointRow, table_of
from store.persistence.types import UtcDateTime, utc_now
from store.persistence.usage import add_use_counts, delete_memories_use_counts, delete_use_counts

__all__ = ("RunJournal", "RunPrunedError")

journal = table_of(RunCheckpointRow)
pruned = table_of(PrunedRunRow)


class RunPrunedError(LookupError):
    """A run whose checkpoints were deleted — its retention ended, a memory it named expired and was
    pruned, or the person it was for was erased — asked to resume: its recorded decisions are gone, so
    it must not silently get different ones."""

    def __init__(self, run_id: str) -> None:
        super().__init__(
            f"Run {run_id}'s journal was deleted (its retention ended, a memory it named expired, or the person it "
            "was for was erased): its memory can no longer be replayed. Start a new run."
        )
        self.run_id = run_id


Offered = Callable[[str], tuple[str | None, Iterable[str]]]
"""From a checkpoint's JSON text: the run's conversation, and the ids of the memories its prompt was offered."""


class RunJournal:
    """Checkpoints keyed by (run id, position); a payload is any JSON-able value.

    Given `offered` (how to read the memories a checkpoint at `offered_at` was offered), pruning first
    adds each pruned run's offered memories to the counts of their use (`store.persistence.usage`),
    in the transaction that deletes the run: when a memory was used outlives the journal, its text
    does not."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        clock: Callable[[], datetime] = utc_now,
        offered: Offered | None = None,
        offered_at: str = "memory:digest",
    ) -> None:
        self._engine = engine
        self._clock = clock
        self._offered = offered
        self._offered_at = offered_at

    async def checkpoint(
        self,
        run_id: str,
        position: str,
        compute: Callable[[], Awaitable[Any]],
        *,
        actor_id: str | None = None,
        exclusive: bool = False,
    ) -> Any:
        """The payload stored at (run_id, position); when there is none, `compute()`'s result, stored
        (for `actor_id`, whom the run is for). A pruned run raises `RunPrunedError` instead.

        `compute` runs outside any transaction (it may be slow: a search, a model call), so it can run
        in two racing processes at once; the store keeps the first insert and everyone returns it.
        With `exclusive` it runs at most once: see `_compute_exclusively`."""
        [(stored_text, was_pruned)] = await point_rows(
            self._engine, _STORED_OR_PRUNED, {"run_id": run_id, "position": position}
        )
        if stored_text is not None:
            return json.loads(stored_text)
        if was_pruned:
            raise RunPrunedError(run_id)
        if exclusive:
            return await self._compute_exclusively(run_id, position, compute, actor_id)
        payload = await compute()
        async with writing(self._engine) as connection:
            values = _checkpoint_values(run_id, position, payload, self._clock(), actor_id)
            await run_statement(connection, _INSERT_ONCE[connection.dialect.name], values)
            found, stored = await _stored_payload(connection, run_id, position)
        if not found:  # pragma: no cover - the row was just inserted or already there, in this transaction
            msg = f"checkpoint {run_id}/{position} vanished while being written"
            raise RuntimeError(msg)
        return stored

    async def stored_json(self, run_id: str, position: str) -> str | None:
        """The JSON text stored at (run_id, position), as stored, or None; `RunPrunedError` when the run
        was pruned. One statement, and nothing decoded: the caller decodes what it needs."""
        [row] = await point_rows(self._engine, _STORED_OR_PRUNED, {"run_id": run_id, "position": position})
        if row[0] is None and row[1]:
            raise RunPrunedError(run_id)
        return None if row[0] is None else str(row[0])

    async def store_json(
        self,
        run_id: str,
        position: str,
        payload: str,
        *,
        actor_id: str | None = None,
        alongside: Callable[[], Awaitable[None]] | None = None,
    ) -> tuple[bool, str]:
        """Store the JSON text `payload` at (run_id, position) unless something is stored there already;
        whether it was stored, and the JSON text that is. The writes of `alongside()` join the same
        transaction (`joined_writes`) and take effect only when `payload` is stored: they commit
        together or not at all, and a racer that lost writes nothing and gets the winner's text.

        On SQLite the insert and the writes alongside it are held back and go with the COMMIT, in one
        round trip under the write lock, `alongside()` being called before anyone knows whether the
        insert will store (its writes held back behind it, run only if it does); once committed, the
        insert's own answer says whether it stored, and only when it did not is the winner's text read.
        Joining a transaction already open, whose COMMIT is not this call's, the insert runs at once
        instead."""
        values: dict[str, Any] = {
            "run_id": run_id,
            "position": position,
            "payload": payload,
            "created_at": self._clock(),
            "actor_id": actor_id,
        }
        nested = in_joined_writes(self._engine)
        with anchor_outcome() as outcome:
            async with joined_writes(self._engine) as connection:
                insert = _insert_json_once(connection.dialect.name)
                if not nested and await hold_back(connection, insert, values, anchor=True):
                    # SQLite: the insert and what goes alongside it wait for the COMMIT, all in one
                    # round trip that holds the write lock; alongside's writes run only if it inserted.
                    if alongside is not None:
                        with only_if_anchor_inserted():
                            await alongside()
                elif await run_statement(connection, insert, values):
                    if alongside is not None:
                        await alongside()
                    return True, payload
                else:
                    rows = await run_statement(connection, _STORED, {"run_id": run_id, "position": position})
                    if not rows:  # pragma: no cover - the insert found a row there, in this transaction
                        msg = f"checkpoint {run_id}/{position} vanished while being written"
                        raise RuntimeError(msg)
                    return False, str(rows[0][0])
        # Committed. When the insert says it stored our payload, it did; otherwise whose payload is
        # stored says who won: the same text is the same answer, whoever stored it (and, stored by a
        # racer, nothing of ours went alongside it).
        if outcome.inserted:
            return True, payload
        stored = await self.stored_json(run_id, position)
        if stored is None or stored == payload:
            return True, payload
        return False, stored

    async def _compute_exclusively(
        self, run_id: str, position: str, compute: Callable[[], Awaitable[Any]], actor_id: str | None
    ) -> Any:
        """Compute and store in one transaction that first locks the position — PostgreSQL's
        transaction-level advisory lock; on SQLite the write lock its write transactions take up front —
        so a racer for the same position waits and then finds the answer stored. `compute`'s own writes
        join the transaction (`joined_writes`): the write and its checkpoint commit together or not at
        all, so a process killed in between leaves neither. (They join only when they write through this
        journal's engine, as OnFile's services and SDK do; on SQLite another engine's writer would wait
        for this transaction.)"""
        async with joined_writes(self._engine) as connection:
            if connection.dialect.name == "postgresql":
                await connection.execute(select(func.pg_advisory_xact_lock(_lock_key(run_id, position))))
            found, stored = await _stored_payload(connection, run_id, position)
            if found:
                return stored
            payload = await compute()
            values = _checkpoint_values(run_id, position, payload, self._clock(), actor_id)
            insert = _INSERT_ONCE[connection.dialect.name]
            if await hold_back(connection, insert, values):
                # SQLite: the position was found empty under the write lock this transaction holds, so
                # the insert stores — it goes with the COMMIT, and what is stored is the payload as
                # its JSON text reads back.
                return json.loads(json.dumps(payload))
            await run_statement(connection, insert, values)
            _, stored = await _stored_payload(connection, run_id, position)
        return stored

    async def checkpoints(self, run_id: str) -> dict[str, Any]:
        """Every stored payload of `run_id`, by position, in the order they were written."""
        statement = (
            select(journal.c.position, journal.c.payload)
            .where(journal.c.run_id == run_id)
            .order_by(journal.c.created_at, journal.c.position)
        )
        async with reading(self._engine) as connection:
            result = await connection.execute(statement)
            return {str(position): payload for position, payload in result.all()}

    async def offered_in(self, actor_id: str, memory_ids: Sequence[str]) -> list[tuple[str, datetime, str | None, str]]:
        """Each (run, when, conversation, memory) where a run for `actor_id` still kept was offered one
        of `memory_ids`, read from the checkpoints at `offered_at` by the database's own JSON functions,
        so only those memories' rows leave it. One statement per `key_chunks` piece (on a SQLite file,
        inline, `store.persistence.keyed`)."""
        found: list[tuple[str, datetime, str | None, str]] = []
        statement = _OFFERED_IN[self._engine.dialect.name]
        values = {"actor_id": actor_id, "position": self._offered_at}
        for chunk in key_chunks(list(dict.fromkeys(memory_ids))):
            for run_id, created_at, thread_id, memory_id in await statement.rows(self._engine, chunk, values=values):
                found.append((str(run_id), created_at, thread_id, str(memory_id)))
        return found

    async def prune(self, *, older_than: datetime) -> int:
        """Drop the checkpoints of every run begun before `older_than`, leaving a tombstone so a late
        resume is told rather than recomputed; how many runs went."""
        started = (
            select(journal.c.run_id).group_by(journal.c.run_id).having(func.min(journal.c.created_at) < older_than)
        )
        now = self._clock()
        async with writing(self._engine) as connection:
            run_ids = [row[0] for row in (await connection.execute(started)).all()]
            if not run_ids:
                return 0
            for chunk in _chunks(run_ids, 500):
                if self._offered is not None:
                    await add_use_counts(connection, await self._uses(connection, chunk, self._offered))
                await connection.execute(delete(journal).where(journal.c.run_id.in_(chunk)))
                await connection.execute(
                    _tombstones(connection.dialect.name), [{"run_id": r, "pruned_at": now} for r in chunk]
                )
        return len(run_ids)

    async def _uses(
        self, connection: AsyncConnection, run_ids: list[str], offered: Offered
    ) -> list[tuple[str, str, datetime, str | None]]:
        """(person, memory, when, conversation) for each memory the runs' checkpoints were offered."""
        statement = select(journal.c.actor_id, journal.c.created_at, cast(journal.c.payload, Text)).where(
            journal.c.run_id.in_(run_ids), journal.c.position == self._offered_at, journal.c.actor_id.is_not(None)
        )
        uses: list[tuple[str, str, datetime, str | None]] = []
        for actor_id, created_at, stored in (await connection.execute(statement)).all():
            thread_id, ids = offered(str(stored))
            uses.extend((actor_id, memory_id, created_at, thread_id) for memory_id in ids)
        return uses

    async def erase_actor(self, actor_id: str) -> int:
        """Drop every checkpoint of the runs for `actor_id` (their erasure), and the counts of their use
        of memories, leaving the same tombstone
        pruning leaves: a run of theirs still in flight is told its journal is gone, instead of being
        resolved afresh and writing about them again. How many checkpoints went."""
        now = self._clock()
        async with writing(self._engine) as connection:
            theirs = select(journal.c.run_id).where(journal.c.actor_id == actor_id).distinct()
            run_ids = [row[0] for row in (await connection.execute(theirs)).all()]
            result = await connection.execute(delete(journal).where(journal.c.actor_id == actor_id))
            await delete_use_counts(connection, actor_id)
            for chunk in _chunks(run_ids, 500):
                await connection.execute(
                    _tombstones(connection.dialect.name), [{"run_id": r, "pruned_at": now} for r in chunk]
                )
        return result.rowcount

    async def erase_mentions(self, mentions: Sequence[tuple[str, str]]) -> int:
        """Drop every checkpoint of each run for a person that names one of their memories, for each
        `(person, memory id)` (memories that expired): the digests that carried its text, and the
        remember calls that wrote it. The runs are left the same tombstone pruning leaves. How many
        runs went. What the runs' digests were offered is counted first (`memory_use_count`), as
        pruning counts it, so the person's other memories keep their use; the expired memories' own
        counts go with them."""
        if not mentions:
            return 0
        now = self._clock()
        gone = set(mentions)
        async with writing(self._engine) as connection:
            run_ids: set[str] = set()
            for actor_id, memory_id in mentions:
                # quoted, as the JSON holds it: `mem_a1` must not find the runs that named `mem_a10`
                naming = cast(journal.c.payload, Text).contains(f'"{memory_id}"', autoescape=True)
                theirs = select(journal.c.run_id).where(journal.c.actor_id == actor_id, naming).distinct()
                run_ids.update(row[0] for row in (await connection.execute(theirs)).all())
            for chunk in _chunks(sorted(run_ids), 500):
                if self._offered is not None:
                    uses = await self._uses(connection, chunk, self._offered)
                    await add_use_counts(connection, [use for use in uses if (use[0], use[1]) not in gone])
                await connection.execute(delete(journal).where(journal.c.run_id.in_(chunk)))
                await connection.execute(
                    _tombstones(connection.dialect.name), [{"run_id": r, "pruned_at": now} for r in chunk]
                )
            await delete_memories_use_counts(connection, gone)
        return len(run_ids)


def _offered_in(select_offered: str) -> KeyedStatement:
    """`select_offered`, naming the memory ids asked about where it says `{ids}`, as a keyed statement."""

    def build(ids: list[BindParameter[Any]]) -> TextualSelect:
        named = ", ".join(f":{param.key}" for param in ids)
        return (
            text(select_offered.format(ids=named))
            .bindparams(*ids)
            .columns(run_id=Text(), created_at=UtcDateTime(), thread_id=Text(), memory_id=Text())
        )

    return KeyedStatement(build)


_OFFERED_IN = {
    "sqlite": _offered_in(
        "SELECT j.run_id AS run_id, j.created_at AS created_at, json_extract(j.payload, '$.threadId') AS thread_id, "
        "json_extract(e.value, '$.id') AS memory_id "
        "FROM run_journal AS j, json_each(j.payload, '$.digest.entries') AS e "
        "WHERE j.actor_id = :actor_id AND j.position = :position AND json_extract(e.value, '$.id') IN ({ids})"
    ),
    "postgresql": _offered_in(
        "SELECT j.run_id AS run_id, j.created_at AS created_at, j.payload->>'threadId' AS thread_id, "
        "e->>'id' AS memory_id "
        "FROM run_journal AS j, jsonb_array_elements(j.payload->'digest'->'entries') AS e "
        "WHERE j.actor_id = :actor_id AND j.position = :position AND e->>'id' IN ({ids})"
    ),
}
"""The memories a person's kept runs were offered, as rows: the digest's entries unnested in SQL."""


def _lock_key(run_id: str, position: str) -> int:
    """A position as a signed 64-bit advisory lock key (a collision only makes two positions wait for each other)."""
    digest = hashlib.blake2b(f"onfile-journal\0{run_id}\0{position}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def _tombstones(dialect_name: str) -> Any:
    if dialect_name == "postgresql":
        return postgresql.insert(pruned).on_conflict_do_nothing()
    return sqlite.insert(pruned).on_conflict_do_nothing()


def _chunks(values: list[str], size: int) -> list[list[str]]:
    return [values[i : i + size] for i in range(0, len(values), size)]


async def _stored_payload(connection: AsyncConnection, run_id: str, position: str) -> tuple[bool, Any]:
    """Whether a payload is stored at (run_id, position), and the payload, decoded as SQLAlchemy's
    JSON type decodes it (its text goes through `json.loads`)."""
    rows = await run_statement(connection, _STORED, {"run_id": run_id, "position": position})
    return (False, None) if not rows else (True, json.loads(rows[0][0]))


_STORED = select(cast(journal.c.payload, Text)).where(
    journal.c.run_id == bindparam("run_id"), journal.c.position == bindparam("position")
)
"""A payload as its JSON text (on PostgreSQL `jsonb::text`), which the driver hands over undecoded."""

_STORED_OR_PRUNED = select(
    _STORED.scalar_subquery(), exists().where(pruned.c.run_id == bindparam("run_id")).label("pruned")
)


def _insert_json_once_for(dialect_name: str) -> Any:
    """An insert of a payload given as JSON text, returning a row only when it was stored. Every
    value is a named parameter of the statement, so it compiles once (`run_statement`)."""
    if dialect_name == "postgresql":
        payload: Any = cast(bindparam("payload", type_=Text), journal.c.payload.type)
        insert: Any = postgresql.insert
    else:  # SQLite keeps JSON as text: the payload goes in as the text it is.
        payload, insert = type_coerce(bindparam("payload", type_=Text), Text), sqlite.insert
    values: dict[str, Any] = {name: bindparam(name) for name in ("run_id", "position", "created_at", "actor_id")}
    return insert(journal).values(payload=payload, **values).on_conflict_do_nothing().returning(journal.c.run_id)


_INSERT_JSON_ONCE = {name: _insert_json_once_for(name) for name in ("postgresql", "sqlite")}


def _insert_json_once(dialect_name: str) -> Any:
    return _INSERT_JSON_ONCE[dialect_name]


def _checkpoint_values(run_id: str, position: str, payload: Any, now: datetime, actor_id: str | None) -> dict[str, Any]:
    return {"run_id": run_id, "position": position, "payload": payload, "created_at": now, "actor_id": actor_id}


def _insert_once_for(insert: Any) -> Any:
    """An insert of a payload given as a value (encoded by the column's JSON type) that leaves a
    stored one as it is; every value a named parameter, so it compiles once."""
    names = ("run_id", "position", "payload", "created_at", "actor_id")
    return (
        insert(journal)
        .values({name: bindparam(name, type_=journal.c[name].type) for name in names})
        .on_conflict_do_nothing()
    )


_INSERT_ONCE = {"postgresql": _insert_once_for(postgresql.insert), "sqlite": _insert_once_for(sqlite.insert)}
