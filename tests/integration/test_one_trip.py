"""SQLAlchemy's statements on SQLite take one trip to aiosqlite's thread each, and answer exactly as
SQLAlchemy's own adapter does: rows, counts of rows changed, the id of a row inserted, streamed
results, and errors as SQLAlchemy raises them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite
import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, exc, insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from store.persistence import open_engine
from store.persistence.engine import reading, writing

notes = Table("note", MetaData(), Column("id", Integer, primary_key=True), Column("body", String, unique=True))


class Trips:
    """Counts the calls run on aiosqlite's connection threads."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        original: Any = aiosqlite.Connection._execute

        async def counted(connection: aiosqlite.Connection, fn: Any, *args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return await original(connection, fn, *args, **kwargs)

        monkeypatch.setattr(aiosqlite.Connection, "_execute", counted)


async def _with_notes(engine: AsyncEngine) -> AsyncEngine:
    async with engine.begin() as connection:
        await connection.run_sync(notes.metadata.create_all)
    return engine


@asynccontextmanager
async def _noted(engine: AsyncEngine) -> AsyncIterator[AsyncEngine]:
    try:
        yield await _with_notes(engine)
    finally:
        await engine.dispose()


@pytest.fixture
async def one_trip(tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    async with _noted(open_engine(f"sqlite+aiosqlite:///{tmp_path / 'one.sqlite3'}")) as engine:
        yield engine


@pytest.fixture
async def sqlalchemys_own(tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    """SQLAlchemy's own aiosqlite adapter, four trips a statement: what the answers are compared with."""
    async with _noted(create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'own.sqlite3'}")) as engine:
        yield engine


async def test_a_read_is_one_trip_to_the_thread(one_trip: AsyncEngine, monkeypatch: pytest.MonkeyPatch) -> None:
    async with reading(one_trip) as connection:
        await connection.execute(text("SELECT 1"))  # the connection's first use
        trips = Trips(monkeypatch)
        rows = (await connection.execute(select(text("1 + 1")))).all()

    assert rows == [(2,)]
    assert trips.count == 1


async def _acts(engine: AsyncEngine) -> list[Any]:
    """Writes and reads whose every answer SQLAlchemy takes from the cursor."""
    seen: list[Any] = []
    async with engine.begin() as connection:
        inserted = await connection.execute(insert(notes).values(body="first"))
        seen.append(inserted.inserted_primary_key)
        many = await connection.execute(insert(notes), [{"body": "second"}, {"body": "third"}])
        seen.append(many.rowcount)
        changed = await connection.execute(update(notes).where(notes.c.id > 1).values(body=notes.c.body + "!"))
        seen.append(changed.rowcount)
        nothing = await connection.execute(update(notes).where(notes.c.id > 99).values(body="x"))
        seen.append(nothing.rowcount)
    async with engine.connect() as connection:
        seen.append((await connection.execute(select(notes).order_by(notes.c.id))).all())
        seen.append((await connection.execute(select(notes).where(notes.c.id > 99))).all())
        seen.append((await connection.execute(select(notes.c.body).order_by(notes.c.id))).scalars().first())
        streamed = await connection.stream(select(notes.c.body).order_by(notes.c.id))
        seen.append([row async for row in streamed])
    with pytest.raises(exc.IntegrityError):
        async with engine.begin() as connection:
            await connection.execute(insert(notes).values(body="first"))
    with pytest.raises(exc.OperationalError):
        async with engine.connect() as connection:
            await connection.execute(text("SELECT * FROM no_such_table"))
    async with engine.connect() as connection:
        seen.append((await connection.execute(select(notes.c.id))).all())  # the failures changed nothing
    return seen


async def test_every_answer_is_the_one_sqlalchemys_own_adapter_gives(
    one_trip: AsyncEngine, sqlalchemys_own: AsyncEngine
) -> None:
    assert await _acts(one_trip) == await _acts(sqlalchemys_own)


async def test_a_write_transaction_still_commits_or_rolls_back_as_a_whole(one_trip: AsyncEngine) -> None:
    async def insert_then_fail() -> None:
        async with writing(one_trip) as connection:
            await connection.execute(insert(notes).values(body="kept?"))
            await connection.execute(insert(notes).values(body="kept?"))

    with pytest.raises(exc.IntegrityError):
        await insert_then_fail()
    async with writing(one_trip) as connection:
        await connection.execute(insert(notes).values(body="kept"))

    async with reading(one_trip) as connection:
        assert (await connection.execute(select(notes.c.body))).scalars().all() == ["kept"]
