"""The migrations build exactly the schema the models describe, plus each backend's search machinery."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from store import Actor, MemoryOrigin
from store.domain.finding import folded_memory
from store.in_memory import InMemoryMemoryProvider
from store.persistence.controls import MemoryControlStore
from store.persistence.engine import is_sqlite, open_engine
from store.persistence.journal import RunJournal
from store.persistence.memories import insert_records
from store.persistence.migrate import alembic_config, downgrade_engine, include_in_comparison, upgrade, upgrade_engine
from store.persistence.people import KnownPeople
from store.persistence.provider import SqlMemoryProvider
from store.persistence.search_index import SQLITE_INDEX_TABLES
from store.persistence.tables import TableBase
from store.persistence.terms import index_terms, term
from tests.integration.builders import ctx, make_record
from tests.integration.index_check import index_out_of_step

_TRIGGERS = ("agent_memory_terms_insert", "agent_memory_terms_delete", "agent_memory_terms_update")


def _differences(connection: Connection) -> list[Any]:
    context = MigrationContext.configure(
        connection, opts={"include_object": include_in_comparison, "compare_type": True}
    )
    return list(compare_metadata(context, TableBase.metadata))


def _schema(connection: Connection) -> dict[str, Any]:
    inspector = inspect(connection)
    tables = set(inspector.get_table_names())
    return {
        "tables": tables,
        "memory_columns": {c["name"] for c in inspector.get_columns("agent_memory")},
        "memory_indexes": {i["name"] for i in inspector.get_indexes("agent_memory")},
    }


async def test_the_migrations_produce_exactly_the_models_schema(engine: AsyncEngine) -> None:
    async with engine.connect() as connection:
        differences = await connection.run_sync(_differences)

    assert differences == []


async def test_the_comparison_notices_a_schema_that_differs(engine: AsyncEngine) -> None:
    async with engine.begin() as connection:
        await connection.exec_driver_sql("DROP TABLE dashboard_session")
        differences = await connection.run_sync(_differences)

    assert [d[0] for d in differences if d[0] == "add_table"] == ["add_table"]


async def test_each_backend_gets_its_search_machinery(engine: AsyncEngine) -> None:
    async with engine.connect() as connection:
        schema = await connection.run_sync(_schema)
        if is_sqlite(engine):
            triggers = await connection.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'trigger'")
            names = {name for (name,) in triggers.all()}

    if is_sqlite(engine):
        assert schema["tables"] >= SQLITE_INDEX_TABLES
        assert not {name for name in schema["tables"] if name.startswith("memory_fts")}, "FTS5 is gone"
        assert names == set(_TRIGGERS)
    else:
        assert "search_vector" in schema["memory_columns"]
        assert "ix_agent_memory_search_vector" in schema["memory_indexes"]


async def test_upgrading_an_up_to_date_database_changes_nothing(engine: AsyncEngine) -> None:
    await upgrade_engine(engine)

    async with engine.connect() as connection:
        assert await connection.run_sync(_differences) == []
        version = await connection.exec_driver_sql("SELECT version_num FROM alembic_version")
        assert version.scalars().all() == [ScriptDirectory.from_config(alembic_config()).get_current_head()]


async def test_the_migrations_downgrade_to_nothing_and_back(engine: AsyncEngine) -> None:
    await downgrade_engine(engine, "base")
    async with engine.connect() as connection:
        assert (await connection.run_sync(_schema_tables)) <= {"alembic_version"}

    await upgrade_engine(engine)
    async with engine.connect() as connection:
        assert await connection.run_sync(_differences) == []


async def _journal_compression(engine: AsyncEngine, run_id: str) -> tuple[str, str | None]:
    """The journal payload column's compression setting ("default": the server's, pglz unless
    configured), and the method the payload of `run_id` was stored with (None: too small to compress)."""
    async with engine.connect() as connection:
        setting = await connection.scalar(
            sa.text(
                "SELECT CASE attcompression WHEN 'l' THEN 'lz4' WHEN 'p' THEN 'pglz' ELSE 'default' END "
                "FROM pg_attribute "
                "WHERE attrelid = 'run_journal'::regclass AND attname = 'payload'"
            )
        )
        stored = await connection.scalar(
            sa.text("SELECT pg_column_compression(payload) FROM run_journal WHERE run_id = :run_id"),
            {"run_id": run_id},
        )
    return str(setting), stored


@pytest.mark.postgres
async def test_postgresql_compresses_new_journal_payloads_with_lz4_and_reads_old_ones_alike(
    postgres_database_url: str,
) -> None:
    payload = {"entries": [{"key": f"k{n}", "text": f"a fact about route {n} and its depot"} for n in range(400)]}
    engine = open_engine(postgres_database_url)
    journal = RunJournal(engine)

    async def stored(value: object) -> object:
        return value

    try:
        await downgrade_engine(engine, "0004")
        await journal.checkpoint("before", "memory:digest", lambda: stored(payload))
        assert await _journal_compression(engine, "before") == ("default", "pglz")

        await upgrade_engine(engine)
        await journal.checkpoint("after", "memory:digest", lambda: stored(payload))
        assert await _journal_compression(engine, "after") == ("lz4", "lz4")
        assert (await journal.checkpoints("before"))["memory:digest"] == payload
        assert (await journal.checkpoints("after"))["memory:digest"] == payload

        await downgrade_engine(engine, "0004")
        assert (await _journal_compression(engine, "after"))[0] == "default"
    finally:
        await engine.dispose()


def _sqlite_layout(path: Path) -> tuple[set[tuple[str, ...]], dict[str, int]]:
    """Every schema object SQLite holds (type, name, table, the SQL that made it), and FTS5's settings."""
    with closing(sqlite3.connect(path)) as connection:
        objects = set(connection.execute("SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master"))
        settings = dict(connection.execute("SELECT k, v FROM memory_fts_config"))
    return objects, settings


