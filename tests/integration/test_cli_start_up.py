"""The `onfile` commands refuse a bad or unreachable database in one line naming the setting, with
any password masked and a non-zero exit: never a traceback, never a server that starts anyway."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from store.persistence import downgrade_engine, open_engine
from web import cli
from web.demo.oidc_mock import free_port

SERVING = {
    "ONFILE_SECRET_KEY": "start-up-secret-key-0123456789-0123456789",
    "ONFILE_OIDC_ISSUER": "http://127.0.0.1:9",
    "ONFILE_OIDC_CLIENT_ID": "onfile-start-up",
    "ONFILE_OIDC_CLIENT_SECRET": "onfile-start-up-secret",
}
UNREACHABLE = "postgresql+asyncpg://onfile:hunter2@127.0.0.1:{port}/onfile"


@pytest.fixture(autouse=True)
def served(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[dict[str, Any]]:
    """A clean directory and environment, and a uvicorn that records instead of serving."""
    monkeypatch.chdir(tmp_path)
    # `serve` configures logging for the server it starts; each test starts with the root logger as it was
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", list(root.handlers))
    monkeypatch.setattr(root, "level", root.level)
    for name, value in SERVING.items():
        monkeypatch.setenv(name, value)
    served: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: served.append(kwargs))
    return served


def refusal(argv: Sequence[str], capsys: pytest.CaptureFixture[str]) -> tuple[int | str | None, str]:
    with pytest.raises(SystemExit) as exited:
        cli.main(argv)
    err = capsys.readouterr().err
    assert err.count("\n") == 1, f"one line, not a traceback: {err}"
    return exited.value.code, err


@pytest.mark.parametrize("command", [["serve"], ["prune"], ["db", "upgrade"]])
def test_a_url_that_does_not_parse_is_refused_naming_the_setting(
    command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ONFILE_DATABASE_URL", "nonsense")

    code, err = refusal(command, capsys)

    assert code == 2
    assert err.startswith("onfile: ONFILE_DATABASE_URL is not a database URL ('nonsense'); use sqlite+aiosqlite:///")


def test_db_upgrade_names_its_flag_when_the_flag_is_malformed(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = refusal(["db", "upgrade", "--database-url", "nonsense"], capsys)

    assert code == 2
    assert err.startswith("onfile: --database-url is not a database URL ('nonsense')")


@pytest.mark.parametrize("command", [["serve"], ["prune"], ["db", "upgrade"]])
def test_a_sync_driver_url_is_refused_with_the_url_to_use_instead(
    command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("ONFILE_DATABASE_URL", "sqlite:///x.db")

    code, err = refusal(command, capsys)

    assert code == 2
    assert "ONFILE_DATABASE_URL must use OnFile's async driver: sqlite+aiosqlite:///x.db, not sqlite:///x.db" in err
    assert not (tmp_path / "x.db").exists()


@pytest.mark.parametrize("command", [["serve"], ["prune"], ["db", "upgrade"]])
def test_an_unreachable_postgresql_stops_start_up_in_one_line_with_the_password_masked(
    command: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    served: list[dict[str, Any]],
) -> None:
    port = free_port()  # nothing listens there: the connection is refused
    monkeypatch.setenv("ONFILE_DATABASE_URL", UNREACHABLE.format(port=port))

    code, err = refusal(command, capsys)

    assert code == 1
    assert err.startswith(
        f"onfile: the database at ONFILE_DATABASE_URL=postgresql+asyncpg://onfile:***@127.0.0.1:{port}/onfile "
        "cannot be reached: "
    )
    assert "hunter2" not in err
    assert served == [], "no server was started"


def test_db_upgrade_names_its_flag_when_the_database_there_is_unreachable(capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()

    code, err = refusal(["db", "upgrade", "--database-url", UNREACHABLE.format(port=port)], capsys)

    assert code == 1
    assert err.startswith(f"onfile: the database at --database-url=postgresql+asyncpg://onfile:***@127.0.0.1:{port}/")


def test_a_sqlite_file_in_a_missing_folder_stops_serve_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("ONFILE_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path}/no-such-folder/onfile.sqlite3")

    code, err = refusal(["serve"], capsys)

    assert code == 1
    assert "ONFILE_DATABASE_URL=sqlite+aiosqlite:///" in err
    assert err.endswith(
        f"cannot be reached: unable to open database file: the folder {tmp_path}/no-such-folder does not exist; "
        "create it, or name a file in a folder that does\n"
    )


@pytest.mark.parametrize(
    ("named", "why"),
    [
        ("data/onfile.sqlite3", "the folder {here}/data does not exist"),
        ("a-folder", "{here}/a-folder is a folder; name a file in it"),
        ("a-file/onfile.sqlite3", "{here}/a-file is a file, not a folder"),
    ],
)
def test_a_sqlite_path_that_cannot_be_opened_is_named_whole_with_why(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, named: str, why: str
) -> None:
    (tmp_path / "a-folder").mkdir()
    (tmp_path / "a-file").write_text("not a folder")
    monkeypatch.setenv("ONFILE_DATABASE_URL", f"sqlite+aiosqlite:///{named}")

    for command in (["serve"], ["db", "upgrade"]):
        code, err = refusal(command, capsys)

        assert code == 1
        assert f"unable to open database file: {why.format(here=tmp_path)}" in err


def test_serve_starts_when_its_database_answers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, served: list[dict[str, Any]]
) -> None:
    monkeypatch.setenv("ONFILE_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path}/onfile.sqlite3")

    assert cli.main(["serve", "--port", "8123"]) == 0

    assert [call["port"] for call in served] == [8123]


@pytest.mark.parametrize(
    ("flag", "value", "said"),
    [
        ("--port", "99999", "a port is a whole number from 1 to 65535, not '99999'"),
        ("--port", "0", "a port is a whole number from 1 to 65535"),
        ("--workers", "0", "at least 1 worker, as a whole number, not '0'"),
        ("--workers", "-1", "at least 1 worker"),
    ],
)
def test_serve_refuses_a_port_or_worker_count_that_cannot_be(
    flag: str, value: str, said: str, capsys: pytest.CaptureFixture[str], served: list[dict[str, Any]]
) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(["serve", f"{flag}={value}"])

    assert exited.value.code == 2
    assert said in capsys.readouterr().err
    assert served == []


def test_serve_on_a_port_in_use_says_so_in_one_line_before_the_database_is_touched(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    database = tmp_path / "onfile.sqlite3"
    monkeypatch.setenv("ONFILE_DATABASE_URL", f"sqlite+aiosqlite:///{database}")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]

        code, err = refusal(["serve", "--port", str(port)], capsys)

    assert code == 1
    assert err.startswith(f"onfile: cannot listen on 127.0.0.1:{port} (")
    assert "--port" in err
    assert not database.exists()


@pytest.mark.parametrize(
    ("reason", "hint"),
    [
        (
            'database "nosuchdb" does not exist',
            "; create it first (PostgreSQL's `createdb`), then run `onfile db upgrade`",
        ),
        ('relation "agent_memory" does not exist', "; run `onfile db upgrade`"),
        ('role "onfile" does not exist', "; create that role on the server, or put one that exists in the URL"),
        ("no such table: agent_memory", "; run `onfile db upgrade`"),
    ],
)
def test_a_database_or_schema_that_is_not_there_is_met_with_what_to_do(reason: str, hint: str) -> None:
    with pytest.raises(cli.DatabaseUnusableError) as refused, cli._database_errors("sqlite+aiosqlite:///x.sqlite3"):
        raise OperationalError("SELECT 1", {}, Exception(reason))

    assert str(refused.value).endswith(f"{reason}{hint}")


@pytest.mark.postgres
@pytest.mark.parametrize(("workers", "pool", "warned"), [("2", "60", True), ("2", "50", False), ("1", "100", False)])
def test_serve_warns_when_its_workers_may_open_more_connections_than_postgresql_accepts(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    served: list[dict[str, Any]],
    postgres_database_url: str,
    workers: str,
    pool: str,
    warned: bool,
) -> None:
    monkeypatch.setenv("ONFILE_DATABASE_URL", postgres_database_url)
    monkeypatch.setenv("ONFILE_DATABASE_POOL_SIZE", pool)

    assert cli.main(["serve", "--port", "8123", "--workers", workers]) == 0

    err = capsys.readouterr().err
    assert len(served) == 1, "a warning, not a refusal: other hosts and clients are the operator's to count"
    if warned:
        assert err.splitlines()[-1] + "\n" == (  # the tests' server signs OnFile in as a superuser
            "warning: 2 workers × ONFILE_DATABASE_POOL_SIZE=60 may open 120 connections, but PostgreSQL accepts 100 "
            "(max_connections 100): under load OnFile would be refused connections and answer 503. Set "
            "ONFILE_DATABASE_POOL_SIZE to 50 or fewer (fewer still with more hosts or other clients), or raise that "
            "limit.\n"
        )
    else:
        assert "warning" not in err


def test_serve_on_sqlite_has_no_connection_limit_to_warn_of(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str], served: list[dict[str, Any]]
) -> None:
    monkeypatch.setenv("ONFILE_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path}/onfile.sqlite3")
    monkeypatch.setenv("ONFILE_DATABASE_POOL_SIZE", "500")

    assert cli.main(["serve", "--port", "8123", "--workers", "8"]) == 0

    assert "warning" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("accepted", "workers", "pool", "said"),
    [
        (None, 8, 500, ""),
        ((17, "max_connections 20, less those reserved for superusers"), 2, 8, ""),
        (
            (4, "the CONNECTION LIMIT of the role OnFile signs in as, 4"),
            2,
            8,
            "2 workers × ONFILE_DATABASE_POOL_SIZE=8 may open 16 connections, but PostgreSQL accepts 4 (the CONNECTION "
            "LIMIT of the role OnFile signs in as, 4): under load OnFile would be refused connections and answer 503. "
            "Set ONFILE_DATABASE_POOL_SIZE to 2 or fewer (fewer still with more hosts or other clients), or raise "
            "that limit.",
        ),
        (
            (17, "max_connections 20, less those reserved for superusers"),
            18,
            1,
            "18 workers × ONFILE_DATABASE_POOL_SIZE=1 may open 18 connections, but PostgreSQL accepts 17 "
            "(max_connections 20, less those reserved for superusers): under load OnFile would be refused connections "
            "and answer 503. Run at most 17 workers with ONFILE_DATABASE_POOL_SIZE=1, or raise that limit.",
        ),
        ((40, "max_connections 40"), 1, 41, "1 worker × ONFILE_DATABASE_POOL_SIZE=41 may open 41 connections"),
    ],
)
def test_the_pool_warning_names_the_limit_and_what_fits_under_it(
    accepted: tuple[int, str] | None, workers: int, pool: int, said: str
) -> None:
    assert cli.pool_warning(accepted, workers, pool).startswith(said)
    assert bool(cli.pool_warning(accepted, workers, pool)) == bool(said)


@pytest.mark.postgres
def test_serve_warns_of_the_connection_limit_of_the_role_it_signs_in_as(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    served: list[dict[str, Any]],
    postgres_database_url: str,
) -> None:
    url = make_url(postgres_database_url)
    role = f"onfile_limited_{url.database}"

    async def make_role(statements: Sequence[str]) -> None:
        engine = open_engine(postgres_database_url)
        try:
            async with engine.begin() as connection:
                for statement in statements:
                    await connection.execute(text(statement))
        finally:
            await engine.dispose()

    asyncio.run(
        make_role(
            [
                f"CREATE ROLE {role} LOGIN CONNECTION LIMIT 6",
                f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}",
            ]
        )
    )
    try:
        monkeypatch.setenv("ONFILE_DATABASE_URL", url.set(username=role).render_as_string(hide_password=False))
        monkeypatch.setenv("ONFILE_DATABASE_POOL_SIZE", "4")

        assert cli.main(["serve", "--port", "8123", "--workers", "2"]) == 0

        warning = capsys.readouterr().err.splitlines()[-1]
        assert warning.startswith("warning: 2 workers × ONFILE_DATABASE_POOL_SIZE=4 may open 8 connections, but ")
        assert "accepts 6 (the CONNECTION LIMIT of the role OnFile signs in as, 6)" in warning
        assert "Set ONFILE_DATABASE_POOL_SIZE to 3 or fewer" in warning
    finally:
        asyncio.run(make_role([f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {role}", f"DROP ROLE {role}"]))


def test_a_sqlite_file_that_cannot_be_written_stops_serve_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, served: list[dict[str, Any]]
) -> None:
    """A read-only disk or mount: reads work, so only asking whether the file may be written finds it. The
    tests run as root, whom permissions never stop, so the mount's answer is given to `os.access`."""
    database = tmp_path / "onfile.sqlite3"
    monkeypatch.setenv("ONFILE_DATABASE_URL", f"sqlite+aiosqlite:///{database}")
    assert cli.main(["serve", "--port", "8123"]) == 0, "a first start creates and migrates it"
    capsys.readouterr()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: mode != os.W_OK and real_access(path, mode))

    with pytest.raises(SystemExit) as exited:
        cli.main(["serve", "--port", "8123"])

    err = capsys.readouterr().err
    assert exited.value.code == 1
    assert "Traceback" not in err
    assert err.splitlines()[-1] == (  # after the migration's own lines: opening a SQLite file migrates it
        f"onfile: the database at ONFILE_DATABASE_URL=sqlite+aiosqlite:///{database} cannot be written: the file "
        f"{database} cannot be written (a read-only disk or mount, or another owner)"
    )
    assert len(served) == 1, "the server never started on it"


