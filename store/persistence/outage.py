"""Telling "the database cannot be reached right now" from every other failure, without the caller
importing SQLAlchemy or a driver.

An outage says nothing about the request: the server is down, restarting or refusing connections, a
connection died mid-statement, the pool waited too long for one, SQLite's write lock was held past
the busy timeout, or the database stopped taking writes (its disk is full, its file or server went
read-only) — an operator's to mend, not a bug. The web layer answers those with 503 and asks again on the next
request (the pool drops connections it saw die, so service resumes by itself once the database is
back). Anything else — a constraint, a bad statement — is a bug and stays a 500.
"""

from __future__ import annotations

import socket
import sqlite3
from collections.abc import Iterator

import asyncpg
from sqlalchemy import exc

__all__ = ("DATABASE_ERROR_TYPES", "database_unavailable")

DATABASE_ERROR_TYPES: tuple[type[Exception], ...] = (
    exc.SQLAlchemyError,
    exc.EmulatedDBAPIException,  # the driver's error as SQLAlchemy's adapter raises it, on the driver path
    sqlite3.Error,
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    ConnectionError,
    socket.gaierror,
)
"""The exception types an outage can surface as: register a handler for each, and let it ask
`database_unavailable` whether this one is an outage."""

_OUTAGES: tuple[type[BaseException], ...] = (
    ConnectionError,  # refused or reset while connecting
    socket.gaierror,  # the host name does not resolve
    asyncpg.PostgresConnectionError,  # refused, rejected, gone mid-operation
    asyncpg.CannotConnectNowError,  # starting up or shutting down
    asyncpg.OperatorInterventionError,  # administrator or crash shutdown
    asyncpg.TooManyConnectionsError,
    asyncpg.InterfaceError,  # "connection is closed"
    asyncpg.ReadOnlySQLTransactionError,  # a standby, or a server made read-only
    asyncpg.InsufficientResourcesError,  # the disk is full, out of memory
)
_SQLITE_OUTAGE_WORDS = (
    "database is locked",
    "unable to open database",
    "disk i/o error",
    "database is busy",
    "attempt to write a readonly database",  # the file, its disk or its mount went read-only
    "database or disk is full",
)


def database_unavailable(error: BaseException) -> bool:
    """Whether `error` (or what caused it) says the database cannot be used right now."""
    for cause in _chain(error):
        if isinstance(cause, exc.DBAPIError) and cause.connection_invalidated:
            return True
        if isinstance(cause, exc.DisconnectionError | exc.TimeoutError):  # TimeoutError: the pool's
            return True
        if isinstance(cause, _OUTAGES):
            return True
        said = str(cause.orig if isinstance(cause, exc.OperationalError) else cause).lower()
        operational = isinstance(cause, exc.OperationalError | sqlite3.OperationalError | exc.EmulatedDBAPIException)
        if operational and any(word in said for word in _SQLITE_OUTAGE_WORDS):
            return True
    return False


def _chain(error: BaseException) -> Iterator[BaseException]:
    """The error, then what caused it, each once (SQLAlchemy wraps the driver's in `orig`)."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [error]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        pending += [current.__cause__, current.__context__, getattr(current, "orig", None)]
