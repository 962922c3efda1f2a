"""`onfile db upgrade`: creates or updates a database's schema, from a flag or the environment."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from store.persistence import DATABASE_URL_VARIABLE, upgrade
from web.cli import main

OUR_TABLES = {"agent_memory", "run_journal", "conversation_thread", "conversation_run", "audit_entry"}


def _tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as connection:
        return {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_db_upgrade_creates_the_schema_at_the_given_url(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "fresh.sqlite3"

    assert main(["db", "upgrade", "--database-url", f"sqlite+aiosqlite:///{path}"]) == 0

    assert OUR_TABLES | {"dashboard_session", "memory_terms", "alembic_version"} <= _tables(path)
    assert capsys.readouterr().out.startswith("created the schema (revision ")


def test_db_upgrade_reads_the_url_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "from-env.sqlite3"
    monkeypatch.setenv(DATABASE_URL_VARIABLE, f"sqlite+aiosqlite:///{path}")

    assert main(["db", "upgrade"]) == 0
    assert main(["db", "upgrade"]) == 0, "running it again is harmless"

    assert capsys.readouterr().out.splitlines()[-1].startswith("the schema was up to date already (revision ")
    assert _tables(path) >= OUR_TABLES


@pytest.mark.postgres
def test_db_upgrade_never_prints_a_password(postgres_database_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    with_password = postgres_database_url.replace("@", ":hunter2@", 1)

    assert main(["db", "upgrade", "--database-url", with_password]) == 0

    assert "hunter2" not in capsys.readouterr().out


def test_db_upgrade_says_from_which_revision_it_brought_the_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'older.sqlite3'}"
    asyncio.run(upgrade(url, "0012"))

    assert main(["db", "upgrade", "--database-url", url]) == 0

    assert capsys.readouterr().out.startswith("brought the schema up to date (revision 0012 to ")
