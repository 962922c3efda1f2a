"""Opening a database: SQLite (the embedded default) or PostgreSQL, with the same guarantees.

SQLite runs in production mode on every connection: write-ahead logging (readers never block the
writer), a busy timeout, and foreign keys enforced. Its write transactions start with
`BEGIN IMMEDIATE`: a deferred transaction that reads and then writes cannot wait for the lock — SQLite
answers SQLITE_BUSY at once, whatever the timeout — while an immediate one queues behind the
current writer for up to the busy timeout.

Within one process, SQLite's writers also queue on an asyncio lock before they take a connection.
SQLite's own queue is a busy handler that sleeps and retries (1 ms, 2 ms, 5 ms, … up to 100 ms a
try), so writers that only meet there wake long after the lock is free: under concurrent load a
process's throughput falls to a fraction of what one writer at a time achieves, with seconds of tail
latency. The in-process queue hands the lock over at once; the busy timeout still orders writers
from other processes.

A commit does not checkpoint SQLite's write-ahead log, unless the log has grown past a safety net:
after its writes commit, the engine checkpoints in the background instead (`store.persistence.wal`).
"""

from __future__ import annotations

import asyncio
import math
import os
import sqlite3
import weakref
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.util import await_

from store.persistence.one_trip import one_trip_dbapi
from store.persistence.wal import SAFETY_NET_PAGES, BackgroundCheckpoints

__all__ = (
    "BUSY_TIMEOUT_MS",
    "DATABASE_URL_VARIABLE",
    "DEFAULT_DATABASE_URL",
    "POOL_SIZE",
    "AnchorOutcome",
    "AnchorRefusedError",
    "OtherApplicationsFileError",
    "anchor_outcome",
    "checkpoints_settled",
    "connections_accepted",
    "database_url_from_environment",
    "defer_statement",
    "in_joined_writes",
    "is_sqlite",
    "joined_writes",
    "natural_log",
    "only_if_anchor_inserted",
    "open_engine",
    "pending_statements",
    "printable_url",
    "provide_ln",
    "reading",
    "run_statements",
    "settle_anchor",
    "writes_refused",
    "writing",
)

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///onfile.sqlite3"
"""The embedded default: one file in the working directory."""

DATABASE_URL_VARIABLE = "ONFILE_DATABASE_URL"

BUSY_TIMEOUT_MS = 10_000
"""How long a SQLite writer queues behind another before giving up."""

WAL_FILE_LIMIT_BYTES = 16 * 1024 * 1024
"""The size SQLite cuts its write-ahead log file back to when the log starts over: above what the
background checkpoints let it reach in normal operation (up to some 1,800 pages, 7 MB), below the
safety net's 40 MB."""

POOL_SIZE = 40
"""The most connections an engine has open at once. It opens them as turns need them and keeps them:
a pool that closed what it opened for a burst (SQLAlchemy's overflow) opened and closed connections
all the time under sustained load above its size — on PostgreSQL a login each, which held replays at
64 concurrent requests to some 55% of what they reach with the connections kept."""

_WRITE_OPTION = "onfile_write"
_READ_OPTION = "onfile_read"
_BEGIN_KEY = "onfile_begin"
_PENDING_KEY = "onfile_pending"
_DEFERRING_KEY = "onfile_deferring"
_ANCHORED_KEY = "onfile_anchored"


def database_url_from_environment() -> str:
    """`ONFILE_DATABASE_URL` when set, otherwise the embedded SQLite default."""
    return os.environ.get(DATABASE_URL_VARIABLE) or DEFAULT_DATABASE_URL


def printable_url(database_url: str) -> str:
    """`database_url` as it may be shown or logged: any password masked."""
    return make_url(database_url).render_as_string(hide_password=True)


