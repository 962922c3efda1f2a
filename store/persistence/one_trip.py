"""SQLAlchemy's statements on aiosqlite in one round trip to its connection's thread, not four.

Every call into aiosqlite is a round trip to the thread that owns the sqlite3 connection, and on
these machines a round trip costs several times what a short statement costs SQLite. SQLAlchemy's
adapter makes four for each statement it runs — open a cursor, execute, fetch the rows, close the
cursor — so a page that asks ten small questions spends most of its database time handing work
between threads (about 260 µs a statement here, against 50 µs for one trip).

The adapter given to `open_engine`'s SQLite engines (`one_trip_dbapi`) keeps SQLAlchemy's adapter as
it is, except for its cursor: a statement opens a sqlite3 cursor, executes, reads every row the
adapter would read and closes the cursor in ONE call on the connection's thread, and the adapter is
handed what that call saw (the rows, the description, the row count, the last row id). Everything
else — transactions, errors and how they are translated, server-side cursors for streamed results —
is SQLAlchemy's own. aiosqlite offers no public call for this; its `_execute` and `_conn`, which
SQLAlchemy's adapter reaches for as well, are what it uses (aiosqlite is pinned below 0.23).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

import aiosqlite
from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_cursor,
    AsyncAdapt_aiosqlite_dbapi,
)

__all__ = ("one_trip_dbapi",)


class _Seen:
    """What one statement left on its sqlite3 cursor, read on the connection's thread."""

    __slots__ = ("arraysize", "description", "lastrowid", "rowcount", "rows")

    def __init__(self) -> None:
        self.arraysize = 1
        self.description: Any = None
        self.rowcount = -1
        self.lastrowid: int | None = None
        self.rows: list[Any] = []


class _ThreadCursor:
    """Stands where SQLAlchemy's adapter keeps aiosqlite's cursor: `execute` and `executemany` each
    run whole on the connection's thread, and the rest answers from what they saw."""

    __slots__ = ("_connection", "_seen")

    def __init__(self, connection: Any) -> None:
        self._connection = connection
        self._seen = _Seen()

    @property
    def description(self) -> Any:
        return self._seen.description

    @property
    def rowcount(self) -> int:
        return self._seen.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self._seen.lastrowid

    @property
    def arraysize(self) -> int:
        return self._seen.arraysize

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        self._seen.arraysize = value

    async def execute(self, operation: str, parameters: Sequence[Any] | None = None) -> _ThreadCursor:
        given = (operation,) if parameters is None else (operation, parameters)
        return await self._on_thread(lambda cursor: cursor.execute(*given), read_rows=True)

    async def executemany(self, operation: str, parameters: Sequence[Sequence[Any]]) -> _ThreadCursor:
        return await self._on_thread(lambda cursor: cursor.executemany(operation, parameters), read_rows=False)

    async def _on_thread(self, act: Callable[[Any], object], *, read_rows: bool) -> _ThreadCursor:
        """`act` on a fresh sqlite3 cursor, what it left read and the cursor closed: one call on the
        connection's thread."""
        sqlite = self._connection._conn
        arraysize = self._seen.arraysize

        def run() -> _Seen:
            cursor = sqlite.cursor()
            try:
                act(cursor)
                return _seen_on(cursor, arraysize, read_rows=read_rows)
            finally:
                cursor.close()

        self._seen = await self._connection._execute(run)
        return self

    async def fetchall(self) -> list[Any]:
        rows, self._seen.rows = self._seen.rows, []
        return rows

    def close(self) -> None:
        self._seen.rows = []


def _seen_on(cursor: Any, arraysize: int, *, read_rows: bool) -> _Seen:
    seen = _Seen()
    seen.arraysize = arraysize
    seen.description = cursor.description
    seen.rows = cursor.fetchall() if read_rows and cursor.description else []
    seen.rowcount = cursor.rowcount
    seen.lastrowid = cursor.lastrowid
    return seen


class _OneTripCursor(AsyncAdapt_aiosqlite_cursor):
    """SQLAlchemy's aiosqlite cursor over a `_ThreadCursor`: opening and closing it cost no trip."""

    __slots__ = ()
    _awaitable_cursor_close = False

    def _make_new_cursor(self, connection: Any) -> Any:
        return _ThreadCursor(connection)

    def _aenter_cursor(self, cursor: Any) -> Any:
        return cursor


class _OneTripConnection(AsyncAdapt_aiosqlite_connection):
    __slots__ = ()

    _cursor_cls = _OneTripCursor


class _OneTripDbapi(AsyncAdapt_aiosqlite_dbapi):
    def connect(self, *arg: Any, **kw: Any) -> AsyncAdapt_aiosqlite_connection:
        adapted = super().connect(*arg, **kw)
        adapted.__class__ = _OneTripConnection  # the same object, with the cursor above
        return adapted


def one_trip_dbapi() -> AsyncAdapt_aiosqlite_dbapi:
    """The DBAPI module for `create_async_engine(..., module=...)` on `sqlite+aiosqlite`."""
    return _OneTripDbapi(aiosqlite, sqlite3)
