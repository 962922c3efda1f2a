"""The `onfile` command."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence

from web.demo import render_demo

__all__ = ("main",)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="onfile", description="OnFile: the memory an assistant keeps about people.")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="show what an assistant is told about a demo person on one turn")
    demo.add_argument("--text", default="", help="the person's turn text: selects memories by relevance when given")
    args = parser.parse_args(argv)
    if args.command == "demo":
        print(asyncio.run(render_demo(args.text)))
    return 0
