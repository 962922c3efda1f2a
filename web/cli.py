"""The `onfile` command: serve the dashboard, run the demo, look after the database."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from pathlib import Path

import uvicorn

from store.persistence import printable_url, upgrade
from web.settings import Settings, SettingsError

__all__ = ("main",)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="onfile", description="OnFile: the memory an assistant keeps about people.")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="serve the dashboard and the APIs (settings from ONFILE_* and .env)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (default: %(default)s)")
    serve.add_argument("--workers", type=int, default=1, help="worker processes (default: %(default)s)")

    demo = commands.add_parser("demo", help="the dashboard with demo people and memories, and a local sign-in")
    demo.add_argument("--port", type=int, default=8000, help="the dashboard's port on 127.0.0.1 (default: %(default)s)")
    demo.add_argument("--folder", type=Path, default=Path(".demo"), help="where the demo database goes")
    demo.add_argument("--turn", action="store_true", help="print two turns of a demo person's memory instead")
    demo.add_argument("--text", default="", help="with --turn: the person's turn text, to select by relevance")

    commands.add_parser("prune", help="drop run journals past their retention and expired sessions, now")

    db = commands.add_parser("db", help="look after OnFile's database")
    db_commands = db.add_subparsers(dest="db_command", required=True)
    db_upgrade = db_commands.add_parser("upgrade", help="bring the database's schema up to date (creating it if new)")
    db_upgrade.add_argument("--database-url", default=None, help="SQLAlchemy URL (default: ONFILE_DATABASE_URL)")

    args = parser.parse_args(argv)
    try:
        if args.command == "serve":
            return _serve(args.host, args.port, args.workers)
        if args.command == "demo":
            return _demo(args)
        if args.command == "prune":
            return asyncio.run(_prune())
        url = args.database_url or Settings.load().database_url
        asyncio.run(upgrade(url))
        print(f"database is up to date: {printable_url(url)}")
    except SettingsError as error:
        parser.exit(2, f"onfile: {error}\n")
    return 0


def _serve(host: str, port: int, workers: int) -> int:
    settings = Settings.load()
    settings.require_server_settings()
    if workers > 1:
        uvicorn.run("web.asgi:app", host=host, port=port, workers=workers, factory=True)
    else:
        from web.app import create_app

        uvicorn.run(create_app(settings), host=host, port=port)
    return 0


async def _prune() -> int:
    from web.housekeeping import prune
    from web.services import open_services

    settings = Settings.load()
    services = await open_services(settings)
    try:
        pruned = await prune(services)
    finally:
        await services.close()
    hours = settings.journal_retention_hours
    print(f"pruned the journals of {pruned.runs} runs begun over {hours} hours ago, and {pruned.sessions} sessions")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from web.demo import render_demo

    if args.turn:
        print(asyncio.run(render_demo(args.text)))
        return 0
    from web.demo_server import run_demo

    return run_demo(port=args.port, folder=args.folder)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
