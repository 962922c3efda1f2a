"""The migrations build exactly the schema the models describe, plus each backend's search machinery."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from store.persistence.engine import is_sqlite, open_engine
from store.persistence.migrate import downgrade_engine, include_in_comparison, upgrade_engine
from store.persistence.provider import SqlMemoryProvider
from store.persistence.tables import TableBase
from store.persistence.terms import index_terms
from tests.integration.builders import ctx

_TRIGGERS = ("agent_memory_fts_insert", "agent_memory_fts_delete", "agent_memory_fts_update")


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


async def test_each_backend_gets_its_full_text_machinery(engine: AsyncEngine) -> None:
    async with engine.connect() as connection:
        schema = await connection.run_sync(_schema)
        if is_sqlite(engine):
            triggers = await connection.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'trigger'")
            names = {name for (name,) in triggers.all()}

    if is_sqlite(engine):
        assert "memory_fts" in schema["tables"]
        assert names == set(_TRIGGERS)
    else:
        assert "search_vector" in schema["memory_columns"]
        assert "ix_agent_memory_search_vector" in schema["memory_indexes"]


async def test_upgrading_an_up_to_date_database_changes_nothing(engine: AsyncEngine) -> None:
    await upgrade_engine(engine)

    async with engine.connect() as connection:
        assert await connection.run_sync(_differences) == []
        version = await connection.exec_driver_sql("SELECT version_num FROM alembic_version")
        assert version.scalars().all() == ["0003"]


async def test_the_migrations_downgrade_to_nothing_and_back(engine: AsyncEngine) -> None:
    await downgrade_engine(engine, "base")
    async with engine.connect() as connection:
        assert (await connection.run_sync(_schema_tables)) <= {"alembic_version"}

    await upgrade_engine(engine)
    async with engine.connect() as connection:
        assert await connection.run_sync(_differences) == []


async def _sqlite_merging(engine: AsyncEngine) -> dict[str, int]:
    """The index's merge settings (FTS5 stores only those set)."""
    async with engine.connect() as connection:
        config = await connection.execute(sa.text("SELECT k, v FROM memory_fts_config WHERE k != 'version'"))
        return {row[0]: row[1] for row in config.all()}


async def test_from_revision_0003_sqlite_s_index_merges_each_pair_of_segments(sqlite_database_url: str) -> None:
    engine = open_engine(sqlite_database_url)
    try:
        merging = await _sqlite_merging(engine)
        await downgrade_engine(engine, "0002")
        merging_0002 = await _sqlite_merging(engine)
    finally:
        await engine.dispose()

    assert merging == {"automerge": 2, "crisismerge": 4, "usermerge": 2}
    assert merging_0002 == {"automerge": 4, "crisismerge": 16, "usermerge": 4}, "FTS5's defaults"


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
