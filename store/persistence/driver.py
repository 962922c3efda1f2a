"""Running a turn's few statements straight on the driver connection, and SQLite's point reads inline.

SQLAlchemy's execution and result layers cost more than SQLite's or PostgreSQL's own work for a
turn's read (building the statement, an execution context, a `Row` per row). A hot read instead runs
SQL compiled once on the pooled connection's driver — aiosqlite or asyncpg — and gets back the
driver's own rows (tuples, asyncpg Records). A failure is raised as SQLAlchemy would raise it: a
`DBAPIError` around the driver's error, with the connection invalidated when it is gone, so that
`store.persistence.outage` classifies it as it would SQLAlchemy's own and the pool drops a dead connection.

A turn's reads borrow their connection straight from the engine's pool (`borrowed_reading`): making
and putting back SQLAlchemy's `AsyncConnection` around it cost some 70–80 µs here, as much as the
read itself on PostgreSQL. A connection that served a read cleanly is then kept for the next read,
since checking it out and back in cost another 50 µs (`_KeptReaders`). Reads are lent at most a
quarter of the pool at once; a read that finds them all in use waits for one to come back (up to
`LEND_WAIT_SECONDS`, then it takes one from the pool), so that many concurrent turns share a few
connections rather than checking more out and back in. One that failed goes back, and whatever the
pool invalidates or disposes of, the kept ones follow. The pool, its size, and the translation of a
failed connect are SQLAlchemy's own, unchanged; a read opens no transaction on either driver.

On SQLite every call into aiosqlite is a round trip to its connection's thread, and on these machines
a round trip costs about ten times what a point read costs SQLite (some 170 µs of CPU against 16 µs).
SQLAlchemy makes three or four of them a statement. So a turn's statements run on the driver in one
trip each (`run_statement`), and short reads run inline on the event loop's own thread, with no trip
at all: a lookup by key — a replay's journal read (`point_rows`) — and a read that its own LIMIT keeps
to at most `INLINE_ROWS_AT_MOST` rows — a turn's read of its few memories (`short_rows`). On a
write-ahead-logged database a reader takes no lock a writer holds, and the inline connection never
waits: any error at all, a busy database included, drops it and the read takes the pooled path
instead, which answers or fails exactly as the pooled path does. Writes never go inline (the inline
connection is read-only): they keep their one writer at a time. Nothing inline may hold the loop for
long whatever its plan: a statement still running after `INLINE_STEPS_AT_MOST` of SQLite's
virtual-machine steps is interrupted, and runs again on the pooled connection's thread. A search grows
with what the person holds: it runs inline only for a person the turn's first read found to hold at
most `WHOLE_LIST_AT_MOST` (200) memories at their scopes, on a far smaller budget (`searched_rows`);
anyone else's goes to the thread from the start.
"""

from __future__ import annotations

import asyncio
import collections
import sqlite3
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from contextvars import ContextVar, Token
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from sqlalchemy import event, exc
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.pool import PoolProxiedConnection, QueuePool
from sqlalchemy.sql import ClauseElement, Executable, Select
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.selectable import CompoundSelect, TextualSelect
from sqlalchemy.util import greenlet_spawn

from store.persistence.engine import (
    AnchorRefusedError,
    defer_statement,
    provide_ln,
    reading,
    run_statements,
    settle_anchor,
)

__all__ = (
    "FAST_DRIVERS",
    "BorrowedConnection",
    "DriverStatement",
    "ReadConnection",
    "Selecting",
    "as_results",
    "borrowed_reading",
    "driver_rows",
    "driver_statement",
    "has_fast_driver",
    "hold_back",
    "kept_readers",
    "point_rows",
    "pooled_of",
    "rows_beside",
    "run_statement",
    "searched_rows",
    "short_rows",
)

INLINE_ROWS_AT_MOST = 256
"""The most rows a read may be limited to and still run inline (`short_rows`): a turn's read of at most
`WHOLE_LIST_AT_MOST` + 1 records, or of twenty keys' worth at three scopes, is in; a list of every
record at a person's scopes, which may be thousands, is not."""

INLINE_STEPS_AT_MOST = 200_000
"""SQLite virtual-machine steps after which an inline read is interrupted and run on the pooled
connection's thread instead: a read of 201 records at three scopes takes about 5,000, and 200,000 are
a few milliseconds of the loop at most — the bound on what an unexpected plan can cost it."""

