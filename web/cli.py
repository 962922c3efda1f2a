"""The `onfile` command: serve the dashboard, run the demo, look after the database."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import os
import re
import socket
import sqlite3
import sys
from collections.abc import Awaitable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

import uvicorn

from store import Actor
from store.domain.identifiers import id_problem
from store.embedding import EmbedderError
from store.persistence import (
    DATABASE_URL_VARIABLE,
    OtherApplicationsFileError,
    UnknownRevisionError,
    printable_url,
    upgrade,
)
from store.persistence.backup import SIDE_FILE_SUFFIXES, TargetExistsError, backup_sqlite
from store.persistence.engine import connections_accepted, writes_refused
from store.persistence.outage import DATABASE_ERROR_TYPES, database_unavailable
from web.demo.content import DemoRefusedError
from web.housekeeping import NoDatabaseError, Pruned, existing_database, prune
from web.kit.words import count_words
from web.settings import Settings, SettingsError, check_database_url

# asyncpg reports a refused or timed-out connection as an OSError of its own, not wrapped
_STARTING_FAILURES: tuple[type[Exception], ...] = (
    *DATABASE_ERROR_TYPES,
    OSError,
    OtherApplicationsFileError,
    UnknownRevisionError,
)
# aiosqlite stops a connection that failed to open without waiting for its thread, which then reports
# to the event loop: give it a moment before asyncio.run closes the loop, or it prints a traceback
_SETTLING_SECONDS = 0.2

T = TypeVar("T")

__all__ = ("main",)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="onfile", description="OnFile: the memory an assistant keeps about people.")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="serve the dashboard and the APIs (settings from ONFILE_* and .env)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    serve.add_argument("--port", type=_port, default=8000, help="port to listen on (default: %(default)s)")
    serve.add_argument("--workers", type=_count, default=1, help="worker processes (default: %(default)s)")

    demo = commands.add_parser("demo", help="the dashboard with demo people and memories, and a local sign-in")
    demo.add_argument(
        "--port", type=_port, default=8000, help="the dashboard's port on 127.0.0.1 (default: %(default)s)"
    )
    demo.add_argument("--folder", type=Path, default=Path(".demo"), help="where the demo database goes")
    demo.add_argument("--turn", action="store_true", help="print two turns of a demo person's memory instead")
    demo.add_argument("--text", default="", help="with --turn: the person's turn text, to select by relevance")

    commands.add_parser(
        "prune", help="drop run journals past their retention, expired sessions and expired memories, now"
    )

    db = commands.add_parser("db", help="look after OnFile's database")
    db_commands = db.add_subparsers(dest="db_command", required=True)
    db_upgrade = db_commands.add_parser("upgrade", help="bring the database's schema up to date (creating it if new)")
    db_upgrade.add_argument("--database-url", default=None, help="SQLAlchemy URL (default: ONFILE_DATABASE_URL)")
    db_reembed = db_commands.add_parser(
        "reembed", help="give every memory without a vector of ONFILE_EMBEDDER one (after changing it, or upgrading)"
    )
    db_reembed.add_argument("--all", action="store_true", help="rebuild every memory's vector, not only missing ones")
    db_backup = db_commands.add_parser(
        "backup", help="copy a SQLite database, whole and consistent, while OnFile serves it (PostgreSQL: pg_dump)"
    )
    db_backup.add_argument("file", help="the new file to write the copy to (never overwritten)")

    people = commands.add_parser("people", help="look after the people OnFile knows")
    people_commands = people.add_subparsers(dest="people_command", required=True)
    move = people_commands.add_parser(
        "move",
        help="record a person in another organisation, audited at both (agents cannot; a sign-in can)",
    )
    move.add_argument("person", help="the person's id, exactly as OnFile knows it")
    where = move.add_mutually_exclusive_group(required=True)
    where.add_argument("--to", dest="organisation", help="the organisation's reference (its tenant claim)")
    where.add_argument("--to-none", action="store_true", help="in no organisation")
    move.add_argument("--by", required=True, help="who is making the move, as the audit trail will name them")

    args = parser.parse_args(argv)
    try:
        if args.command == "serve":
            return _serve(args.host, args.port, args.workers)
        if args.command == "demo":
            return _demo(args)
        if args.command == "prune":
            return _prune()
        if args.command == "people":
            return _move(args.person, None if args.to_none else args.organisation, by=args.by)
        if args.db_command == "reembed":
            return _reembed(everything=args.all)
        if args.db_command == "backup":
            return _backup(args.file)
        return _upgrade(args.database_url)
    except SettingsError as error:
        parser.exit(2, f"onfile: {error}\n")
    except (
        DatabaseUnusableError,
        NoDatabaseError,
        DemoRefusedError,
        ReembedStoppedError,
        NoSuchPersonError,
        PortInUseError,
        BackupRefusedError,
    ) as error:
        parser.exit(1, f"onfile: {error}\n")


def _port(text: str) -> int:
    """A TCP port, 1 to 65535: anything else would be taken modulo 65536 by the socket layer."""
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        msg = f"a port is a whole number from 1 to 65535, not {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return int(text)


def _count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        msg = f"at least 1 worker, as a whole number, not {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return int(text)


class PortInUseError(Exception):
    """`onfile serve` cannot listen where it was asked to; the message names the address and --port."""


def _refuse_port_in_use(host: str, port: int) -> None:
    """Refuse before the database is touched when nothing could listen at `host`:`port`, as uvicorn
    binds (a port a server just closed, in TIME_WAIT, is free; one in use is not)."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as error:
        msg = f"cannot listen on {host}:{port} ({error.strerror or error}); choose another with --port or --host"
        raise PortInUseError(msg) from None


