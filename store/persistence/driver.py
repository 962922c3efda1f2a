"""Running a read straight on the driver connection, for the few reads every turn makes.

SQLAlchemy's execution and result layers cost more than SQLite's or PostgreSQL's own work for a
turn's read (building the statement, an execution context, a `Row` per row). A hot read instead runs
SQL compiled once on the pooled connection's driver — aiosqlite or asyncpg — and gets back the
driver's own rows (tuples, asyncpg Records). The connection still comes from `reading(engine)`, so
pooling and transactions are unchanged, and a failure is raised as SQLAlchemy would raise it: a
`DBAPIError` around the driver's error, with the connection invalidated when it is gone, so that
`store.persistence.outage` classifies it exactly as before and the pool drops a dead connection.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from sqlalchemy import exc
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncConnection

__all__ = ("FAST_DRIVERS", "driver_rows", "has_fast_driver")

FAST_DRIVERS = frozenset({("sqlite", "aiosqlite"), ("postgresql", "asyncpg")})
"""The (dialect, driver) pairs `driver_rows` knows how to run on; any other takes SQLAlchemy's path."""


def has_fast_driver(dialect: Dialect) -> bool:
    return (dialect.name, dialect.driver) in FAST_DRIVERS


async def driver_rows(connection: AsyncConnection, sql: str, params: Sequence[Any]) -> Sequence[Sequence[Any]]:
    """Every row `sql` selects, as the driver returns them (aiosqlite: tuples, in one trip to its
    thread; asyncpg: Records, through its statement cache). `sql` must be in the dialect's own
    parameter style; only for dialects `has_fast_driver` accepts."""
    pooled = await connection.get_raw_connection()
    driver: Any = pooled.driver_connection
    sqlite_driver = connection.dialect.name == "sqlite"
    try:
        if sqlite_driver:
            rows: Sequence[Sequence[Any]] = await driver.execute_fetchall(sql, params)
        else:
            rows = await driver.fetch(sql, *params)
    except Exception as error:
        failure = _as_sqlalchemy_error(connection.dialect, driver, sql, params, error, sqlite_driver=sqlite_driver)
        if failure.connection_invalidated:
            await connection.invalidate(failure)
        raise failure from error
    return rows


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
