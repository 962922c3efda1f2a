"""The load benchmark: OnFile's agent API under concurrent load, beside a bare Litestar endpoint.

    python -m bench.load [--seconds 10] [--backends sqlite,postgres] [--connections 16,64] [--workers 1]

Every figure comes from real server processes on 127.0.0.1: `onfile serve`, started as an operator
starts it, and — the ceiling — a bare Litestar app with one JSON endpoint (`bench.load_bare`), served
by the same uvicorn the same way with the same number of worker processes, measured in the same run.
Rows, at each connection count, on SQLite (the embedded default) and PostgreSQL (a throwaway local
server, fsync off): the digest with a new run id per request (resolve, search, render, register,
journal), the digest of runs resolved before measuring (the replay: a journal read), and remember with
a fresh call id per request (see `bench.load_data` for the store and the requests). Each row runs for
`--seconds` after a 2 s warm-up of the same kind of requests, which is discarded. Beside each rate,
the CPU time the serving processes (and PostgreSQL's) spent per request served (`bench.load_cpu`).

A second baseline, the floor, runs beside OnFile's server on each database: the digest endpoint written
by hand with only the I/O a turn must do — decode the body, OnFile's search statement, one journal
insert, a 13 KB answer — served the same way (`bench.load_floor`). Its new runs and replays are
measured with the same requests, each right after OnFile's row of the same kind at the same
connection count (the machine's drift over a run moves a share of the floor far more than seconds
apart), and OnFile's digest rows are also given as a share of the floor's.

Load comes from wrk (one thread, which leaves the other core to the server). Without wrk it comes from
an asyncio httpx client in this process, which competes with the server for the CPU and understates
every row; the output says which generator ran.

Target: the digest endpoint reaches at least 40% of the ceiling at the same concurrency,
with zero errors.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.load_cpu import CpuProbe, tree_probe
from bench.load_data import (
    ACTORS,
    TOKEN,
    bare_traffic,
    digest_traffic,
    remember_traffic,
    replay_traffic,
    seed_records,
    seed_run_bodies,
)
from bench.load_traffic import Measured, Traffic, generator_name, measure
from store.persistence import SqlMemoryProvider, open_engine, upgrade
from tests.postgres_server import PostgresServer, missing_binaries
from tests.processes.servers import ServerProcess
from web.demo.oidc_mock import free_port

TARGET_SHARE = 0.40
WARM_UP_SECONDS = 2.0
BACKEND_NAMES = {"sqlite": "SQLite", "postgres": "PostgreSQL"}
CEILING = "bare Litestar GET"
DIGEST = "digest, new run"
REPLAY = "digest, replay"
FLOOR_DIGEST = "floor: new run"
FLOOR_REPLAY = "floor: replay"
FLOOR_OF = {DIGEST: FLOOR_DIGEST, REPLAY: FLOOR_REPLAY}
WORKLOADS: tuple[tuple[str, Callable[[], Traffic]], ...] = (
    (DIGEST, digest_traffic),
    (REPLAY, replay_traffic),
    ("remember, new call", remember_traffic),
)
FLOOR_WORKLOADS: tuple[tuple[str, Callable[[], Traffic]], ...] = (
    (FLOOR_DIGEST, digest_traffic),
    (FLOOR_REPLAY, replay_traffic),
)


@dataclass(frozen=True, slots=True)
class Options:
    seconds: float
    backends: tuple[str, ...]
    connections: tuple[int, ...]
    workers: tuple[int, ...]
    embedder: str = ""
    """`ONFILE_EMBEDDER` for OnFile's server (`none`: a turn ranked by its words alone, as the floor's
    is); empty for the product's default."""

    def command(self) -> str:
        return (
            f"python -m bench.load --seconds {self.seconds:g} --backends {','.join(self.backends)} "
            f"--connections {','.join(map(str, self.connections))} --workers {','.join(map(str, self.workers))}"
            + (f" --embedder {self.embedder}" if self.embedder else "")
        )


@dataclass(frozen=True, slots=True)
class Row:
    backend: str
    workers: int
    case: str
    connections: int
    measured: Measured
    server_cpu_us: float | None = None
    """CPU the serving processes used per request served, in µs (`bench.load_cpu`)."""
    database_cpu_us: float | None = None
    """CPU the PostgreSQL server used per request served, in µs; None on SQLite (in the server's)."""