class ReembedStoppedError(Exception):
    """The embedder failed part way through `onfile db reembed` (the batches before it are stored)."""


class NoSuchPersonError(Exception):
    """`onfile people move` names nobody OnFile knows, or is given an id or organisation it would refuse."""


class DatabaseUnusableError(Exception):
    """The database cannot be reached or used at start-up. The message names the setting and the
    URL (any password masked), and says why in one line."""


@contextlib.contextmanager
def _database_errors(url: str, name: str = DATABASE_URL_VARIABLE) -> Iterator[None]:
    """Turn a database failure while starting into `DatabaseUnusableError`: at start-up it is a wrong
    URL, a server that is down or a schema never created, which one line says better than a traceback."""
    try:
        yield
    except _STARTING_FAILURES as error:
        how = "cannot be reached" if database_unavailable(error) else "cannot be used"
        reason = str(getattr(error, "orig", None) or error).strip().splitlines() or [type(error).__name__]
        hint = ""
        if re.search(r'\bdatabase "[^"]*" does not exist', reason[0]):  # an upgrade fills one, cannot make one
            hint = "; create it first (PostgreSQL's `createdb`), then run `onfile db upgrade`"
        elif re.search(r'\brole "[^"]*" does not exist', reason[0]):
            hint = "; create that role on the server, or put one that exists in the URL"
        elif "no such table" in reason[0] or re.search(r'\b(relation|table) "[^"]*" does not exist', reason[0]):
            hint = "; run `onfile db upgrade`"
        elif reason[0] == "unable to open database file" and (file := Settings(database_url=url).sqlite_file):
            hint = f": {_why_unopenable(file.absolute())}"
        elif reason[0] == "file is not a database" and (file := Settings(database_url=url).sqlite_file):
            hint = f": {file.absolute()} is not a SQLite database (another kind of file?); name a file of OnFile's"
        msg = f"the database at {name}={printable_url(url)} {how}: {reason[0]}{hint}"
        raise DatabaseUnusableError(msg) from None


def _why_unopenable(file: Path) -> str:
    """Why SQLite could not open or create `file` (absolute), in words naming the path."""
    folder = file.parent
    if file.is_dir():
        return f"{file} is a folder; name a file in it"
    there = next(f for f in (folder, *folder.parents) if f.exists())  # the root is always there
    if not there.is_dir():
        return f"{there} is a file, not a folder"
    if there != folder:
        missing = folder if there == folder.parent else next(f for f in folder.parents if f.parent == there)
        return f"the folder {missing} does not exist; create it, or name a file in a folder that does"
    if not file.exists() and not os.access(folder, os.W_OK | os.X_OK):
        return f"the file {file} is not there, and this user ({getpass.getuser()}) cannot create files in {folder}"
    if not os.access(file, os.R_OK):
        return f"this user ({getpass.getuser()}) cannot read {file}"
    return f"SQLite could not open {file}"


async def _starting(work: Awaitable[T]) -> T:
    """`work`, with a failure given time to settle before the event loop closes."""
    try:
        return await work
    except _STARTING_FAILURES:
        await asyncio.sleep(_SETTLING_SECONDS)
        raise


def _upgrade(database_url: str | None) -> int:
    if database_url is None:
        url, name = Settings.load().database_url, DATABASE_URL_VARIABLE
    else:
        url, name = database_url, "--database-url"
        check_database_url(url, name)
    with _database_errors(url, name):
        upgraded = asyncio.run(_starting(upgrade(url)))
    if upgraded.before is None:
        done = f"created the schema (revision {upgraded.after})"
    elif upgraded.before != upgraded.after:
        done = f"brought the schema up to date (revision {upgraded.before} to {upgraded.after})"
    else:
        done = f"the schema was up to date already (revision {upgraded.after})"
    print(f"{done}: {printable_url(url)}")
    if upgraded.beside:  # PostgreSQL: a database several applications may share; SQLite refuses
        others = upgraded.beside
        shown = ", ".join(others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5 else "")
        tables = f"{count_words(1, 'table')} that is" if len(others) == 1 else f"{len(others):,} tables that are"
        print(f"note: the database also holds {tables} not OnFile's ({shown}); OnFile's were created beside them")
    return 0