def _fts_rows(path: Path, scope: str, word: str) -> list[int]:
    """The rows FTS5 (revisions 0002 and 0003) finds for `word` at `scope`."""
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("INSERT INTO memory_fts (memory_fts) VALUES ('integrity-check')")
        found = connection.execute("SELECT rowid FROM memory_fts WHERE memory_fts MATCH ?", (f'"{term(scope, word)}"',))
        return sorted(rowid for (rowid,) in found)


STORED = [
    make_record("route", "the depot route runs past the depot", "actor:ada"),
    make_record("units", "report distances in kilometres", "global"),
    make_record("depot", "the depot opens at six", "tenant:berlin"),
    make_record("route", "our depot route is secret", "actor:bea"),
]


async def test_downgrading_to_0003_rebuilds_its_fts5_index_exactly(sqlite_database_url: str, tmp_path: Path) -> None:
    fresh = tmp_path / "at_0003.sqlite3"
    await upgrade(f"sqlite+aiosqlite:///{fresh}", "0003")
    engine = open_engine(sqlite_database_url)
    try:
        await SqlMemoryProvider(engine).add(STORED)
        await downgrade_engine(engine, "0003")
    finally:
        await engine.dispose()
    path = Path(make_url(sqlite_database_url).database or "")

    assert _sqlite_layout(path) == _sqlite_layout(fresh)
    assert _sqlite_layout(path)[1] == {"version": 4, "automerge": 2, "crisismerge": 4, "usermerge": 2}
    assert _fts_rows(path, "actor:ada", "depot") == [1]
    assert _fts_rows(path, "tenant:berlin", "depot") == [3]


async def test_upgrading_from_0003_indexes_the_memories_already_stored(sqlite_database_url: str) -> None:
    engine = open_engine(sqlite_database_url)
    try:
        await downgrade_engine(engine, "0003")
        async with engine.begin() as connection:
            # as revision 0003 stored them, FTS5's triggers firing
            await insert_records(connection, STORED, page_columns=False)
        await upgrade_engine(engine)
        differences = await index_out_of_step(engine)
        found = await SqlMemoryProvider(engine).search(
            scopes=["actor:ada", "tenant:berlin", "global"], query="depot", limit=5, ctx=ctx()
        )
    finally:
        await engine.dispose()

    assert differences == []
    expected = await InMemoryMemoryProvider(STORED).search(
        scopes=["actor:ada", "tenant:berlin", "global"], query="depot", limit=5, ctx=ctx()
    )
    assert [r.id for r in found] == [r.id for r in expected]
    assert {r.key for r in found} == {"route", "depot"}


def _schema_tables(connection: Connection) -> set[str]:
    return set(inspect(connection).get_table_names())


async def test_upgrading_from_the_first_revision_indexes_the_memories_already_stored(engine: AsyncEngine) -> None:
    """Revision 0002 moved the index from words to per-scope terms: rows written under 0001 get their
    terms, and search finds them by their words, on their scope only."""
    await downgrade_engine(engine, "0001")
    async with engine.begin() as connection:
        for n, (scope, key, text) in enumerate(
            [("actor:ada", "depot", "works at Spandau"), ("tenant:hamburg", "depot", "Spandau is closed")]
        ):
            await connection.execute(
                sa.text(
                    "INSERT INTO agent_memory (id, scope, key, text, origin_author, pinned, created_at, updated_at)"
                    " VALUES (:id, :scope, :key, :text, 'human', false, :at, :at)"
                ),
                {"id": f"mem_{n}", "scope": scope, "key": key, "text": text, "at": datetime(2026, 1, 1, tzinfo=UTC)},
            )

    await upgrade_engine(engine)

    provider = SqlMemoryProvider(engine)
    found = await provider.search(scopes=["actor:ada", "global"], query="spandau", limit=5, ctx=ctx())
    assert [(r.id, r.scope) for r in found] == [("mem_0", "actor:ada")]
    async with engine.connect() as connection:
        stored = await connection.execute(sa.text("SELECT search_terms FROM agent_memory WHERE id = 'mem_0'"))
        assert stored.scalar_one() == index_terms("actor:ada", "depot", "works at Spandau")
    if is_sqlite(engine):
        assert await index_out_of_step(engine) == []


