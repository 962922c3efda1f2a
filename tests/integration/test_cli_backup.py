"""`onfile db backup`: a copy of the SQLite database that holds every commit, the ones still in the
write-ahead log included, taken while the database is in use; never over an existing file."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from store import MemoryOrigin, MemoryRecord
from store.persistence import open_engine, upgrade
from store.persistence.engine import writing
from store.persistence.provider import SqlMemoryProvider
from tests.builders import T0
from web.cli import main

URL = "sqlite+aiosqlite:///onfile.sqlite3"


def memories(path: Path) -> int:
    with closing(sqlite3.connect(path)) as connection:
        return int(connection.execute("SELECT count(*) FROM agent_memory").fetchone()[0])


@pytest.fixture(autouse=True)
def _in_a_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ONFILE_DATABASE_URL", URL)
    monkeypatch.setenv("ONFILE_EMBEDDER", "none")


def test_a_backup_taken_while_the_database_is_open_holds_what_only_its_log_holds_yet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async def serve_and_back_up() -> tuple[int, int]:
        await upgrade(URL)
        engine = open_engine(URL)
        try:
            origin = MemoryOrigin(author="human", actor_ref="ada")
            records = [MemoryRecord(f"m{n}", f"key-{n}", "a fact", "actor:ada", origin, T0) for n in range(10)]
            await SqlMemoryProvider(engine).add(records)
            async with writing(engine):
                pass
            logged = (tmp_path / "onfile.sqlite3-wal").stat().st_size
            # the command runs beside the open engine, as beside a running server
            code = await asyncio.to_thread(main, ["db", "backup", "backups/onfile-monday.sqlite3"])
            return code, logged
        finally:
            await engine.dispose()

    (tmp_path / "backups").mkdir()
    code, logged = asyncio.run(serve_and_back_up())

    assert logged > 0, "the writes were still in the log, where a copy of the file alone would miss them"
    assert code == 0
    assert memories(tmp_path / "onfile.sqlite3") == 10
    assert memories(tmp_path / "backups" / "onfile-monday.sqlite3") == 10
    out = capsys.readouterr().out
    assert out.startswith(
        f"backed up {tmp_path / 'onfile.sqlite3'} to {tmp_path / 'backups' / 'onfile-monday.sqlite3'}"
    )
    assert ": 10 memories, 0 people," in out
    assert out.endswith("MB, checked whole\n")


@pytest.mark.parametrize(
    ("setup", "target", "said"),
    [
        ("database", "onfile.sqlite3", "exists already: a backup never overwrites a file"),
        ("database", "no-such-folder/x.sqlite3", "does not exist: make it first"),
        ("database", "new-folder/", "names a folder: name the new file the copy goes to"),
        ("database", "onfile.sqlite3-journal", "is the name SQLite gives a database's own log or journal"),
        ("database", "backup.sqlite3-wal", "is the name SQLite gives a database's own log or journal"),
        ("side-file", "old.sqlite3", "old.sqlite3-wal exists already: a backup never overwrites a file"),
        ("none", "x.sqlite3", "there is no database at"),
        ("postgres", "x.dump", "is not a SQLite file: back PostgreSQL up with its own tools"),
        ("memory", "x.sqlite3", "names an in-memory SQLite database: there is no file to back up"),
    ],
)
def test_a_backup_that_cannot_be_made_is_refused_in_one_line_and_writes_nothing(
    setup: str, target: str, said: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if setup in {"database", "side-file"}:
        asyncio.run(upgrade(URL))
    if setup == "side-file":  # another database's log, which SQLite would read as the backup's own
        Path("old.sqlite3-wal").write_bytes(b"not ours")
    if setup == "memory":
        monkeypatch.setenv("ONFILE_DATABASE_URL", "sqlite+aiosqlite:///file::memory:?cache=shared")
    if setup == "postgres":
        monkeypatch.setenv("ONFILE_DATABASE_URL", "postgresql+asyncpg://onfile:secret@127.0.0.1:9/onfile")
    before = sorted(p.name for p in Path().iterdir())

    with pytest.raises(SystemExit) as exited:
        main(["db", "backup", target])

    err = capsys.readouterr().err
    assert exited.value.code == 1
    assert err.startswith("onfile: ")
    assert err.count("\n") == 1
    assert said in err
    assert "secret" not in err
    assert sorted(p.name for p in Path().iterdir()) == before
