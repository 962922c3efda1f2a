"""`onfile prune` looks after a database that exists: it never creates or migrates one, so a wrong path
or URL is said in one line instead of being "pruned" to 0 runs."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from store import Actor, MemoryOrigin, ScopeContext
from store.persistence import upgrade
from store.persistence.controls import MemoryControlStore
from store.persistence.engine import open_engine
from store.persistence.provider import SqlMemoryProvider
from tests.integration.text_scan import places_holding
from web.cli import main


def _tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as connection:
        return {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


@pytest.fixture(autouse=True)
def _in_an_empty_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ONFILE_DATABASE_URL", raising=False)


def refusal(capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exited:
        main(["prune"])
    assert exited.value.code == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, f"one line, not a traceback: {err}"
    return err


def test_prune_where_there_is_no_database_says_which_file_it_looked_for_and_creates_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = refusal(capsys)

    assert err == (
        f"onfile: there is no database at {tmp_path / 'onfile.sqlite3'} "
        "(ONFILE_DATABASE_URL=sqlite+aiosqlite:///onfile.sqlite3); housekeeping never creates one\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_prune_at_a_sqlite_url_naming_a_missing_file_creates_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "typo.sqlite3"
    monkeypatch.setenv("ONFILE_DATABASE_URL", f"sqlite+aiosqlite:///{missing}")

    assert f"there is no database at {missing} " in refusal(capsys)
    assert not missing.exists()


def test_prune_never_migrates_a_database_without_the_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.sqlite3"
    empty.touch()
    monkeypatch.setenv("ONFILE_DATABASE_URL", f"sqlite+aiosqlite:///{empty}")

    err = refusal(capsys)

    assert "cannot be used: no such table: run_journal; run `onfile db upgrade`" in err
    assert _tables(empty) == set()


def test_prune_looks_after_a_database_that_exists(capsys: pytest.CaptureFixture[str]) -> None:
    asyncio.run(upgrade("sqlite+aiosqlite:///onfile.sqlite3"))

    assert main(["prune"]) == 0

    assert "pruned the journals of 0 runs" in capsys.readouterr().out


def test_prune_removes_an_expired_memory_and_says_how_many(capsys: pytest.CaptureFixture[str]) -> None:
    asyncio.run(upgrade("sqlite+aiosqlite:///onfile.sqlite3"))
    asyncio.run(_an_expired_memory("sqlite+aiosqlite:///onfile.sqlite3"))

    assert main(["prune"]) == 0

    assert "removed 1 expired memory, and the journals of 0 runs that named them" in capsys.readouterr().out
    assert asyncio.run(_texts("sqlite+aiosqlite:///onfile.sqlite3", "short answers please")) == []
    assert main(["prune"]) == 0
    assert "removed 0 expired memories" in capsys.readouterr().out


async def _an_expired_memory(url: str) -> None:
    """Something the assistant concluded about Ada forty days ago, in an organisation that keeps such
    memories thirty."""
    engine = open_engine(url)
    try:
        await MemoryControlStore(engine).set_concluded_lifetime("berlin", days=30, by="lena")
        then = SqlMemoryProvider(engine, clock=lambda: datetime.now(UTC) - timedelta(days=40))
        origin = MemoryOrigin(author="agent", actor_ref="ada")
        ctx = ScopeContext(actor=Actor("ada", "berlin"))
        await then.write(key="tone", text="short answers please", scope="actor:ada", origin=origin, ctx=ctx)
    finally:
        await engine.dispose()


async def _texts(url: str, needle: str) -> list[str]:
    engine = open_engine(url)
    try:
        return await places_holding(engine, needle)
    finally:
        await engine.dispose()