def _people_columns(connection: Connection) -> set[str]:
    return {c["name"] for c in inspect(connection).get_columns("known_person")}


async def test_downgrading_to_0007_drops_the_names_and_keeps_the_people_seen(engine: AsyncEngine) -> None:
    people = KnownPeople(engine)
    await people.note(Actor("ada", "berlin"), name="Ada Lovelace")

    await downgrade_engine(engine, "0007")
    async with engine.connect() as connection:
        downgraded = await connection.run_sync(_people_columns)
    await upgrade_engine(engine)

    assert "name" not in downgraded
    assert await people.find("ada") == Actor("ada", "berlin")
    assert await people.names_of(["ada"]) == {}


async def test_downgrading_to_0012_drops_the_expiry_and_keeps_the_memories(engine: AsyncEngine) -> None:
    provider = SqlMemoryProvider(engine)
    origin = MemoryOrigin(author="agent", actor_ref="ada")
    controls = MemoryControlStore(engine)
    await controls.set_concluded_lifetime("berlin", days=30, by="lena")
    await provider.write(key="tone", text="short answers", scope="actor:ada", origin=origin, ctx=ctx())

    await downgrade_engine(engine, "0012")
    async with engine.connect() as connection:
        downgraded = await connection.run_sync(_schema)
    await upgrade_engine(engine)

    assert not {"confirmed_at", "expires_at"} & downgraded["memory_columns"]
    assert "organisation_expiry" not in downgraded["tables"]
    assert [r.key for r in await provider.list(scopes=["actor:ada"], ctx=ctx())] == ["tone"]
    assert await controls.concluded_lifetime("berlin") == (None, False)


async def test_upgrading_to_0014_refolds_rows_stored_with_letters_that_have_no_case(engine: AsyncEngine) -> None:
    """Before 0014, 𝐁𝐨𝐥𝐝 was stored folded as "Bold" (found on SQLite, whose LIKE ignores ASCII case,
    and not on PostgreSQL): the upgrade stores what a search asks for now, on each backend."""
    provider = SqlMemoryProvider(engine)
    origin = MemoryOrigin(author="human", actor_ref="ada")
    fancy = await provider.write(key="ℍ𝕠𝕥𝕖𝕝", text="𝐁𝐨𝐥𝐝 letters", scope="actor:ada", origin=origin, ctx=ctx())
    await provider.write(key="plain", text="plain letters", scope="actor:ada", origin=origin, ctx=ctx())
    await downgrade_engine(engine, "0013")
    async with engine.begin() as connection:  # as the earlier rule stored it
        await connection.execute(
            sa.text(
                "UPDATE agent_memory SET folded_words = ' Hotel  Bold letters ', sort_key = 'Hotel' WHERE id = :id"
            ),
            {"id": fancy.id},
        )

    await upgrade_engine(engine)

    async with engine.connect() as connection:
        stored = (await connection.execute(sa.text("SELECT key, folded_words, sort_key FROM agent_memory"))).all()
    assert sorted((key, words, by) for key, words, by in stored) == sorted(
        [
            ("ℍ𝕠𝕥𝕖𝕝", folded_memory("ℍ𝕠𝕥𝕖𝕝", "𝐁𝐨𝐥𝐝 letters"), "hotel"),
            ("plain", folded_memory("plain", "plain letters"), "plain"),
        ]
    )
    assert "bold" in folded_memory("ℍ𝕠𝕥𝕖𝕝", "𝐁𝐨𝐥𝐝 letters")


async def test_upgrading_to_0015_refolds_rows_holding_stroked_letters(engine: AsyncEngine) -> None:
    """Before 0015, "Łódź" was stored folded as "łódź", so a search typed "lodz" found nothing: the
    upgrade stores the plain letters, and leaves a row without such letters as it was."""
    provider = SqlMemoryProvider(engine)
    origin = MemoryOrigin(author="human", actor_ref="ada")
    stroked = await provider.write(key="Søren", text="works in Łódź", scope="actor:ada", origin=origin, ctx=ctx())
    await provider.write(key="plain", text="works in Berlin", scope="actor:ada", origin=origin, ctx=ctx())
    await downgrade_engine(engine, "0014")
    async with engine.begin() as connection:  # as the earlier rule stored it
        await connection.execute(
            sa.text(
                "UPDATE agent_memory SET folded_words = ' søren  works in łódź ', sort_key = 'søren' WHERE id = :id"
            ),
            {"id": stroked.id},
        )

    await upgrade_engine(engine)

    async with engine.connect() as connection:
        stored = (await connection.execute(sa.text("SELECT key, folded_words, sort_key FROM agent_memory"))).all()
    assert sorted((key, words, by) for key, words, by in stored) == [
        ("Søren", " soren  works in lodz ", "soren"),
        ("plain", folded_memory("plain", "works in Berlin"), "plain"),
    ]