INLINE_SEARCH_STEPS_AT_MOST = 30_000
"""The steps a search may take inline before it is interrupted and run on the pooled connection's
thread (`searched_rows`): a turn's search of some forty memories takes about 6,500, one of two
hundred about 30,000; past that, about a millisecond of the loop at most."""

FAST_DRIVERS = frozenset({("sqlite", "aiosqlite"), ("postgresql", "asyncpg")})
"""The (dialect, driver) pairs `driver_rows` knows how to run on; any other takes SQLAlchemy's path."""


def has_fast_driver(dialect: Dialect) -> bool:
    return (dialect.name, dialect.driver) in FAST_DRIVERS


class BorrowedConnection:
    """A pooled connection borrowed for reads, with no `AsyncConnection` around it: only what the hot
    paths below ask of a connection. It is never in a transaction."""

    __slots__ = ("_pooled", "dialect", "inline")

    def __init__(self, dialect: Dialect, pooled: PoolProxiedConnection, inline: _InlineReaders | None = None) -> None:
        self.dialect = dialect
        self._pooled = pooled
        self.inline = inline
        """The engine's inline readers (a SQLite file), which `short_rows` tries first; else None."""

    @property
    def pooled(self) -> PoolProxiedConnection:
        return self._pooled

    async def get_raw_connection(self) -> PoolProxiedConnection:
        return self._pooled

    async def invalidate(self, exception: BaseException | None = None) -> None:
        """The connection is gone: the pool closes it and opens a fresh one for the next checkout."""
        await greenlet_spawn(self._pooled.invalidate, exception)

    def in_transaction(self) -> bool:
        return False


Selecting = Select[Any] | CompoundSelect[Any] | TextualSelect
"""A statement that selects rows, whose columns' types say how to read each value (`as_results`)."""

ReadConnection = AsyncConnection | BorrowedConnection
"""What a read runs on: SQLAlchemy's connection, or (on aiosqlite and asyncpg) a borrowed one."""