def open_engine(database_url: str, **engine_options: Any) -> AsyncEngine:
    """An async engine for `database_url` (`sqlite+aiosqlite://…` or `postgresql+asyncpg://…`).

    The caller owns it and must `await engine.dispose()` when done."""
    url = make_url(database_url)
    if url.get_backend_name() == "postgresql" or url.database not in (None, "", ":memory:"):
        # Opening a connection is a thread start and five pragmas on SQLite, a login on PostgreSQL;
        # with SQLAlchemy's default pool (5, and up to 10 more opened and closed on demand) sixteen
        # concurrent turns opened and closed connections all the time. So every connection opened is
        # kept, up to `POOL_SIZE`, and nothing overflows to be closed again. An in-memory SQLite
        # database has one connection, and no pool to size.
        engine_options.setdefault("pool_size", POOL_SIZE)
        engine_options.setdefault("max_overflow", 0)
    else:
        engine_options.pop("pool_size", None)
        engine_options.pop("max_overflow", None)
    if (url.get_backend_name(), url.get_driver_name()) == ("sqlite", "aiosqlite"):
        engine_options.setdefault("module", one_trip_dbapi())  # a statement in one trip to its thread
    engine = create_async_engine(url, **engine_options)
    if engine.dialect.name == "sqlite":
        _production_sqlite(engine)
    return engine


def is_sqlite(engine: AsyncEngine | AsyncConnection) -> bool:
    return engine.dialect.name == "sqlite"


async def writes_refused(engine: AsyncEngine) -> str | None:
    """Why the database would refuse every write, in a few words, or None when it takes them: a SQLite
    file (or its folder, where SQLite keeps its log beside it) that cannot be written — a read-only
    disk or mount, another owner — or a PostgreSQL server that accepts no writes (a standby, or
    `default_transaction_read_only`). Asked at start-up, so such a database stops the server instead
    of every turn failing."""
    if is_sqlite(engine):
        return _sqlite_file_refuses_writes(engine.url.database)
    async with reading(engine) as connection:
        read_only = (await connection.execute(text("SELECT current_setting('transaction_read_only')"))).scalar()
    return "the server accepts no writes (transaction_read_only is on: a standby?)" if read_only == "on" else None


def _sqlite_file_refuses_writes(name: str | None) -> str | None:
    if not name or name == ":memory:" or name.startswith("file:"):
        return None
    path = Path(name).resolve()
    if path.exists() and not os.access(path, os.W_OK):
        return f"the file {path} cannot be written (a read-only disk or mount, or another owner)"
    log = [path.with_name(f"{path.name}{suffix}") for suffix in ("-wal", "-shm")]
    if not all(os.access(each, os.W_OK) for each in log) and not os.access(path.parent, os.W_OK):
        return f"its folder {path.parent} cannot be written, and SQLite keeps its log there"
    return None


async def connections_accepted(engine: AsyncEngine) -> tuple[int, str] | None:
    """How many connections the database server accepts from the user OnFile signs in as, and which
    limit says so (PostgreSQL: `max_connections` less the slots kept for superusers, or the role's or
    the database's own CONNECTION LIMIT, whichever is least; a superuser has every slot and no such
    limit); None where there is no limit (SQLite)."""
    if is_sqlite(engine):
        return None
    async with reading(engine) as connection:
        row = (
            await connection.execute(
                text(
                    "SELECT current_setting('max_connections')::int, "
                    "current_setting('superuser_reserved_connections')::int, r.rolsuper, r.rolconnlimit, "
                    "d.datconnlimit FROM pg_roles AS r, pg_database AS d "
                    "WHERE r.rolname = current_user AND d.datname = current_database()"
                )
            )
        ).one()
    most, reserved, superuser, role_limit, database_limit = row
    if superuser:
        return int(most), f"max_connections {most}"
    limits = [(int(most) - int(reserved), f"max_connections {most}, less those reserved for superusers")]
    if role_limit >= 0:
        limits.append((int(role_limit), f"the CONNECTION LIMIT of the role OnFile signs in as, {role_limit}"))
    if database_limit >= 0:
        limits.append((int(database_limit), f"the database's CONNECTION LIMIT, {database_limit}"))
    return min(limits, key=lambda limit: limit[0])


