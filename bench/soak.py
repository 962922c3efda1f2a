"""The soak: one `onfile serve` process under a steady mix for minutes, watched for errors, latency and
memory growth.

    python -m bench.soak [--seconds 300] [--warm-up 30] [--connections 32] [--backend sqlite|postgres]

The mix, in equal parts, over `--connections` keep-alive connections from wrk (one thread; without wrk
the run stops and says so): the digest of a new run (resolve, search, render, register, journal); the
read-back of a person's memories (`GET /agent/memories`, with their dashboard session); `remember` of a
new fact on a run resolved beforehand; and forgetting (`DELETE /agent/memories/{id}`, with the
owner's session and CSRF token) a fact an earlier `remember` answered — so the store stays the same
size and what grows is only the journal, as in production. The store and the people are the load
benchmark's (`bench.load_data`).

A response is an error unless it is a 200 of the kind asked (`"block":`, a JSON list, `"ok":true`,
`{"forgotten":true}`); a socket error or a 10 s timeout is one too. The server's resident memory (VmRSS
from /proc) is sampled every 5 s; after the warm-up it must not grow by more than 10% (last sample
against the first, and the largest against the first). Everything runs on 127.0.0.1 and stops by itself.

Targets: zero errors; memory growth ≤ 10%; p50 and p99 reported.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from bench.load import onfile_environment, resolve_seed_runs
from bench.load_data import ACTORS, SEED_RUNS, TEXTS, TOKEN, seed_records
from bench.load_traffic import TIMEOUT_SECONDS
from store.persistence import DashboardSessions, SqlMemoryProvider, open_engine, upgrade
from tests.postgres_server import PostgresServer, missing_binaries
from tests.processes.servers import ServerProcess
from web.kit.identity.sessions import SESSION_COOKIE, csrf_token

GROWTH_LIMIT = 0.10
SAMPLE_EVERY_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class Options:
    seconds: int
    warm_up: int
    connections: int
    backend: str

    def command(self) -> str:
        return (
            f"python -m bench.soak --seconds {self.seconds} --warm-up {self.warm_up} "
            f"--connections {self.connections} --backend {self.backend}"
        )


@dataclass(frozen=True, slots=True)
class Outcome:
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    errors: int
    by_kind: dict[str, int]

    @property
    def rate(self) -> float:
        return self.requests / self.seconds


def _lua_string(text: str) -> str:
    if "]==]" in text:
        msg = f"cannot quote {text!r} as a Lua long string"
        raise ValueError(msg)
    return f"[==[{text}]==]"


def lua_script(tag: str, sessions: list[str], secret: str) -> str:
    """The mix as a wrk script. Responses are told apart by their bodies (wrk does not say which
    request a response answers); a remember's answer names the record and its owner, and is queued
    for a later forget by that owner."""
    actors = [f'{{"id": "{a.id}", "tenantRef": "{a.tenant_ref}", "roles": ["staff"]}}' for a in ACTORS]
    index = {a.id: n + 1 for n, a in enumerate(ACTORS)}
    tables = {
        "actors": actors,
        "texts": [f'"{t}"' for t in TEXTS],
        "cookies": [f"{SESSION_COOKIE}={s}" for s in sessions],
        "csrfs": [csrf_token(secret, s) for s in sessions],
    }
    lines = [f"local {name} = {{{', '.join(map(_lua_string, values))}}}" for name, values in tables.items()]
    lines.append("local owner = {" + ", ".join(f'["{k}"] = {v}' for k, v in index.items()) + "}")
    lines += [
        f"local tag = {_lua_string(tag)}",
        f"local seed_runs = {SEED_RUNS}",
        "local n = 0",
        "local queue, head, tail = {}, 1, 0",
        "-- globals, so that done() can read each thread's counts",
        "threads = {}",
        "bad, digests, readbacks, remembers, forgets = 0, 0, 0, 0, 0",
        "",
        "function setup(thread)",
        "  table.insert(threads, thread)",
        "end",
        "",
        "function request()",
        "  n = n + 1",
        "  local kind = n % 4",
        "  if kind == 3 and head <= tail then",
        "    local item = queue[head]; queue[head] = nil; head = head + 1",
        '    return wrk.format("DELETE", "/agent/memories/" .. item.id,',
        '      {["Cookie"] = cookies[item.owner], ["X-CSRF-Token"] = csrfs[item.owner]}, nil)',
        "  end",
        "  if kind == 0 then",
        "    local a = (math.floor(n / 4) % #actors) + 1",
        "    local body = '{\"actor\": ' .. actors[a] .. ', \"threadId\": \"' .. tag .. '-t' .. (n % 97)",
        "      .. '\", \"text\": ' .. texts[(n % #texts) + 1] .. '}'",
        '    return wrk.format("POST", "/agent/runs/" .. tag .. "-" .. n .. "/digest",',
        '      {["Authorization"] = "Bearer ' + TOKEN + '", ["Content-Type"] = "application/json"}, body)',
        "  end",
        "  if kind == 1 then",
        "    local a = (n % #cookies) + 1",
        '    return wrk.format("GET", "/agent/memories", {["Cookie"] = cookies[a]}, nil)',
        "  end",
        "  local body = '{\"callId\": \"' .. tag .. '-' .. n .. '\", \"key\": \"soak-' .. tag .. '-' .. n",
        '    .. \'", "fact": "noted during the soak, call \' .. n .. \'"}\'',
        '  return wrk.format("POST", "/agent/runs/seed-" .. (n % seed_runs) .. "/remember",',
        '    {["Authorization"] = "Bearer ' + TOKEN + '", ["Content-Type"] = "application/json"}, body)',
        "end",
        "",
        "function response(status, headers, body)",
        "  if status ~= 200 then bad = bad + 1; return end",
        "  if string.find(body, '\"block\":', 1, true) then digests = digests + 1",
        '  elseif string.sub(body, 1, 1) == "[" then readbacks = readbacks + 1',
        "  elseif string.find(body, '\"forgotten\":true', 1, true) then forgets = forgets + 1",
        "  elseif string.find(body, '\"ok\":true', 1, true) then",
        "    remembers = remembers + 1",
        '    local id = string.match(body, \'"id":"([^"]+)"\')',
        '    local who = string.match(body, \'"scope":"actor:([^"]+)"\')',
        "    if id and who and owner[who] then tail = tail + 1; queue[tail] = {id = id, owner = owner[who]} end",
        "  else bad = bad + 1 end",
        "end",
        "",
        "function done(summary, latency, requests)",
        "  local e = summary.errors",
        "  local c = {bad = 0, digests = 0, readbacks = 0, remembers = 0, forgets = 0}",
        "  for _, thread in ipairs(threads) do",
        "    for name, _ in pairs(c) do c[name] = c[name] + thread:get(name) end",
        "  end",
        '  io.write(string.format("ONFILE-SOAK %d %d %d %d %d %d %d %d %d %d %d %d %d\\n",',
        "    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),",
        "    e.connect, e.read, e.write, e.timeout, c.bad,",
        "    c.digests, c.readbacks, c.remembers, c.forgets))",
        "end",
    ]
    return "\n".join(lines) + "\n"


def run_wrk(base_url: str, script: str, *, connections: int, seconds: int) -> Outcome:
    with tempfile.TemporaryDirectory(prefix="onfile-soak-") as folder:
        path = Path(folder) / "soak.lua"
        path.write_text(script, encoding="utf-8")
        command = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", f"--timeout={TIMEOUT_SECONDS}s"]
        done = subprocess.run([*command, "-s", str(path), base_url], capture_output=True, text=True, check=False)  # noqa: S603
    found = re.search(r"^ONFILE-SOAK ((?:\d+ ?){13})$", done.stdout, re.MULTILINE)
    if done.returncode != 0 or found is None:
        msg = f"wrk failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
        raise RuntimeError(msg)
    requests, duration_us, p50_us, p99_us, *rest = (int(part) for part in found.group(1).split())
    socket_errors, bad, kinds = sum(rest[:4]), rest[4], rest[5:]
    by_kind = dict(zip(("digest", "read-back", "remember", "forget"), kinds, strict=True))
    # wrk counts a non-2xx/3xx status as an error on its own; `bad` covers every wrong answer, so only
    # socket errors are added to it.
    return Outcome(requests, duration_us / 1e6, p50_us / 1000, p99_us / 1000, socket_errors + bad, by_kind)


def rss_kib(pid: int) -> int:
    """The process's resident memory, from /proc (KiB)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    msg = f"no VmRSS for process {pid}"
    raise RuntimeError(msg)