class _KeptReaders:
    """The read connections one engine lends its turns' reads and keeps between them, out of its pool
    (see `borrowed_reading`).

    At most `most` connections are lent at once, idle ones included: a quarter of the pool, so that
    writers and everything else always find the rest. A read that finds them all in use waits for
    one to come back, as a pool of that size would, rather than taking another from SQLAlchemy's pool
    and handing it back after: under many concurrent turns that checkout and checkin cost more than
    the read. A read waits at most `LEND_WAIT_SECONDS` (a slow read must not hold up short ones for
    long), and a task that already holds a lent connection never waits for a second: both take one
    from the pool instead, given back to it after (not lent)."""

    __slots__ = ("idle", "lent", "most", "stale", "waiting")

    def __init__(self, most: int) -> None:
        self.idle: list[PoolProxiedConnection] = []
        self.lent = 0
        """How many connections are lent now: in use by a read, idle, or stale."""
        self.most = most
        self.stale: list[PoolProxiedConnection] = []
        """Kept when the pool invalidated a connection: given back to the pool on the next borrow
        (an outage's other connections are as dead as the one that failed, and the pool replaces
        them at checkout; a kept one would fail a turn first)."""
        self.waiting: collections.deque[asyncio.Future[PoolProxiedConnection | None]] = collections.deque()

    async def borrow(self, engine: AsyncEngine) -> tuple[PoolProxiedConnection, bool]:
        """A connection for a read, and whether it is lent (counted against `most`)."""
        if self.stale:
            stale, self.stale = self.stale, []
            for pooled in stale:
                try:
                    await greenlet_spawn(pooled.close)
                finally:
                    self._freed()
        waited_long = False
        while True:
            if self.idle:
                return self.idle.pop(), True
            if self.lent < self.most:
                self.lent += 1
                try:
                    return await engine.raw_connection(), True
                except BaseException:
                    self._freed()
                    raise
            if waited_long or _lending.get():
                return await engine.raw_connection(), False
            handed, waited_long = await self._wait()
            if handed is not None:
                return handed, True

    async def give_back(self, pooled: PoolProxiedConnection, *, lent: bool, clean: bool) -> None:
        """A connection back from a read: kept (or handed to a read waiting for one) when it is lent
        and served its read cleanly; otherwise given back to the pool, which closes or replaces it."""
        if lent and clean and pooled.is_valid:
            if not self._hand(pooled):
                self.idle.append(pooled)
            return
        try:
            await greenlet_spawn(pooled.close)
        finally:
            if lent:
                self._freed()

    def _freed(self) -> None:
        """A lent connection went back to the pool: a read waiting may borrow another in its place."""
        self.lent -= 1
        self._hand(None)

    def _hand(self, pooled: PoolProxiedConnection | None) -> bool:
        """Give `pooled` (None: the right to borrow one) to the first read still waiting; whether one was."""
        while self.waiting:
            waiter = self.waiting.popleft()
            if not waiter.done():
                waiter.set_result(pooled)
                return True
        return False

    async def _wait(self) -> tuple[PoolProxiedConnection | None, bool]:
        """A connection handed back (or None: a lent one went back to the pool, so one may be
        borrowed in its place), and whether `LEND_WAIT_SECONDS` passed first."""
        waiter: asyncio.Future[PoolProxiedConnection | None] = asyncio.get_running_loop().create_future()
        self.waiting.append(waiter)
        try:
            async with asyncio.timeout(LEND_WAIT_SECONDS):
                await waiter
        except TimeoutError:
            pass
        except BaseException:
            self._pass_on(waiter)  # cancelled: what was handed to this read goes to another
            raise
        if waiter.done() and not waiter.cancelled():
            return waiter.result(), False  # handed over as the time ran out: still this read's
        waiter.cancel()
        return None, True

    def _pass_on(self, waiter: asyncio.Future[PoolProxiedConnection | None]) -> None:
        if not waiter.done():
            waiter.cancel()
        elif not waiter.cancelled():
            handed = waiter.result()
            if handed is None:
                self._hand(None)
            elif not self._hand(handed):
                self.idle.append(handed)

    def drop(self, *_event: object) -> None:
        self.stale += self.idle
        self.idle.clear()

    def close(self, _engine: object) -> None:
        """The engine is disposed (inside its greenlet): what is kept is closed now, not left open."""
        kept, self.idle = [*self.idle, *self.stale], []
        self.stale = []
        self.lent -= len(kept)
        for pooled in kept:
            pooled.invalidate()


_lending: ContextVar[bool] = ContextVar("onfile_lending", default=False)
"""Whether this task holds a lent connection (then it never waits for a second)."""

LEND_WAIT_SECONDS = 0.25
"""The longest a read waits for a lent connection before it takes one from the pool instead."""


_kept_of: weakref.WeakKeyDictionary[AsyncEngine, _KeptReaders | None] = weakref.WeakKeyDictionary()

KEPT_SHARE = 4
"""A pool keeps up to 1/`KEPT_SHARE` of its connections for reads (`_KeptReaders`)."""