def _serve(host: str, port: int, workers: int) -> int:
    settings = Settings.load()
    settings.require_server_settings()
    where = f"{DATABASE_URL_VARIABLE}={printable_url(settings.database_url)}"
    if settings.sqlite_in_memory:
        msg = (
            f"{where} names an in-memory SQLite database: each worker would hold one of its own, and every restart "
            "would lose it. Name a file, such as sqlite+aiosqlite:///onfile.sqlite3"
        )
        raise SettingsError(msg)
    _refuse_port_in_use(host, port)
    sqlite_file = settings.sqlite_file.absolute() if settings.sqlite_file is not None else None
    was = ""  # what was at the SQLite path before: "none", an "empty" file, or a database ("")
    if sqlite_file is not None:
        was = "none" if not sqlite_file.is_file() else "empty" if sqlite_file.stat().st_size == 0 else ""
    with _database_errors(settings.database_url):
        accepted, refused = asyncio.run(_starting(_check_database(settings)))
    if refused is not None:
        raise DatabaseUnusableError(f"the database at {where} cannot be written: {refused}")
    if sqlite_file is None:
        print(f"onfile: serving the database at {where}")
    else:  # the working directory decides where a relative file is: say which, and whether it was new
        made = {
            "none": ", a new, empty database: there was none at that path",
            "empty": ", a new, empty database: the file there was empty",
        }.get(was, "")
        print(f"onfile: serving the database at {where}: the file {sqlite_file}{made}")
    warning = pool_warning(accepted, workers, settings.database_pool_size)
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    if workers > 1:
        uvicorn.run("web.asgi:app", host=host, port=port, workers=workers, factory=True)
    else:
        from web.app import create_app
        from web.demo.sign_in import demo_sign_in_for

        app = create_app(settings, demo_sign_in=demo_sign_in_for(settings), serving=True)
        uvicorn.run(app, host=host, port=port)
    return 0


async def _check_database(settings: Settings) -> tuple[tuple[int, str] | None, str | None]:
    """Open the database as the server will (SQLite: migrated) and read from it once, so that a
    database that is down or has no schema stops start-up, not a server answering 503 until it is back.
    How many connections it accepts (`connections_accepted`), and why it would refuse every write
    (`writes_refused`: a read-only file or server would fail every turn)."""
    from web.services import open_services

    services = await open_services(settings)
    try:
        await services.people.recent(limit=1)
        engine = services.provider.engine
        return await connections_accepted(engine), await writes_refused(engine)
    finally:
        await services.close()


DATABASE_POOL_SIZE_VARIABLE = "ONFILE_DATABASE_POOL_SIZE"


def pool_warning(accepted: tuple[int, str] | None, workers: int, pool_size: int) -> str:
    """What to say when the workers' pools together may open more connections than the database
    accepts ("" when they fit): under load the rest would be refused, and every request 503."""
    if accepted is None:
        return ""
    allowed, limit = accepted
    wanted = workers * pool_size
    if wanted <= allowed:
        return ""
    fits = allowed // workers
    if fits:
        advice = (
            f"Set {DATABASE_POOL_SIZE_VARIABLE} to {fits} or fewer (fewer still with more hosts or other clients), "
            "or raise that limit."
        )
    else:
        advice = f"Run at most {allowed} workers with {DATABASE_POOL_SIZE_VARIABLE}=1, or raise that limit."
    return (
        f"{workers} worker{'s' if workers != 1 else ''} × {DATABASE_POOL_SIZE_VARIABLE}={pool_size} may open "
        f"{wanted} connections, but PostgreSQL accepts {allowed} ({limit}): under load OnFile would be refused "
        f"connections and answer 503. {advice}"
    )


def _prune() -> int:
    settings = Settings.load()

    async def pruning() -> Pruned:
        async with existing_database(settings) as services:
            return await prune(services)

    with _database_errors(settings.database_url):
        pruned = asyncio.run(_starting(pruning()))
    hours = settings.journal_retention_hours
    runs, sessions = count_words(pruned.runs, "run", "runs"), count_words(pruned.sessions, "session", "sessions")
    print(f"pruned the journals of {runs} begun over {hours} hours ago, and {sessions}")
    expired, named = (
        count_words(pruned.expired, "expired memory", "expired memories"),
        count_words(pruned.expired_runs, "run", "runs"),
    )
    print(f"removed {expired}, and the journals of {named} that named them")
    return 0