@pytest.mark.postgres
def test_a_postgresql_that_takes_no_writes_stops_serve_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    served: list[dict[str, Any]],
    postgres_database_url: str,
) -> None:
    database = make_url(postgres_database_url).database

    async def set_read_only(on: bool) -> None:
        engine = open_engine(postgres_database_url)
        try:
            async with engine.begin() as connection:
                await connection.execute(text("SET TRANSACTION READ WRITE"))  # once on, every new one is read-only
                await connection.execute(
                    text(f"ALTER DATABASE {database} SET default_transaction_read_only = {'on' if on else 'off'}")
                )
        finally:
            await engine.dispose()

    asyncio.run(set_read_only(True))
    try:
        monkeypatch.setenv("ONFILE_DATABASE_URL", postgres_database_url)

        code, err = refusal(["serve", "--port", "8123"], capsys)
    finally:
        asyncio.run(set_read_only(False))

    assert code == 1
    assert err.endswith("cannot be written: the server accepts no writes (transaction_read_only is on: a standby?)\n")
    assert not served


@pytest.mark.parametrize(
    "url",
    [
        "sqlite+aiosqlite:///:memory:",
        "sqlite+aiosqlite://",
        "sqlite+aiosqlite:///",
        "sqlite+aiosqlite:///file:x?mode=memory&uri=true",
        "sqlite+aiosqlite:///file::memory:?cache=shared",
    ],
)
def test_an_in_memory_sqlite_database_is_refused_before_anything_starts(
    url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], served: list[dict[str, Any]]
) -> None:
    monkeypatch.setenv("ONFILE_DATABASE_URL", url)

    code, err = refusal(["serve", "--port", "8123", "--workers", "2"], capsys)

    assert code == 2
    assert "names an in-memory SQLite database: each worker would hold one of its own" in err
    assert not served