def _kept_readers(engine: AsyncEngine) -> _KeptReaders | None:
    """The engine's kept read connections: only where the pool is a sized queue (an in-memory SQLite
    database shares one connection, which is never kept out of its pool) of at least `KEPT_SHARE`."""
    try:
        return _kept_of[engine]
    except KeyError:
        pass
    pool = engine.sync_engine.pool
    kept = None
    if has_fast_driver(engine.dialect) and isinstance(pool, QueuePool) and pool.size() >= KEPT_SHARE:
        kept = _KeptReaders(pool.size() // KEPT_SHARE)
        event.listen(engine.sync_engine, "invalidate", kept.drop)
        event.listen(engine.sync_engine, "soft_invalidate", kept.drop)
        event.listen(engine.sync_engine, "engine_disposed", kept.close)
    _kept_of[engine] = kept
    return kept


def kept_readers(engine: AsyncEngine) -> int:
    """How many read connections `engine` keeps out of its pool between turns, now."""
    kept = _kept_of.get(engine)
    return 0 if kept is None else len(kept.idle) + len(kept.stale)


class borrowed_reading:  # noqa: N801 - used as the function it replaces: `async with borrowed_reading(engine)`
    """A connection for one turn's reads, outside any transaction, as `reading(engine)` gives — on
    aiosqlite and asyncpg borrowed straight from the pool (see the module's docstring), on any other
    driver `reading`'s own.

    A turn's read is a few hundred microseconds, and checking a connection out of SQLAlchemy's pool
    and back in cost some 50 µs of it (each runs in a greenlet, since either may open or close a
    connection, which awaits the driver). So reads are lent up to `_KeptReaders.most` connections,
    waiting for one when all are in use, and one that served a read cleanly is kept for the next; one
    that failed, or that the pool invalidated, goes back to the pool, which closes or replaces it."""

    __slots__ = ("_engine", "_kept", "_lent", "_pooled", "_reading", "_token")

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._kept: _KeptReaders | None = None
        self._lent = False
        self._pooled: PoolProxiedConnection | None = None
        self._reading: AbstractAsyncContextManager[AsyncConnection] | None = None
        self._token: Token[bool] | None = None

    async def __aenter__(self) -> ReadConnection:
        engine = self._engine
        if not has_fast_driver(engine.dialect):
            self._reading = reading(engine)
            return await self._reading.__aenter__()
        kept = self._kept = _kept_readers(engine)
        if kept is None:
            self._pooled = await engine.raw_connection()
        else:
            if kept.idle and not kept.stale:  # the usual case, with nothing to await
                self._pooled, self._lent = kept.idle.pop(), True
            else:
                self._pooled, self._lent = await kept.borrow(engine)
            if self._lent:
                self._token = _lending.set(True)
        return BorrowedConnection(engine.dialect, self._pooled, _inline_readers(engine))

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: Any) -> None:
        if self._reading is not None:
            await self._reading.__aexit__(kind, error, trace)
            return
        pooled, kept = self._pooled, self._kept
        assert pooled is not None  # noqa: S101 - entered
        if self._token is not None:
            _lending.reset(self._token)
        if kept is None:
            await greenlet_spawn(pooled.close)
        elif self._lent and kind is None and not kept.waiting and pooled.is_valid:
            kept.idle.append(pooled)  # the usual case: kept for the next read, nobody waiting
        else:
            await kept.give_back(pooled, lent=self._lent, clean=kind is None)


async def pooled_of(connection: ReadConnection) -> PoolProxiedConnection:
    """The pooled connection under `connection`. SQLAlchemy's `get_raw_connection` hops into a greenlet
    each time, in case the connection must be made again, some 15 µs; one that holds its connection
    (not closed, not invalidated) gives it without any, so it is read straight off it then."""
    if isinstance(connection, BorrowedConnection):
        return connection.pooled
    held = connection.sync_connection
    if held is not None and not held.closed and not held.invalidated:
        return held.connection
    return await connection.get_raw_connection()


async def driver_rows(connection: ReadConnection, sql: str, params: Sequence[Any]) -> Sequence[Sequence[Any]]:
    """Every row `sql` selects, as the driver returns them (aiosqlite: tuples, in one trip to its
    thread; asyncpg: Records, through its statement cache). `sql` must be in the dialect's own
    parameter style; only for dialects `has_fast_driver` accepts."""
    borrowed = isinstance(connection, BorrowedConnection)
    pooled = await pooled_of(connection)
    driver: Any = pooled.driver_connection
    sqlite_driver = connection.dialect.name == "sqlite"
    try:
        if sqlite_driver and borrowed:
            # outside any transaction: nothing is held back, and aiosqlite's own call is one trip
            rows: Sequence[Sequence[Any]] = await driver.execute_fetchall(sql, params)
        elif sqlite_driver:
            # what the transaction held back runs first, in the same round trip (see `engine`)
            await settle_anchor(pooled)
            rows = await run_statements(pooled, [(sql, params)])
        else:
            rows = await driver.fetch(sql, *params)
    except AnchorRefusedError:
        raise
    except Exception as error:
        failure = _as_sqlalchemy_error(connection.dialect, driver, sql, params, error, sqlite_driver=sqlite_driver)
        if failure.connection_invalidated:
            _invalidate_generation(pooled, failure)
            await connection.invalidate(failure)
        raise failure from error
    return rows


def _invalidate_generation(pooled: PoolProxiedConnection, failure: BaseException) -> None:
    """What SQLAlchemy's own execution does when a connection turns out to be gone: every connection
    its pool opened until now is replaced at its next checkout, instead of each failing a request of
    its own first (after a database restart, all of them are as dead as this one)."""
    pool = getattr(pooled, "_pool", None)
    if pool is not None:
        pool._invalidate(pooled, failure, _checkin=False)  # SQLAlchemy's own step on a disconnect; not public