class Sampler:
    """Samples a process's RSS every few seconds on a thread, until stopped (or its bound is reached)."""

    def __init__(self, pid: int, *, bound_seconds: float) -> None:
        self.pid = pid
        self.samples: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._bound = bound_seconds
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=SAMPLE_EVERY_SECONDS * 2)

    def _run(self) -> None:
        started = time.monotonic()
        while not self._stop.is_set() and time.monotonic() - started < self._bound:
            self.samples.append((time.monotonic() - started, rss_kib(self.pid)))
            self._stop.wait(SAMPLE_EVERY_SECONDS)


@contextmanager
def database(backend: str, folder: Path) -> Iterator[str]:
    if backend == "sqlite":
        url = f"sqlite+aiosqlite:///{folder / 'soak.sqlite3'}"
        asyncio.run(_prepare(url))
        yield url
        return
    server = PostgresServer().start()
    try:
        url = server.create_database("onfile_soak")
        asyncio.run(_prepare(url))
        yield url
    finally:
        server.stop()


async def _prepare(url: str) -> None:
    await upgrade(url)
    engine = open_engine(url)
    try:
        await SqlMemoryProvider(engine).add(seed_records())
    finally:
        await engine.dispose()


async def open_sessions(url: str) -> list[str]:
    """One dashboard session per person of the store, as a login would leave it."""
    engine = open_engine(url)
    try:
        sessions = DashboardSessions(engine)
        ids = []
        for actor in ACTORS:
            data = {
                "actor": {"id": actor.id, "tenant_ref": actor.tenant_ref, "roles": list(actor.roles)},
                "name": actor.id,
                "email": f"{actor.id}@example.com",
                "id_token": "",
            }
            ids.append((await sessions.create(data, ttl=timedelta(hours=2), actor_id=actor.id)).id)
        return ids
    finally:
        await engine.dispose()