def _move(person: str, organisation: str | None, *, by: str) -> int:
    settings = Settings.load()
    for name, value in (("the person's id", person), ("the organisation", organisation), ("--by", by)):
        problem = None if value is None else id_problem(name, value)
        if problem is not None:
            raise NoSuchPersonError(problem)

    async def moving() -> tuple[Actor | None, Actor | None, bool]:
        async with existing_database(settings) as services:
            known = await services.people.find(person)
            others = [] if organisation is None else await services.people.of_organisations([organisation], limit=2)
            joined = any(other.id != person for other, _ in others)
            return known, await services.admin.move_person(by, person, organisation), joined

    with _database_errors(settings.database_url):
        known, moved, joined = asyncio.run(_starting(moving()))
    if known is None or moved is None:
        msg = f"nobody with the id {person!r} is known: a person is known once they signed in or an agent asked"
        raise NoSuchPersonError(msg)
    where = f"organisation {organisation}" if organisation is not None else "no organisation"
    if known.tenant_ref == organisation:
        print(f"{person} is in {where} already; nothing changed, and nothing was added to the audit trail")
        return 0
    left = f"organisation {known.tenant_ref}" if known.tenant_ref is not None else "no organisation"
    print(f"{person} is in {where}, moved from {left}; the move is in the audit trail of the organisations concerned")
    if organisation is not None and not joined:
        print(
            f"note: nobody else is known in organisation {organisation}: if that is not a new organisation, check its "
            "spelling (it is the identity provider's tenant claim) and move them again",
            file=sys.stderr,
        )
    return 0


class BackupRefusedError(Exception):
    """`onfile db backup` cannot copy: PostgreSQL (its own tools do), no database, or a file in the way."""


def _backup(named: str) -> int:
    settings = Settings.load()
    where = f"{DATABASE_URL_VARIABLE}={printable_url(settings.database_url)}"
    if settings.sqlite_in_memory:
        raise BackupRefusedError(f"{where} names an in-memory SQLite database: there is no file to back up")
    source = settings.sqlite_file
    if source is None:
        msg = (
            f"{where} is not a SQLite file: back PostgreSQL up with its own tools, such as "
            "`pg_dump --format=custom --file=onfile.dump <database>` (docs/deploy.md, Backups)"
        )
        raise BackupRefusedError(msg)
    if not source.is_file():
        msg = f"there is no database at {source.absolute()} ({where}): nothing to back up"
        raise BackupRefusedError(msg)
    target = Path(named)
    if not named.strip() or named.endswith(("/", os.sep)) or target.is_dir():
        msg = f"{named!r} names a folder: name the new file the copy goes to, such as {Path(named) / 'onfile.sqlite3'}"
        raise BackupRefusedError(msg)
    if target.name.endswith(SIDE_FILE_SUFFIXES):
        msg = f"{target.name} is the name SQLite gives a database's own log or journal; name the backup otherwise"
        raise BackupRefusedError(msg)
    if not target.parent.is_dir():
        msg = f"the folder {target.parent.absolute()} does not exist: make it first, or name a file in another"
        raise BackupRefusedError(msg)
    try:
        made = backup_sqlite(source, target)
    except TargetExistsError as error:
        raise BackupRefusedError(str(error)) from None
    except (sqlite3.Error, OSError) as error:
        raise BackupRefusedError(f"the backup of {source.absolute()} failed, and left no file: {error}") from None
    print(
        f"backed up {source.absolute()} to {made.target.absolute()}: {made.memories:,} memories, "
        f"{made.people:,} people, {made.size_bytes / 1_000_000:,.1f} MB, checked whole"
    )
    return 0


def _reembed(*, everything: bool) -> int:
    settings = Settings.load()
    if settings.embedder.strip() == "none":
        print("ONFILE_EMBEDDER is none: memories are found by their words only, and nothing is embedded")
        return 0

    async def reembedding() -> int:
        async with existing_database(settings) as services:
            return await services.provider.reembed(everything=everything, progress=_progress_bar)

    with _database_errors(settings.database_url):
        try:
            stored = asyncio.run(_starting(reembedding()))
        except EmbedderError as error:
            print(file=sys.stderr)
            msg = f"reembedding stopped: {error}; what was done is kept, and running it again goes on from there"
            raise ReembedStoppedError(msg) from None
    print(f"{stored} memories have a new vector ({settings.embedder})")
    return 0


def _progress_bar(done: int, total: int) -> None:
    """`[#######.............]  350/1000 memories`, redrawn in place on the terminal (standard error)."""
    width = 30
    filled = width * done // total if total else width
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done:>{len(str(total))}}/{total} memories")
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def _demo(args: argparse.Namespace) -> int:
    from web.demo.content import render_demo

    if args.turn:
        print(asyncio.run(render_demo(args.text)))
        return 0
    from web.demo.server import run_demo

    return run_demo(port=args.port, folder=args.folder)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
