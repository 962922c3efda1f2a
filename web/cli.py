"""The `onfile` command."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence

from store.persistence import DATABASE_URL_VARIABLE, database_url_from_environment, printable_url, upgrade
from web.demo import render_demo

__all__ = ("main",)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="onfile", description="OnFile: the memory an assistant keeps about people.")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="show what an assistant is told about a demo person on one turn")
    demo.add_argument("--text", default="", help="the person's turn text: selects memories by relevance when given")
    db = commands.add_parser("db", help="look after OnFile's database")
    db_commands = db.add_subparsers(dest="db_command", required=True)
    db_upgrade = db_commands.add_parser("upgrade", help="bring the database's schema up to date (creating it if new)")
    db_upgrade.add_argument(
        "--database-url",
        default=None,
        help=f"SQLAlchemy URL of the database (default: ${DATABASE_URL_VARIABLE}, else a SQLite file here)",
    )
    args = parser.parse_args(argv)
    if args.command == "demo":
        print(asyncio.run(render_demo(args.text)))
    elif args.command == "db" and args.db_command == "upgrade":
        url = args.database_url or database_url_from_environment()
        asyncio.run(upgrade(url))
        print(f"database is up to date: {printable_url(url)}")
    return 0
