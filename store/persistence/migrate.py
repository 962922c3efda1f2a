"""Bringing a database's schema up to date with Alembic, from code or from `onfile db upgrade`.

The migrations create the portable schema of `store.persistence.tables` plus each backend's search
machinery (SQLite: the postings tables of `store.persistence.search_index` and their triggers;
PostgreSQL: the `search_vector` column and its GIN index), which `include_in_comparison` leaves out
when the schema is compared.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from store.persistence.engine import OtherApplicationsFileError, open_engine, writing
from store.persistence.search_index import SQLITE_INDEX_TABLES

__all__ = (
    "MIGRATIONS",
    "OtherApplicationsFileError",
    "UnknownRevisionError",
    "Upgraded",
    "alembic_config",
    "downgrade_engine",
    "include_in_comparison",
    "upgrade",
    "upgrade_engine",
)

MIGRATIONS = Path(__file__).parent / "migrations"

# Any constant works: it names the lock every PostgreSQL migrator queues on.
_MIGRATION_LOCK = 0x0F11E


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration for OnFile's migrations, bound to `connection` when given."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def include_in_comparison(obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any) -> bool:
    """False for the backend-specific search objects, which the portable models do not describe."""
    if type_ == "table":
        return name not in SQLITE_INDEX_TABLES
    if type_ == "column":
        return name != "search_vector"
    if type_ == "index":
        return name != "ix_agent_memory_search_vector"
    return True


async def upgrade_engine(engine: AsyncEngine, revision: str = "head") -> Upgraded:
    """Migrate the database behind `engine` up to `revision`, in one write transaction. Concurrent
    migrators queue: SQLite's write lock, PostgreSQL's advisory lock."""
    return await _migrate(engine, command.upgrade, revision)


async def downgrade_engine(engine: AsyncEngine, revision: str) -> None:
    """Migrate the database behind `engine` down to `revision` (`base`: nothing of OnFile's left)."""
    await _migrate(engine, command.downgrade, revision)


async def upgrade(database_url: str, revision: str = "head") -> Upgraded:
    """Migrate the database at `database_url` to `revision` (the latest by default)."""
    engine = open_engine(database_url)
    try:
        return await upgrade_engine(engine, revision)
    finally:
        await engine.dispose()


@dataclass(frozen=True, slots=True)
class Upgraded:
    """The schema's revision before a migration (None: there was no schema) and after it, and the
    tables of other applications that were there when OnFile's schema was created beside them (on
    PostgreSQL: a database several applications share)."""

    before: str | None
    after: str | None
    beside: tuple[str, ...] = ()


class UnknownRevisionError(RuntimeError):
    """The database's `alembic_version` names a revision that is not one of OnFile's migrations."""

    def __init__(self, revision: str) -> None:
        self.revision = revision
        super().__init__(
            f"its schema is at revision {revision!r}, which is not one of this OnFile's: a newer OnFile "
            "migrated it (run that version, or restore a backup made before), or another application that "
            "uses Alembic keeps its revision in the same alembic_version table (give OnFile a database of its own)"
        )


def _tables_not_onfiles(sync: Connection) -> tuple[str, ...]:
    """The tables and views of a database with no OnFile schema, but Alembic's own and SQLite's internal ones."""
    found = inspect(sync)
    names = [*found.get_table_names(), *found.get_view_names()]
    return tuple(sorted(n for n in names if n != "alembic_version" and not n.startswith("sqlite_")))


def _known(config: Config, revision: str | None) -> None:
    """`UnknownRevisionError` unless `revision` (the database's) is None or one of OnFile's migrations."""
    if revision is not None and revision not in {
        r.revision for r in ScriptDirectory.from_config(config).walk_revisions()
    }:
        raise UnknownRevisionError(revision)


async def _migrate(engine: AsyncEngine, step: Callable[[Config, str], None], revision: str) -> Upgraded:
    def migrate(sync: Connection) -> Upgraded:
        before = MigrationContext.configure(sync).get_current_revision()
        config = alembic_config(sync)
        _known(config, before)
        # a SQLite file of another application's is refused as it is opened (`open_engine`)
        beside = _tables_not_onfiles(sync) if before is None and step is command.upgrade else ()
        step(config, revision)
        return Upgraded(before, MigrationContext.configure(sync).get_current_revision(), beside)

    async with writing(engine) as connection:
        if connection.dialect.name == "postgresql":
            await connection.execute(text("SELECT pg_advisory_xact_lock(:lock)"), {"lock": _MIGRATION_LOCK})
        return await connection.run_sync(migrate)
