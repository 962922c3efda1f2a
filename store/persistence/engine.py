"""Opening a database: SQLite (the embedded default) or PostgreSQL, with the same guarantees.

SQLite runs in production mode on every connection: write-ahead logging (readers never block the
writer), a busy timeout, and foreign keys enforced. Its write transactions start with
`BEGIN IMMEDIATE`: a deferred transaction that reads and then writes cannot wait for the lock — SQLite
answers SQLITE_BUSY at once, whatever the timeout — while an immediate one queues behind the
current writer for up to the busy timeout.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

__all__ = (
    "BUSY_TIMEOUT_MS",
    "DATABASE_URL_VARIABLE",
    "DEFAULT_DATABASE_URL",
    "database_url_from_environment",
    "is_sqlite",
    "open_engine",
    "printable_url",
    "reading",
    "writing",
)

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///onfile.sqlite3"
"""The embedded default: one file in the working directory."""

DATABASE_URL_VARIABLE = "ONFILE_DATABASE_URL"

BUSY_TIMEOUT_MS = 10_000
"""How long a SQLite writer queues behind another before giving up."""

_WRITE_OPTION = "onfile_write"


def database_url_from_environment() -> str:
    """`ONFILE_DATABASE_URL` when set, otherwise the embedded SQLite default."""
    return os.environ.get(DATABASE_URL_VARIABLE) or DEFAULT_DATABASE_URL


def printable_url(database_url: str) -> str:
    """`database_url` as it may be shown or logged: any password masked."""
    return make_url(database_url).render_as_string(hide_password=True)


def open_engine(database_url: str, **engine_options: Any) -> AsyncEngine:
    """An async engine for `database_url` (`sqlite+aiosqlite://…` or `postgresql+asyncpg://…`).

    The caller owns it and must `await engine.dispose()` when done."""
    engine = create_async_engine(database_url, **engine_options)
    if engine.dialect.name == "sqlite":
        _production_sqlite(engine)
    return engine


def is_sqlite(engine: AsyncEngine | AsyncConnection) -> bool:
    return engine.dialect.name == "sqlite"


@asynccontextmanager
async def reading(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A connection for reads (a deferred transaction on SQLite, rolled back at the end)."""
    async with engine.connect() as connection:
        yield connection


@asynccontextmanager
async def writing(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A write transaction, committed on success. On SQLite it takes the write lock up front."""
    async with engine.execution_options(**{_WRITE_OPTION: True}).begin() as connection:
        yield connection


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
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = NORMAL")
        finally:
            cursor.close()

    @event.listens_for(sync_engine, "begin")
    def _on_begin(connection: Connection) -> None:
        immediate = connection.get_execution_options().get(_WRITE_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
