"""The ceiling for the load benchmark: a bare Litestar application with one JSON endpoint.

No database, no guards, no plugins: what Litestar and uvicorn alone serve on this machine. It is
served exactly as `onfile serve` serves OnFile — `uvicorn.run` with its defaults, the application
object for one worker, an import string for several — so the two differ only in the application.

    python -m bench.load_bare --port 8001 [--workers N]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import uvicorn
from litestar import Litestar, get

__all__ = ("bare_app", "main", "serve_baseline")


@get("/")
async def hello() -> dict[str, str]:
    return {"status": "ok", "service": "bare"}


def bare_app() -> Litestar:
    return Litestar(route_handlers=[hello])


def serve_baseline(module: str, factory: Callable[[], Litestar], description: str) -> None:
    """A baseline's command line (`--port`, `--workers`), served as `onfile serve` serves OnFile: the
    application object for one worker, `module:factory` as an import string for several."""
    parser = argparse.ArgumentParser(prog=f"python -m {module}", description=description.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    if args.workers > 1:
        target = f"{module}:{factory.__name__}"
        uvicorn.run(target, host="127.0.0.1", port=args.port, workers=args.workers, factory=True)
    else:
        uvicorn.run(factory(), host="127.0.0.1", port=args.port)


def main() -> None:
    serve_baseline("bench.load_bare", bare_app, __doc__ or "")


if __name__ == "__main__":
    main()