def test_serve_says_which_database_file_it_serves_and_when_it_made_a_new_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Started from the wrong folder, a relative file would be a new, empty store: the operator is told."""
    monkeypatch.setenv("ONFILE_DATABASE_URL", "sqlite+aiosqlite:///onfile.sqlite3")

    assert cli.main(["serve", "--port", "8123"]) == 0
    first = capsys.readouterr().out
    assert cli.main(["serve", "--port", "8123"]) == 0
    again = capsys.readouterr().out

    said = "onfile: serving the database at ONFILE_DATABASE_URL=sqlite+aiosqlite:///onfile.sqlite3: the file "
    assert first == f"{said}{tmp_path / 'onfile.sqlite3'}, a new, empty database: there was none at that path\n"
    assert again == f"{said}{tmp_path / 'onfile.sqlite3'}\n"


@pytest.mark.postgres
@pytest.mark.parametrize("command", [["serve"], ["prune"], ["people", "move", "ada", "--to", "berlin", "--by", "ops"]])
def test_a_role_postgresql_does_not_know_stops_every_command_in_one_line_saying_what_to_do(
    command: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    postgres_database_url: str,
) -> None:
    stranger = make_url(postgres_database_url).set(username="nobody_here")
    monkeypatch.setenv("ONFILE_DATABASE_URL", stranger.render_as_string(hide_password=False))

    code, err = refusal(command, capsys)

    assert code == 1
    assert err.endswith(
        'cannot be used: role "nobody_here" does not exist; create that role on the server, or put one that exists '
        "in the URL\n"
    )


@pytest.mark.parametrize(
    "command",
    [["db", "upgrade"], ["serve"], ["prune"], ["people", "move", "ada", "--to", "berlin", "--by", "ops"]],
)
@pytest.mark.parametrize(
    ("schema", "named"),
    [
        (
            ["CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)", "CREATE TABLE customers (id INTEGER)"],
            "customers, invoices",
        ),
        (["CREATE VIEW totals AS SELECT 1 AS total"], "totals"),
        (  # an application that uses Alembic too
            [
                "CREATE TABLE alembic_version (version_num VARCHAR(32))",
                "INSERT INTO alembic_version VALUES ('abc123')",
                "CREATE TABLE orders (id INTEGER)",
            ],
            "orders",
        ),
    ],
    ids=["tables", "a-view", "alembic-too"],
)
def test_a_sqlite_file_of_another_application_is_left_byte_for_byte_and_said_in_one_line(
    command: list[str],
    schema: list[str],
    named: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    shop = tmp_path / "shop.sqlite3"
    with sqlite3.connect(shop) as connection:
        for statement in schema:
            connection.execute(statement)
    connection.close()
    before = shop.read_bytes()
    monkeypatch.setenv("ONFILE_DATABASE_URL", "sqlite+aiosqlite:///shop.sqlite3")

    code, err = refusal(command, capsys)

    assert code == 1
    assert err == (
        "onfile: the database at ONFILE_DATABASE_URL=sqlite+aiosqlite:///shop.sqlite3 cannot be used: the SQLite "
        f"file holds another application's tables ({named}) and none of OnFile's; OnFile keeps a file "
        "of its own: name a new file (it is created) or one OnFile made\n"
    )
    assert shop.read_bytes() == before, "not even its journal mode changed"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shop.sqlite3"]


def test_a_database_migrated_by_a_newer_onfile_or_another_alembic_user_is_said_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("ONFILE_DATABASE_URL", "sqlite+aiosqlite:///onfile.sqlite3")
    assert cli.main(["db", "upgrade"]) == 0
    capsys.readouterr()
    with sqlite3.connect(tmp_path / "onfile.sqlite3") as connection:
        connection.execute("UPDATE alembic_version SET version_num = '9999'")
    connection.close()

    for command in (["db", "upgrade"], ["serve"]):
        code, err = refusal(command, capsys)

        assert code == 1
        assert err.startswith(
            "onfile: the database at ONFILE_DATABASE_URL=sqlite+aiosqlite:///onfile.sqlite3 cannot be used: its "
            "schema is at revision '9999', which is not one of this OnFile's: a newer OnFile migrated it"
        )


@pytest.mark.postgres
def test_a_postgresql_database_shared_with_another_application_gets_onfiles_schema_beside_it_and_says_so(
    capsys: pytest.CaptureFixture[str], postgres_database_url: str
) -> None:
    async def emptied_but_for_a_shop() -> None:
        engine = open_engine(postgres_database_url)
        try:
            await downgrade_engine(engine, "base")
            async with engine.begin() as connection:
                await connection.execute(text("CREATE TABLE invoices (id integer PRIMARY KEY)"))
        finally:
            await engine.dispose()

    asyncio.run(emptied_but_for_a_shop())

    assert cli.main(["db", "upgrade", "--database-url", postgres_database_url]) == 0

    said = capsys.readouterr().out.splitlines()
    assert said[0].startswith("created the schema (revision ")
    assert (
        said[1]
        == "note: the database also holds 1 table that is not OnFile's (invoices); OnFile's were created beside them"
    )


@pytest.mark.parametrize(
    ("named", "why"),
    [
        ("a-file/deeper/onfile.sqlite3", "{here}/a-file is a file, not a folder"),
        ("no/such/folders/onfile.sqlite3", "the folder {here}/no does not exist"),
        ("a-text-file.txt", "{here}/a-text-file.txt is not a SQLite database (another kind of file?)"),
    ],
)
def test_a_path_deeper_in_trouble_is_explained_at_the_point_it_goes_wrong(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, named: str, why: str
) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    (tmp_path / "a-text-file.txt").write_text("a shopping list, not a database\n" * 100)
    monkeypatch.setenv("ONFILE_DATABASE_URL", f"sqlite+aiosqlite:///{named}")

    code, err = refusal(["serve"], capsys)

    assert code == 1
    assert why.format(here=tmp_path) in err


def test_a_nul_in_the_database_url_is_refused_naming_the_setting(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ONFILE_DATABASE_URL", "sqlite+aiosqlite:///a%00b.sqlite3")

    for command in (["serve"], ["db", "upgrade"]):
        code, err = refusal(command, capsys)

        assert code == 2
        assert "ONFILE_DATABASE_URL holds a NUL character (%00)" in err


def test_serve_says_an_empty_file_became_a_new_database(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "onfile.sqlite3").touch()
    monkeypatch.setenv("ONFILE_DATABASE_URL", "sqlite+aiosqlite:///onfile.sqlite3")

    assert cli.main(["serve", "--port", "8123"]) == 0

    assert capsys.readouterr().out.endswith(", a new, empty database: the file there was empty\n")
