"""Which failures are a database outage (503, try again) and which are bugs (500)."""

from __future__ import annotations

import sqlite3

import asyncpg
import pytest
from sqlalchemy import exc

from store.persistence.outage import DATABASE_ERROR_TYPES, database_unavailable


def wrapped(
    orig: BaseException, kind: type[exc.DBAPIError] = exc.OperationalError, *, invalidated: bool = False
) -> exc.DBAPIError:
    return kind("SELECT 1", None, orig, connection_invalidated=invalidated)


def caused_by(cause: BaseException) -> RuntimeError:
    try:
        raise RuntimeError("while reading") from cause
    except RuntimeError as error:
        return error


OUTAGES = [
    pytest.param(ConnectionRefusedError(111, "Connect call failed"), id="refused"),
    pytest.param(ConnectionResetError(), id="reset"),
    pytest.param(wrapped(Exception("connection is closed"), exc.InterfaceError, invalidated=True), id="invalidated"),
    pytest.param(wrapped(sqlite3.OperationalError("database is locked")), id="sqlite-locked"),
    pytest.param(wrapped(sqlite3.OperationalError("unable to open database file")), id="sqlite-unopenable"),
    pytest.param(asyncpg.CannotConnectNowError("the database system is starting up"), id="starting-up"),
    pytest.param(asyncpg.AdminShutdownError("terminating connection due to administrator command"), id="shutdown"),
    pytest.param(asyncpg.TooManyConnectionsError("too many clients"), id="too-many"),
    pytest.param(exc.TimeoutError("QueuePool limit reached"), id="pool-timeout"),
    pytest.param(wrapped(sqlite3.OperationalError("attempt to write a readonly database")), id="sqlite-read-only"),
    pytest.param(wrapped(sqlite3.OperationalError("database or disk is full")), id="sqlite-disk-full"),
    pytest.param(sqlite3.OperationalError("unable to open database file"), id="sqlite-unopenable-on-the-driver-path"),
    pytest.param(
        asyncpg.ReadOnlySQLTransactionError("cannot execute INSERT in a read-only transaction"), id="pg-read-only"
    ),
    pytest.param(asyncpg.DiskFullError("could not extend file"), id="pg-disk-full"),
]
BUGS = [
    pytest.param(wrapped(sqlite3.IntegrityError("UNIQUE constraint failed"), exc.IntegrityError), id="constraint"),
    pytest.param(wrapped(sqlite3.OperationalError("no such table: agent_memory")), id="schema"),
    pytest.param(wrapped(Exception("syntax error"), exc.ProgrammingError), id="statement"),
    pytest.param(asyncpg.UniqueViolationError("duplicate key"), id="pg-constraint"),
    pytest.param(sqlite3.OperationalError("no such table: agent_memory"), id="schema-on-the-driver-path"),
    pytest.param(ValueError("not a database error"), id="other"),
]


@pytest.mark.parametrize("error", OUTAGES)
def test_an_unreachable_database_is_an_outage(error: BaseException) -> None:
    assert database_unavailable(error)


@pytest.mark.parametrize("error", BUGS)
def test_anything_else_is_not(error: BaseException) -> None:
    assert not database_unavailable(error)


@pytest.mark.parametrize("error", OUTAGES)
def test_every_outage_is_one_of_the_types_a_handler_is_registered_for(error: BaseException) -> None:
    assert isinstance(error, DATABASE_ERROR_TYPES)


def test_an_outage_is_found_in_what_caused_an_error() -> None:
    assert database_unavailable(caused_by(ConnectionRefusedError()))
    assert not database_unavailable(caused_by(ValueError()))
