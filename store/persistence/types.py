"""Column types and identifiers shared by every table.

Timestamps are stored in UTC and always come back timezone-aware, on SQLite (which keeps no zone)
as on PostgreSQL (which keeps `timestamptz`): a record with a naive time cannot even be built.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

__all__ = ("UtcDateTime", "new_id", "utc_now")


def utc_now() -> datetime:
    return datetime.now(UTC)


def new_id(prefix: str) -> str:
    """`<prefix>_` then 48 bits of milliseconds and 80 random bits, in hex.

    Ids sort by creation time (so an index on them stays append-mostly) and cannot be guessed: the
    random part is drawn from `secrets`, which matters because an id is a delete handle."""
    millis = time.time_ns() // 1_000_000
    return f"{prefix}_{millis:012x}{secrets.token_hex(10)}"


class UtcDateTime(TypeDecorator[datetime]):
    """A timezone-aware instant, stored in UTC. A naive datetime is refused rather than guessed at."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            msg = f"refusing to store a naive datetime: {value!r}"
            raise ValueError(msg)
        utc = value.astimezone(UTC)
        # SQLite keeps no zone: store the UTC wall time, so text order is time order.
        return utc.replace(tzinfo=None) if dialect.name == "sqlite" else utc

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        stamp: datetime = value
        return stamp.replace(tzinfo=UTC) if stamp.tzinfo is None else stamp.astimezone(UTC)

    def result_processor(self, dialect: Dialect, coltype: object) -> Callable[[Any], datetime | None] | None:
        # Every turn reads these, so the two drivers get a direct path: asyncpg already returns a
        # timestamptz as an aware UTC datetime, and SQLite's text is ISO 8601 in UTC.
        if dialect.name == "postgresql" and dialect.driver == "asyncpg":
            return None
        if dialect.name == "sqlite":
            parse = datetime.fromisoformat

            def from_sqlite_text(value: str | None) -> datetime | None:
                return None if value is None else parse(value).replace(tzinfo=UTC)

            return from_sqlite_text
        return super().result_processor(dialect, coltype)