def _as_sqlalchemy_error(
    dialect: Dialect, driver: Any, sql: str, params: Sequence[Any], error: Exception, *, sqlite_driver: bool
) -> exc.DBAPIError:
    """The error SQLAlchemy's own execution would raise for `error`, as its adapters translate it:
    aiosqlite's "no active connection" `ValueError` becomes sqlite3's `OperationalError`, and the
    dialect decides whether the connection is gone (asyncpg: the driver says it is closed)."""
    if sqlite_driver:
        orig: Exception = sqlite3.OperationalError(str(error)) if isinstance(error, ValueError) else error
        gone = isinstance(orig, sqlite3.Error) and dialect.is_disconnect(orig, None, None)  # type: ignore[arg-type]
        base: type[Exception] = sqlite3.Error
    else:
        orig, gone, base = error, bool(driver.is_closed()), Exception
    wrapped = exc.DBAPIError.instance(
        sql, list(params), orig, base, connection_invalidated=gone, dialect=dialect, ismulti=False
    )
    if isinstance(wrapped, exc.DBAPIError):
        return wrapped
    # Not a driver error at all (a bug of ours): still a DBAPIError, so every handler sees one type.
    return exc.DBAPIError(sql, list(params), orig, connection_invalidated=gone)


@dataclass(frozen=True, slots=True)
class DriverStatement:
    """A statement compiled once for one dialect: its SQL in the driver's parameter style, the name
    each positional parameter takes its value from (or, for a literal SQLAlchemy bound itself, the
    value), and how SQLAlchemy's types convert each value."""

    sql: str
    names: tuple[str, ...]
    literals: Mapping[str, Any]
    processors: tuple[Callable[[Any], Any] | None, ...]

    def parameters(self, values: Mapping[str, Any]) -> list[Any]:
        given = {**self.literals, **values} if self.literals else values
        return [
            value if process is None else process(value)
            for name, process in zip(self.names, self.processors, strict=True)
            for value in (given[name],)
        ]


_compiled: dict[tuple[int, str, str], tuple[Executable, DriverStatement]] = {}


def driver_statement(dialect: Dialect, statement: Executable) -> DriverStatement:
    """`statement` (built once, with named `bindparam`s) compiled for `dialect`, cached."""
    shape = (id(statement), dialect.name, dialect.driver)
    found = _compiled.get(shape)
    if found is not None and found[0] is statement:
        return found[1]
    compiled = cast(SQLCompiler, cast(ClauseElement, statement).compile(dialect=dialect))
    names = tuple(compiled.positiontup or ())
    binds = {name: compiled.binds[name] for name in names}
    literals = {name: bind.effective_value for name, bind in binds.items() if not bind.required}
    processors = tuple(binds[name].type.dialect_impl(dialect).bind_processor(dialect) for name in names)
    made = DriverStatement(compiled.string, names, literals, processors)
    _compiled[shape] = (statement, made)  # the statement is kept, so its id is never reused
    return made


def as_results(dialect: Dialect, statement: Selecting, row: Sequence[Any]) -> list[Any]:
    """A driver's row of `statement` (built once) with each value as SQLAlchemy's result would give
    it: through its column's type (on SQLite, a time's ISO text read as an aware datetime and a JSON
    column's text decoded; asyncpg's values mostly need nothing)."""
    shape = (id(statement), dialect.name, dialect.driver)
    found = _results.get(shape)
    if found is None or found[0] is not statement:
        processors = tuple(
            column.type.dialect_impl(dialect).result_processor(dialect, None) for column in statement.selected_columns
        )
        found = _results[shape] = (statement, processors)
    return [value if process is None else process(value) for value, process in zip(row, found[1], strict=True)]


_results: dict[tuple[int, str, str], tuple[Selecting, tuple[Callable[[Any], Any] | None, ...]]] = {}