@asynccontextmanager
async def reading(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A connection for reads, outside any explicit transaction: each statement is atomic on its own
    and sees its own snapshot. Reads are single statements, so this costs nothing in consistency and
    saves the BEGIN and ROLLBACK round trips that would otherwise wrap every turn's read."""
    async with _flavours(engine).reader.connect() as connection:
        yield connection


@asynccontextmanager
async def writing(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A write transaction, committed on success. On SQLite it takes the write lock up front, after
    this process's other writers (see the module's docstring). Inside `joined_writes(engine)` it is
    that block's transaction instead."""
    joined = _joined.get()
    if joined is not None and joined[0] is engine:
        yield joined[1]
        return
    flavours = _flavours(engine)
    if flavours.writers is None:
        async with flavours.writer.begin() as connection:
            yield connection
        return
    async with flavours.writers.turn(), flavours.writer.begin() as connection:
        yield connection
    if flavours.checkpoints is not None:
        flavours.checkpoints.committed()


async def checkpoints_settled(engine: AsyncEngine) -> None:
    """Wait for the engine's background checkpoint of SQLite's log, if one is running (`wal`). An
    explicit checkpoint waits for it first: SQLite answers one "busy" while another runs."""
    checkpoints = _flavours(engine).checkpoints
    if checkpoints is not None:
        await checkpoints.settled()


_joined: ContextVar[tuple[AsyncEngine, AsyncConnection] | None] = ContextVar("onfile_joined_writes", default=None)


@asynccontextmanager
async def joined_writes(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """One write transaction that every `writing(engine)` entered inside the block (by this task, in
    sequence) joins instead of opening its own: all of it commits together, or none of it does."""
    async with writing(engine) as connection:
        token = _joined.set((engine, connection))
        try:
            yield connection
        finally:
            _joined.reset(token)


def in_joined_writes(engine: AsyncEngine) -> bool:
    """Whether this task is inside `joined_writes(engine)` (a write would join its transaction)."""
    joined = _joined.get()
    return joined is not None and joined[0] is engine


class _WriterQueue:
    """One asyncio lock per event loop (an engine may outlive a loop, as in tests), waited on for at
    most the busy timeout, as SQLite's own queue is."""

    def __init__(self) -> None:
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        lock = self._locks.setdefault(asyncio.get_running_loop(), asyncio.Lock())
        async with asyncio.timeout(BUSY_TIMEOUT_MS / 1000):
            await lock.acquire()
        try:
            yield
        finally:
            lock.release()


@dataclass(frozen=True, slots=True)
class _Flavours:
    reader: AsyncEngine
    writer: AsyncEngine
    writers: _WriterQueue | None
    checkpoints: BackgroundCheckpoints | None


_flavours_of: weakref.WeakKeyDictionary[AsyncEngine, _Flavours] = weakref.WeakKeyDictionary()


def _flavours(engine: AsyncEngine) -> _Flavours:
    """The engine's read and write variants (same pool), made once per engine."""
    found = _flavours_of.get(engine)
    if found is None:
        read_options: dict[str, Any] = {_READ_OPTION: True} if is_sqlite(engine) else {"isolation_level": "AUTOCOMMIT"}
        found = _Flavours(
            reader=engine.execution_options(**read_options),
            writer=engine.execution_options(**{_WRITE_OPTION: True}),
            writers=_WriterQueue() if is_sqlite(engine) else None,
            checkpoints=BackgroundCheckpoints(engine.sync_engine) if is_sqlite(engine) else None,
        )
        _flavours_of[engine] = found
    return found


class OtherApplicationsFileError(RuntimeError):
    """A SQLite file holding another application's tables or views and none of OnFile's: OnFile does
    not open it as its store, nor change it (not even its journal mode), since a file is one
    application's database and the URL most likely names the wrong one."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        named = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        super().__init__(
            f"the SQLite file holds another application's tables ({named}) and none of OnFile's; OnFile "
            "keeps a file of its own: name a new file (it is created) or one OnFile made"
        )


_ONFILES_MARK = "agent_memory"
"""The table every OnFile schema holds: a file with it is OnFile's."""


def _refuse_another_applications_file(cursor: Any) -> None:
    """`OtherApplicationsFileError` when the file holds tables or views and none is OnFile's (a new,
    empty file, or one holding only Alembic's version table, is OnFile's to fill)."""
    cursor.execute(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
    )
    names = sorted(str(row[0]) for row in cursor.fetchall())
    if _ONFILES_MARK not in names and (others := tuple(n for n in names if n != "alembic_version")):
        raise OtherApplicationsFileError(others)


def _production_sqlite(engine: AsyncEngine) -> None:
    sync_engine = engine.sync_engine

    @event.listens_for(sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control away from the sqlite3 module: it would emit its own deferred
        # BEGIN before DML, which is exactly the transaction that cannot queue for the lock.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            cursor.execute("PRAGMA foreign_keys = ON")
            _refuse_another_applications_file(cursor)  # before the journal mode, which the file keeps
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = NORMAL")
            # The log is checkpointed in the background after writes (`wal`); a commit does it
            # itself only past this many pages, the net should the background work not keep up.
            cursor.execute(f"PRAGMA wal_autocheckpoint = {SAFETY_NET_PAGES}")
            # A burst can grow the log file to the net's 40 MB, and its old page images (forgotten
            # facts among them) would stay in the file until overwritten: when the log starts over,
            # the file is cut back to this size (a few ms, only after such a burst).
            cursor.execute(f"PRAGMA journal_size_limit = {WAL_FILE_LIMIT_BYTES}")
            # Deleted content is overwritten, not left in free pages: forgetting must reach the file.
            cursor.execute("PRAGMA secure_delete = ON")
            provide_ln(dbapi_connection, cursor)
        finally:
            cursor.close()

    _sqlite_transactions(sync_engine)


def provide_ln(dbapi_connection: Any, cursor: Any) -> bool:
    """Give the connection SQLite's `ln()` if its SQLite was built without math functions (the
    search's idf needs it): `natural_log`, registered as deterministic. Whether it had to."""
    try:
        cursor.execute("SELECT ln(1)")
    except sqlite3.OperationalError as error:
        if "no such function" not in str(error):
            raise
        dbapi_connection.create_function("ln", 1, natural_log, deterministic=True)
        return True
    cursor.fetchall()
    return False


def natural_log(value: object) -> float | None:
    """SQLite's `ln(X)`: the natural logarithm of a positive number — C's `log`, as SQLite's own and
    the reference's `math.log` both call — and NULL for anything else."""
    if isinstance(value, int | float) and value > 0:
        return math.log(float(value))
    return None


def _sqlite_transactions(sync_engine: Engine) -> None:
    """How SQLite transactions begin, run and end (see each function below)."""
    dialect = sync_engine.dialect
    event.listen(sync_engine, "begin", _choose_begin)
    event.listen(sync_engine, "before_cursor_execute", _run_pending_first)
    dialect.do_begin = _hold_begin  # type: ignore[method-assign]
    dialect.do_commit = partial(_commit_with_pending, dialect.do_commit)  # type: ignore[method-assign]
    dialect.do_rollback = partial(_rollback_when_in_transaction, dialect.do_rollback)  # type: ignore[method-assign]


def _choose_begin(connection: Connection) -> None:
    options = connection.get_execution_options()
    if options.get(_READ_OPTION, False):
        return  # sqlite3 then runs each statement in its own implicit transaction
    connection.connection.info[_BEGIN_KEY] = "BEGIN IMMEDIATE" if options.get(_WRITE_OPTION, False) else "BEGIN"


def _hold_begin(dbapi_connection: Any) -> None:
    """The BEGIN `_choose_begin` chose is held back (`pending_statements`) and runs with the
    transaction's first statement, in the same round trip to aiosqlite's thread; statements whose
    rows nobody reads may wait too (`defer_statement`), and run with the COMMIT. A new run's write,
    seven statements, is one round trip, the only one that holds the write lock."""
    info = _info(dbapi_connection)
    begin = info.pop(_BEGIN_KEY, None)
    if begin is not None:
        info[_PENDING_KEY] = [(begin, (), _PLAIN)]
        info[_DEFERRING_KEY] = True


def _run_pending_first(connection: Connection, *_args: Any) -> None:
    """Whatever SQLAlchemy itself runs first runs what waits before it, so the order of statements
    never changes (and a failure of theirs is wrapped as its own would be)."""
    pooled = connection.connection
    if _info(pooled).get(_PENDING_KEY):
        await_(run_statements(pooled, ()))
    if _held_if_anchored.get():
        await_(settle_anchor(pooled))


def _commit_with_pending(commit: Callable[[Any], None], dbapi_connection: Any) -> None:
    info = _info(dbapi_connection)
    info.pop(_DEFERRING_KEY, None)
    pending = info.get(_PENDING_KEY, [])
    if len(pending) == 1 and pending[0][0].startswith("BEGIN"):
        info.pop(_PENDING_KEY)
        return  # nothing ran in the transaction: nothing to begin or commit
    try:
        if pending:
            await_(run_statements(dbapi_connection, [("COMMIT", ())]))
        else:
            commit(dbapi_connection)
        outcome = _anchor_outcome.get()
        if outcome is not None and _ANCHORED_KEY in info:
            outcome.inserted = bool(info[_ANCHORED_KEY])
    finally:
        info.pop(_ANCHORED_KEY, None)


def _rollback_when_in_transaction(rollback: Callable[[Any], None], dbapi_connection: Any) -> None:
    """A read opens no transaction (above), yet SQLAlchemy rolls back when the connection is closed
    and again when the pool takes it back. Each is a round trip to aiosqlite's thread that does
    nothing. Roll back only when a transaction is open (the sqlite3 module opens none of its own:
    `isolation_level = None`), so a failed write is still undone; what never ran is dropped."""
    _info(dbapi_connection).pop(_DEFERRING_KEY, None)
    _info(dbapi_connection).pop(_ANCHORED_KEY, None)
    pending_statements(dbapi_connection)
    if dbapi_connection.driver_connection.in_transaction:
        rollback(dbapi_connection)


def _info(dbapi_connection: Any) -> dict[Any, Any]:
    """The pooled connection's own dict; the ad-hoc connection of the dialect's first connect has
    none (and no transaction of ours)."""
    try:
        info: dict[Any, Any] = dbapi_connection.info
    except NotImplementedError:
        return {}
    return info


Statement = tuple[str, Sequence[Any]]
"""SQL in the driver's parameter style and its parameters."""

_PLAIN, _ANCHOR, _IF_ANCHORED = "", "anchor", "if anchored"
_held_if_anchored: ContextVar[bool] = ContextVar("onfile_held_if_anchored", default=False)


@dataclass(slots=True)
class AnchorOutcome:
    """What a committed SQLite transaction's anchor did (`anchor_outcome`)."""

    inserted: bool | None = None
    """Whether the anchor inserted its row, set once the transaction's COMMIT has succeeded; None
    when no transaction with an anchor committed inside the block (then ask the database)."""


_anchor_outcome: ContextVar[AnchorOutcome | None] = ContextVar("onfile_anchor_outcome", default=None)


@contextmanager
def anchor_outcome() -> Iterator[AnchorOutcome]:
    """Learn, once a write transaction begun inside the block has committed, whether its anchor
    inserted its row: a caller that held its insert back to the COMMIT need not read back who won."""
    outcome = AnchorOutcome()
    token = _anchor_outcome.set(outcome)
    try:
        yield outcome
    finally:
        _anchor_outcome.reset(token)


@contextmanager
def only_if_anchor_inserted() -> Iterator[None]:
    """Statements held back inside the block run only if the transaction's anchor (the last
    statement held back as one, an insert that returns its row) inserted its row. A statement that
    could not wait, or one SQLAlchemy runs, after an anchor that inserted nothing raises instead of
    running: what `hold_back` holds there writes nothing the anchor did not allow."""
    token = _held_if_anchored.set(True)
    try:
        yield
    finally:
        _held_if_anchored.reset(token)


def pending_statements(pooled: Any) -> list[tuple[str, Sequence[Any], str]]:
    """What a SQLite transaction on this pooled connection holds back (its BEGIN first, then any
    deferred statement), taken: the caller runs it before anything else, or drops it on rollback."""
    pending: list[tuple[str, Sequence[Any], str]] = _info(pooled).pop(_PENDING_KEY, None) or []
    return pending


def defer_statement(pooled: Any, statement: Statement, *, anchor: bool = False) -> bool:
    """Hold `statement` back until the transaction's next statement or its COMMIT, when this pooled
    connection is in a SQLite write transaction; whether it was held (otherwise run it now). An
    `anchor` decides whether what is held back after it inside `only_if_anchor_inserted` runs."""
    info = _info(pooled)
    if not info.get(_DEFERRING_KEY, False):
        return False
    role = _ANCHOR if anchor else _IF_ANCHORED if _held_if_anchored.get() else _PLAIN
    info.setdefault(_PENDING_KEY, []).append((*statement, role))
    return True


def _anchor_refused(pooled: Any) -> bool:
    """Whether this transaction's anchor ran and inserted nothing (then nothing inside
    `only_if_anchor_inserted` may run)."""
    return _held_if_anchored.get() and not _info(pooled).get(_ANCHORED_KEY, True)


async def settle_anchor(pooled: Any) -> None:
    """Before a statement that cannot wait runs inside `only_if_anchor_inserted`: run what is held
    back, so the anchor's outcome is known, and refuse the statement if the anchor inserted nothing."""
    if not _held_if_anchored.get():
        return
    if any(role == _ANCHOR for _sql, _params, role in _info(pooled).get(_PENDING_KEY, ())):
        await run_statements(pooled, ())
    if _anchor_refused(pooled):
        raise AnchorRefusedError


class AnchorRefusedError(RuntimeError):
    """A statement that could not be held back, inside `only_if_anchor_inserted`, after an anchor
    that inserted nothing: a bug of the caller's, refused instead of run."""

    def __init__(self) -> None:
        super().__init__("a statement inside only_if_anchor_inserted() after an anchor that inserted nothing")


async def run_statements(pooled: Any, statements: Sequence[Statement]) -> list[Any]:
    """Run what the transaction holds back, then `statements`, in order, in ONE round trip to
    aiosqlite's connection thread; the rows of the last. A failure stops there and is raised as the
    sqlite3 module raised it.

    aiosqlite offers no public call for this; its own `_execute` and `_conn` are what SQLAlchemy's
    adapter also reaches for (aiosqlite is pinned below 0.23)."""
    steps = [*pending_statements(pooled), *((sql, params, _PLAIN) for sql, params in statements)]
    if not steps:
        return []
    info, driver = _info(pooled), pooled.driver_connection

    def run() -> list[Any]:
        rows: list[Any] = []
        for sql, params, role in steps:
            if role == _IF_ANCHORED and not info.get(_ANCHORED_KEY, True):
                continue
            rows = driver._conn.execute(sql, params).fetchall()
            if role == _ANCHOR:
                info[_ANCHORED_KEY] = bool(rows)
        return rows

    found: list[Any] = await driver._execute(run)
    return found