@dataclass(frozen=True, slots=True)
class Report:
    options: Options
    outcome: Outcome
    samples: list[tuple[float, int]]

    @property
    def growth(self) -> float:
        first = self.samples[0][1]
        return max(self.samples[-1][1], max(kib for _, kib in self.samples)) / first - 1

    def render(self) -> str:
        o = self.outcome
        first, last = self.samples[0][1], self.samples[-1][1]
        peak = max(kib for _, kib in self.samples)
        kinds = ", ".join(f"{kind} {count:,}" for kind, count in o.by_kind.items())
        verdict = "met" if o.errors == 0 and self.growth <= GROWTH_LIMIT else "MISSED"
        return "\n".join(
            [
                "| requests | req/s | p50 ms | p99 ms | errors | RSS after warm-up | RSS at end | RSS peak | growth |",
                "|---|---|---|---|---|---|---|---|---|",
                f"| {o.requests:,} | {o.rate:,.0f} | {o.p50_ms:.1f} | {o.p99_ms:.1f} | {o.errors} | "
                f"{first / 1024:.1f} MiB | {last / 1024:.1f} MiB | {peak / 1024:.1f} MiB | {self.growth:+.1%} |",
                f"answered by kind: {kinds}",
                f"RSS samples (MiB, every {SAMPLE_EVERY_SECONDS:g} s): "
                + " ".join(f"{kib / 1024:.0f}" for _, kib in self.samples),
                f"Targets: zero errors, memory growth ≤ {GROWTH_LIMIT:.0%} after warm-up: {verdict}.",
            ]
        )


def soak(options: Options) -> Report:
    with tempfile.TemporaryDirectory(prefix="onfile-soak-") as folder, database(options.backend, Path(folder)) as url:
        sessions = asyncio.run(open_sessions(url))
        environment = onfile_environment(url)
        server = ServerProcess(environment, Path(folder) / "server.log", workers=1)
        try:
            server.start()
            if server.process is None:  # pragma: no cover - start() returns only with a process
                raise RuntimeError("the server did not start")
            print(resolve_seed_runs(server.base_url))
            secret = environment["ONFILE_SECRET_KEY"]
            run_wrk(
                server.base_url,
                lua_script("warm", sessions, secret),
                connections=options.connections,
                seconds=options.warm_up,
            )
            with Sampler(server.process.pid, bound_seconds=options.seconds + 60) as sampler:
                outcome = run_wrk(
                    server.base_url,
                    lua_script("soak", sessions, secret),
                    connections=options.connections,
                    seconds=options.seconds,
                )
                sampler.samples.append((float(options.seconds), rss_kib(server.process.pid)))
            if server.process.poll() is not None:
                msg = f"the server died during the soak: {server.log_path.read_text()[-2000:]}"
                raise RuntimeError(msg)
            tracebacks = server.log_path.read_text().count("Traceback")
            if tracebacks:
                print(f"NOTE: the server logged {tracebacks} tracebacks; see its log")
        finally:
            server.stop()
            kept = Path(tempfile.gettempdir()) / "onfile-soak-server.log"
            shutil.copyfile(server.log_path, kept)
            print(f"the server's log: {kept}")
    return Report(options, outcome, sampler.samples)


def parse(argv: list[str] | None) -> Options:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=300, help="measured seconds (default: 300)")
    parser.add_argument("--warm-up", type=int, default=30, help="seconds of the same mix first (default: 30)")
    parser.add_argument("--connections", type=int, default=32, help="concurrent connections (default: 32)")
    parser.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    args = parser.parse_args(argv)
    if min(args.seconds, args.warm_up, args.connections) < 1 or args.seconds > 3600:
        parser.error("--seconds (at most 3600), --warm-up and --connections must be at least 1")
    return Options(args.seconds, args.warm_up, args.connections, args.backend)


def main(argv: list[str] | None = None) -> None:
    options = parse(argv)
    if shutil.which("wrk") is None:
        raise SystemExit(
            "the soak needs wrk (apt-get install wrk): it measures with it, not with a client sharing the cores"
        )
    if options.backend == "postgres" and (reason := missing_binaries()) is not None:
        raise SystemExit(f"PostgreSQL is not available: {reason}")
    print(f"$ {options.command()}")
    print(
        f"machine: {os.cpu_count()} cores, Python {platform.python_version()}; load from wrk, one thread; "
        f"{options.warm_up} s warm-up, then {options.seconds} s measured; backend {options.backend}; "
        f"store: {len(seed_records())} memories, {len(ACTORS)} people, one server process"
    )
    started = time.perf_counter()
    report = soak(options)
    print(report.render())
    load = ", ".join(f"{figure:.1f}" for figure in os.getloadavg())
    print(f"(ran in {time.perf_counter() - started:.0f} s; load average at the end: {load})")
    if report.outcome.errors or report.growth > GROWTH_LIMIT:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