class Bench:
    """Runs rows one after another; every row's requests carry a tag no other row used."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.rows: list[Row] = []
        self._tags = itertools.count()

    def row(self, base_url: str, backend: str, workers: int, case: str, traffic: Traffic, cpu: CpuProbe) -> None:
        self.side_by_side(backend, workers, [Side(base_url, case, traffic, cpu)])

    def side_by_side(self, backend: str, workers: int, sides: list[Side]) -> None:
        """At each connection count, a row of each side, one right after the other."""
        for connections in self.options.connections:
            for side in sides:
                self.rows.append(self._measured(backend, workers, side, connections))

    def _measured(self, backend: str, workers: int, side: Side, connections: int) -> Row:
        url, traffic = side.base_url, side.traffic
        measure(url, traffic, connections=connections, seconds=WARM_UP_SECONDS, tag=self._tag())
        before = side.cpu()
        found = measure(url, traffic, connections=connections, seconds=self.options.seconds, tag=self._tag())
        after = side.cpu()
        server_us, database_us = (_per_request(a, b, found.requests) for a, b in zip(before, after, strict=True))
        print(f"  {backend} ×{workers} {side.case} @{connections}: {found.rate:,.0f} req/s", file=sys.stderr)
        return Row(backend, workers, side.case, connections, found, server_us, database_us)

    def _tag(self) -> str:
        return f"t{next(self._tags)}"


@dataclass(frozen=True, slots=True)
class Side:
    """One server's row of a kind: where it serves, the row's name, its requests, its CPU probe."""

    base_url: str
    case: str
    traffic: Traffic
    cpu: CpuProbe


def _per_request(before: float | None, after: float | None, requests: int) -> float | None:
    if before is None or after is None or requests == 0:
        return None
    return (after - before) / requests * 1_000_000


@contextmanager
def baseline_server(
    module: str, folder: Path, workers: int, environment: dict[str, str] | None = None
) -> Iterator[tuple[str, int]]:
    """A baseline application (`bench.load_bare`, `bench.load_floor`) on a free loopback port, stopped
    on every way out: its URL and process id."""
    port = free_port()
    command = [sys.executable, "-m", module, "--port", str(port), "--workers", str(workers)]
    base_url = f"http://127.0.0.1:{port}"
    log_path = folder / f"{module.rpartition('.')[2]}-{workers}.log"
    with log_path.open("ab") as log:
        env = {**os.environ, **(environment or {})}
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)  # noqa: S603
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None or time.monotonic() > deadline:
                msg = f"{module} did not start; see {log_path}"
                raise RuntimeError(msg)
            try:
                httpx.get(base_url, timeout=1)  # any answer at all: it is serving
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        yield base_url, process.pid
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def database(backend: str, folder: Path) -> Iterator[tuple[str, int | None]]:
    """A migrated database holding the benchmark's store, for the time of the block: its URL, and
    the PostgreSQL server's process id (None for SQLite, which runs inside the server)."""
    if backend == "sqlite":
        url = f"sqlite+aiosqlite:///{folder / 'load.sqlite3'}"
        asyncio.run(_migrate_and_seed(url))
        yield url, None
        return
    server = PostgresServer().start()
    try:
        url = server.create_database("onfile_load")
        asyncio.run(_migrate_and_seed(url))
        yield url, server.pid
    finally:
        server.stop()


async def _migrate_and_seed(url: str) -> None:
    await upgrade(url)
    engine = open_engine(url)
    try:
        await SqlMemoryProvider(engine).add(seed_records())
    finally:
        await engine.dispose()


def onfile_environment(url: str, embedder: str = "") -> dict[str, str]:
    """What `onfile serve` needs; the identity provider is never asked (discovery is lazy)."""
    return ({"ONFILE_EMBEDDER": embedder} if embedder else {}) | {
        "ONFILE_DATABASE_URL": url,
        "ONFILE_SECRET_KEY": "load-benchmark-secret-key-0123456789abcdef",
        "ONFILE_OIDC_ISSUER": "http://127.0.0.1:9/unused-issuer",
        "ONFILE_OIDC_CLIENT_ID": "onfile-load",
        "ONFILE_OIDC_CLIENT_SECRET": "onfile-load-secret",
        "ONFILE_AGENT_TOKENS": TOKEN,
    }