async def run_statement(
    connection: ReadConnection, statement: Executable, values: Mapping[str, Any], *, deferrable: bool = False
) -> Sequence[Sequence[Any]]:
    """Run `statement` with `values` and return its rows as the driver gives them (raw values: on
    SQLite a time is ISO text, a flag 0 or 1). On aiosqlite that is one trip to its thread, inside
    whatever transaction the connection holds — or, `deferrable` (its rows unread), none: it may be
    held back (see `hold_back`), and then answers no rows. On asyncpg only outside a transaction (its
    adapter opens the transaction with SQLAlchemy's first statement, so a statement run past it first
    would commit on its own): inside one, and on any other driver, SQLAlchemy runs it."""
    if deferrable and await hold_back(connection, statement, values):
        return []
    dialect = connection.dialect
    sqlite_driver = (dialect.name, dialect.driver) == ("sqlite", "aiosqlite")
    # a borrowed connection is only ever made for a fast driver, outside a transaction
    if (
        isinstance(connection, BorrowedConnection)
        or sqlite_driver
        or (has_fast_driver(dialect) and not connection.in_transaction())
    ):
        prepared = driver_statement(dialect, statement)
        return await driver_rows(connection, prepared.sql, prepared.parameters(values))
    result = await connection.execute(statement, dict(values))
    return result.all() if result.returns_rows else []


async def hold_back(
    connection: ReadConnection, statement: Executable, values: Mapping[str, Any], *, anchor: bool = False
) -> bool:
    """In a SQLite write transaction on aiosqlite, hold `statement` back until the transaction's next
    statement or its COMMIT, which carry it in their round trip; whether it was held (if not, the
    caller runs it). A failure surfaces there, failing the transaction as a whole. An `anchor` is an
    insert returning its row: what is held back after it inside `only_if_anchor_inserted` runs only
    if it inserted one."""
    dialect = connection.dialect
    if (dialect.name, dialect.driver) != ("sqlite", "aiosqlite"):
        return False
    prepared = driver_statement(dialect, statement)
    held = (prepared.sql, prepared.parameters(values))
    return defer_statement(await pooled_of(connection), held, anchor=anchor)


async def rows_beside(
    engine: AsyncEngine, connection: ReadConnection, statement: Executable, values: Mapping[str, Any]
) -> Sequence[Sequence[Any]]:
    """The rows of a short lookup by key made while `connection` (of `engine`) holds a write
    transaction: on a SQLite file inline on this thread (a WAL reader reads beside the writer, and
    costs no trip to the driver's thread), otherwise on `connection` itself, never on a second pooled
    connection the transaction would wait for."""
    inline = _inline_readers(engine)
    if inline is not None:
        prepared = driver_statement(engine.dialect, statement)
        rows = inline.rows(prepared.sql, prepared.parameters(values))
        if rows is not None:
            return rows
    return await run_statement(connection, statement, values)


async def point_rows(engine: AsyncEngine, statement: Executable, values: Mapping[str, Any]) -> Sequence[Sequence[Any]]:
    """The rows of a short lookup by key, as `run_statement` returns them: on a SQLite file inline
    on this thread (see the module's docstring), otherwise on a pooled connection."""
    inline = _inline_readers(engine)
    if inline is not None:
        prepared = driver_statement(engine.dialect, statement)
        rows = inline.rows(prepared.sql, prepared.parameters(values))
        if rows is not None:
            return rows
    async with borrowed_reading(engine) as connection:
        return await run_statement(connection, statement, values)


async def searched_rows(
    connection: ReadConnection, statement: Executable, values: Mapping[str, Any], *, inline: bool
) -> Sequence[Sequence[Any]]:
    """`run_statement` for a read whose size depends on how much a person holds (a search, the keys
    at their scopes), `inline` when the caller knows the person holds few memories at those scopes:
    then, on a connection borrowed from a SQLite file's engine, it runs inline first, for at most
    `INLINE_SEARCH_STEPS_AT_MOST` steps, and on the pooled connection's thread past that."""
    reader = connection.inline if inline and isinstance(connection, BorrowedConnection) else None
    if reader is not None:
        prepared = driver_statement(connection.dialect, statement)
        rows = reader.rows(prepared.sql, prepared.parameters(values), steps=INLINE_SEARCH_STEPS_AT_MOST)
        if rows is not None:
            return rows
    return await run_statement(connection, statement, values)


