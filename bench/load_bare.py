"""The ceiling for the load benchmark: a bare Litestar application with one JSON endpoint.

No database, no guards, no plugins: what Litestar and uvicorn alone serve on this machine. It is
served exactly as `onfile serve` serves OnFile — `uvicorn.run` with its defaults, the application
object for one worker, an import string for several — so the two differ only in the application.

    python -m bench.load_bare --port 8001 [--workers N]
"""

from __future__ import annotations

import argparse

import uvicorn
from litestar import Litestar, get

__all__ = ("bare_app", "main")


@get("/")
async def hello() -> dict[str, str]:
    return {"status": "ok", "service": "bare"}


def bare_app() -> Litestar:
    return Litestar(route_handlers=[hello])


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.load_bare", description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    if args.workers > 1:
        uvicorn.run("bench.load_bare:bare_app", host="127.0.0.1", port=args.port, workers=args.workers, factory=True)
    else:
        uvicorn.run(bare_app(), host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()