def resolve_seed_runs(base_url: str) -> str:
    """Resolve the runs the replay and remember rows use; describe what one digest carried."""
    sizes = []
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    with httpx.Client(base_url=base_url, headers=headers, timeout=30) as client:
        for run_id, body in seed_run_bodies():
            answer = client.post(f"/agent/runs/{run_id}/digest", content=body)
            answer.raise_for_status()
            sizes.append((len(answer.json()["entries"]), len(answer.json()["block"])))
    entries = sum(e for e, _ in sizes) / len(sizes)
    chars = sum(c for _, c in sizes) / len(sizes)
    return f"a digest carries {entries:.1f} entries on average, a block of {chars:,.0f} characters"


def run_backend(bench: Bench, backend: str, folder: Path) -> None:
    name = BACKEND_NAMES[backend]
    with database(backend, folder) as (url, database_pid):
        for workers in bench.options.workers:
            environment = onfile_environment(url, bench.options.embedder)
            server = ServerProcess(environment, folder / f"{backend}-{workers}.log", workers=workers)
            try:
                server.start()
                cpu = tree_probe(server.pid, database_pid)
                described = resolve_seed_runs(server.base_url)
                if workers == bench.options.workers[0]:
                    print(f"{name}: {described}")
                # the hand-written floor on the same database, beside OnFile's server, once OnFile
                # journaled the runs replayed: each of its rows right after OnFile's of the same kind
                with baseline_server("bench.load_floor", folder, workers, environment) as (floor_url, floor_pid):
                    floor_cpu = tree_probe(floor_pid, database_pid)
                    floor_traffic = dict(FLOOR_WORKLOADS)
                    for case, traffic in WORKLOADS:
                        sides = [Side(server.base_url, case, traffic(), cpu)]
                        if case in FLOOR_OF:
                            sides.append(Side(floor_url, FLOOR_OF[case], floor_traffic[FLOOR_OF[case]](), floor_cpu))
                        bench.side_by_side(name, workers, sides)
            finally:
                server.stop()


def run(options: Options) -> list[Row]:
    bench = Bench(options)
    with tempfile.TemporaryDirectory(prefix="onfile-load-") as folder:
        for workers in options.workers:
            with baseline_server("bench.load_bare", Path(folder), workers) as (base_url, pid):
                bench.row(base_url, "—", workers, CEILING, bare_traffic(), tree_probe(pid))
        for backend in options.backends:
            reason = missing_binaries() if backend == "postgres" else None
            if reason is not None:
                print(f"PostgreSQL skipped: {reason}")
                continue
            run_backend(bench, backend, Path(folder))
    return bench.rows


ROW_ORDER = (CEILING, *(case for case, _ in WORKLOADS), *(case for case, _ in FLOOR_WORKLOADS))
"""The order of a table's rows within each backend and worker count (they are measured interleaved)."""


def render(rows: list[Row]) -> str:
    groups = list(dict.fromkeys((r.backend, r.workers) for r in rows))
    rows = sorted(rows, key=lambda r: (groups.index((r.backend, r.workers)), ROW_ORDER.index(r.case), r.connections))
    ceiling = {(r.workers, r.connections): r.measured.rate for r in rows if r.case == CEILING}
    floors = {
        (r.backend, r.workers, r.case, r.connections): r.measured.rate for r in rows if r.case in FLOOR_OF.values()
    }
    header = (
        f"| {'backend':<10} | workers | {'endpoint':<18} | conns | {'req/s':>7} | of ceiling | of floor | "
        f"{'p50 ms':>7} | {'p99 ms':>7} | errors | CPU µs/req: server | database |"
    )
    lines = [header, "|" + "|".join("-" * len(cell) for cell in header.split("|")[1:-1]) + "|"]
    for r in rows:
        m = r.measured
        share = f"{m.rate / ceiling[r.workers, r.connections]:.0%}" if (r.workers, r.connections) in ceiling else "?"
        floor = floors.get((r.backend, r.workers, FLOOR_OF.get(r.case, ""), r.connections))
        of_floor = "—" if floor is None else f"{m.rate / floor:.0%}"
        lines.append(
            f"| {r.backend:<10} | {r.workers:>7} | {r.case:<18} | {r.connections:>5} | {m.rate:>7,.0f} | "
            f"{share:>10} | {of_floor:>8} | {m.p50_ms:>7.1f} | {m.p99_ms:>7.1f} | {m.errors:>6} | "
            f"{_micros(r.server_cpu_us):>18} | {_micros(r.database_cpu_us):>8} |"
        )
    return "\n".join(lines)