async def short_rows(connection: ReadConnection, sql: str, params: Sequence[Any]) -> Sequence[Sequence[Any]]:
    """`driver_rows` for a read whose own LIMIT keeps it to at most `INLINE_ROWS_AT_MOST` rows: on a
    connection borrowed from a SQLite file's engine, inline on this thread (see the module's
    docstring), and on the borrowed connection when the inline read could not answer."""
    inline = connection.inline if isinstance(connection, BorrowedConnection) else None
    if inline is not None:
        rows = inline.rows(sql, params)
        if rows is not None:
            return rows
    return await driver_rows(connection, sql, params)


class _StepBudget:
    """What an inline statement may still run, in calls of SQLite's progress handler (one every
    `_STEPS_PER_CALL` steps): it answers "stop" once the budget is spent. SQLite counts a cached
    statement's steps across its runs, so the budget is counted here, set afresh before each read."""

    __slots__ = ("calls_left",)

    def __init__(self) -> None:
        self.calls_left = 0

    def __call__(self) -> bool:
        self.calls_left -= 1
        return self.calls_left < 0


_STEPS_PER_CALL = 1_000


class _InlineReaders:
    """One read-only sqlite3 connection per thread that asks (in practice, the event loop's), opened
    on first use, never waiting for a lock, closed when the engine is disposed."""

    def __init__(self, uri: str) -> None:
        self._uri = uri
        self._by_thread: dict[int, tuple[sqlite3.Connection, _StepBudget]] = {}
        self._lock = threading.Lock()

    def rows(self, sql: str, params: Sequence[Any], *, steps: int | None = None) -> Sequence[Sequence[Any]] | None:
        """The rows, or None when the inline read could not answer (the caller reads pooled): it met
        a lock or any other error (the connection is dropped), or ran past `steps` steps
        (`INLINE_STEPS_AT_MOST` unless said)."""
        thread = threading.get_ident()
        opened = self._by_thread.get(thread)
        try:
            connection, budget = self._open(thread) if opened is None else opened
            budget.calls_left = (INLINE_STEPS_AT_MOST if steps is None else steps) // _STEPS_PER_CALL
            return connection.execute(sql, params).fetchall()
        except sqlite3.OperationalError as error:
            if str(error) != "interrupted":
                self._drop(thread)
            return None
        except sqlite3.Error:
            self._drop(thread)
            return None

    def _open(self, thread: int) -> tuple[sqlite3.Connection, _StepBudget]:
        # `timeout=0`: never wait on a lock; `mode=rw`: never create a file that is not there.
        connection = sqlite3.connect(self._uri, uri=True, timeout=0, isolation_level=None, check_same_thread=False)
        try:
            connection.execute("PRAGMA query_only = ON")
            provide_ln(connection, connection.cursor())  # the search's idf, where SQLite lacks it
        except sqlite3.Error:
            connection.close()
            raise
        budget = _StepBudget()
        connection.set_progress_handler(budget, _STEPS_PER_CALL)
        with self._lock:
            self._by_thread[thread] = (connection, budget)
        return connection, budget

    def _drop(self, thread: int) -> None:
        with self._lock:
            opened = self._by_thread.pop(thread, None)
        if opened is not None:
            opened[0].close()

    def close(self) -> None:
        with self._lock:
            opened, self._by_thread = list(self._by_thread.values()), {}
        for connection, _budget in opened:
            connection.close()


_inline_of: weakref.WeakKeyDictionary[AsyncEngine, _InlineReaders | None] = weakref.WeakKeyDictionary()


def _inline_readers(engine: AsyncEngine) -> _InlineReaders | None:
    """The engine's inline readers: only for an aiosqlite engine on a plain database file (not an
    in-memory database, which another connection cannot see, nor a URL with options of its own)."""
    if engine in _inline_of:
        return _inline_of[engine]
    url, database = engine.url, engine.url.database or ""
    readers = None
    plain_file = database not in ("", ":memory:") and not database.startswith("file:") and not url.query
    if (engine.dialect.name, engine.dialect.driver) == ("sqlite", "aiosqlite") and plain_file:
        made = readers = _InlineReaders(f"{Path(database).absolute().as_uri()}?mode=rw")
        event.listen(engine.sync_engine, "engine_disposed", lambda _engine: made.close())
    _inline_of[engine] = readers
    return readers
