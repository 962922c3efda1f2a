"""Counting the statements the store runs, whichever way each runs.

A statement reaches the database through SQLAlchemy's execution (its `before_cursor_execute` event
sees it), straight on the driver (`store.persistence.driver.driver_rows`), or inline on a SQLite file
(`_InlineReaders.rows`, counted when it answered: one that could not is run again pooled, and counted
there). A test that holds a page to a number of statements counts all three.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine

from store.persistence import driver

__all__ = ("statements_run",)


@contextmanager
def statements_run(engine: AsyncEngine) -> Iterator[list[str]]:
    """The SQL of every statement run on `engine` while inside, in order (the driver's and the inline
    paths' are counted whatever engine they serve: a test has one)."""
    seen: list[str] = []

    def executed(_connection: Any, _cursor: Any, sql: str, *_rest: Any) -> None:
        seen.append(sql)

    on_driver = driver.driver_rows
    inline = driver._InlineReaders.rows

    async def driver_rows(connection: driver.ReadConnection, sql: str, params: Sequence[Any]) -> Any:
        seen.append(sql)
        return await on_driver(connection, sql, params)

    def inline_rows(readers: Any, sql: str, params: Sequence[Any], *, steps: int | None = None) -> Any:
        rows = inline(readers, sql, params, steps=steps)
        if rows is not None:
            seen.append(sql)
        return rows

    event.listen(engine.sync_engine, "before_cursor_execute", executed)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(driver, "driver_rows", driver_rows)
            patch.setattr(driver._InlineReaders, "rows", inline_rows)
            yield seen
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", executed)