def _micros(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}"


def verdict(rows: list[Row]) -> str:
    ceiling = {(r.workers, r.connections): r.measured.rate for r in rows if r.case == CEILING}
    digests = [r for r in rows if r.case == DIGEST]
    missed = [
        f"{r.backend} ×{r.workers} @{r.connections}"
        for r in digests
        if r.measured.errors or r.measured.rate < TARGET_SHARE * ceiling[r.workers, r.connections]
    ]
    head = f"Target: digest (new run) ≥ {TARGET_SHARE:.0%} of the ceiling with zero errors"
    said = (
        f"{head}: met in all {len(digests)} rows."
        if not missed
        else (f"{head}: MISSED in {len(missed)} of {len(digests)} rows ({', '.join(missed)}).")
    )
    floor_shares = [
        r.measured.rate / f.measured.rate
        for r in digests
        for f in rows
        if (f.backend, f.workers, f.case, f.connections) == (r.backend, r.workers, FLOOR_DIGEST, r.connections)
    ]
    floor_ceiling = [f.measured.rate / ceiling[f.workers, f.connections] for f in rows if f.case == FLOOR_DIGEST]
    if floor_shares:
        said += (
            f"\nThe hand-written floor's new runs reach {min(floor_ceiling):.0%}–{max(floor_ceiling):.0%} of the "
            f"ceiling; OnFile's reach {min(floor_shares):.0%}–{max(floor_shares):.0%} of the floor's."
        )
    return said


def parse(argv: list[str] | None) -> Options:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per row (default: 10)")
    parser.add_argument("--backends", default="sqlite,postgres", help="comma-separated: sqlite, postgres")
    parser.add_argument("--connections", default="16,64", help="comma-separated connection counts")
    parser.add_argument("--workers", default="1", help="comma-separated uvicorn worker counts (default: 1)")
    parser.add_argument(
        "--embedder", default="", help="ONFILE_EMBEDDER for OnFile's server; `none` ranks turns by words alone"
    )
    args = parser.parse_args(argv)
    backends = tuple(b for b in args.backends.split(",") if b)
    unknown = sorted(set(backends) - set(BACKEND_NAMES))
    if unknown:
        parser.error(f"unknown backend {', '.join(unknown)}; choose from {', '.join(BACKEND_NAMES)}")
    try:
        connections = tuple(int(c) for c in args.connections.split(",") if c)
        workers = tuple(int(w) for w in args.workers.split(",") if w)
    except ValueError as error:
        parser.error(str(error))
    if args.seconds < 1 or not connections or not workers or min(connections + workers) < 1:
        parser.error("--seconds, --connections and --workers must be at least 1")
    return Options(args.seconds, backends, connections, workers, args.embedder)


def main(argv: list[str] | None = None) -> None:
    options = parse(argv)
    print(f"$ {options.command()}")
    print(
        f"machine: {os.cpu_count()} cores, Python {platform.python_version()}; load from {generator_name()}; "
        f"{options.seconds:g} s per row after a {WARM_UP_SECONDS:g} s warm-up; "
        f"store: {len(seed_records())} memories, {len(ACTORS)} people"
    )
    if generator_name() != "wrk":
        print(
            "NOTE: wrk is not installed (apt-get install wrk). This client shares the two cores with the server "
            "and is slower than the bare app, so the ceiling measures the client: read the percentages as upper bounds."
        )
    started = time.perf_counter()
    rows = run(options)
    print(render(rows))
    print(verdict(rows))
    load = ", ".join(f"{figure:.1f}" for figure in os.getloadavg())
    print(
        f"(ran in {time.perf_counter() - started:.0f} s; load average at the end: {load}; "
        "other work on the machine lowers every row)"
    )


if __name__ == "__main__":
    main()
