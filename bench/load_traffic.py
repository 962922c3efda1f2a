"""Load generators for the load benchmark: wrk when it is installed, an asyncio httpx client otherwise.

A `Traffic` describes one row's requests. Request `n` of a generator (a wrk thread, or one of the
fallback's connections) is built from `n` and the generator's `tag`, which is unique per run of a
row, so a new run id or call id is never reused. wrk builds it with the Lua statements in `lua`, the
fallback with `build`; the two are kept side by side so they stay the same request.

A response is good when it is a 200 and, for rows that name one, its body contains `expect` (a
remember answered `"ok":false` is an error). Errors are bad responses plus socket errors and
timeouts.
"""

from __future__ import annotations

import asyncio
import math
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx

__all__ = ("TIMEOUT_SECONDS", "Measured", "Traffic", "generator_name", "measure")

TIMEOUT_SECONDS = 10
"""A request unanswered after this long counts as an error (a timeout)."""


@dataclass(frozen=True, slots=True)
class Traffic:
    """One row's requests: `lua` sets the locals `path` and `body` from `n` and `tag` (Lua tables from
    `tables` are in scope, 1-based); `build(tag, n)` returns the same path and body in Python."""

    method: str
    lua: str
    build: Callable[[str, int], tuple[str, bytes | None]]
    tables: Mapping[str, Sequence[str]] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)
    expect: str | None = None


@dataclass(frozen=True, slots=True)
class Measured:
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    errors: int

    @property
    def rate(self) -> float:
        return self.requests / self.seconds


def generator_name() -> str:
    return "wrk" if shutil.which("wrk") else "httpx (asyncio, in the benchmark's process)"


def measure(base_url: str, traffic: Traffic, *, connections: int, seconds: float, tag: str) -> Measured:
    """Drive `traffic` at `base_url` over `connections` keep-alive connections for `seconds`."""
    if shutil.which("wrk"):
        return _wrk(base_url, traffic, connections=connections, seconds=seconds, tag=tag)
    return asyncio.run(_httpx(base_url, traffic, connections=connections, seconds=seconds, tag=tag))


def _long_string(text: str) -> str:
    if "]==]" in text:
        msg = f"cannot quote {text!r} as a Lua long string"
        raise ValueError(msg)
    return f"[==[{text}]==]"


_DONE = r"""
function done(summary, latency, requests)
  local bad = 0
  for _, thread in ipairs(threads) do bad = bad + thread:get("bad") end
  local e = summary.errors
  io.write(string.format("ONFILE-LOAD %d %d %d %d %d %d %d %d %d\n", summary.requests, summary.duration,
    latency:percentile(50), latency:percentile(99), e.connect, e.read, e.write, e.timeout, bad))
end
"""


def lua_script(traffic: Traffic, tag: str) -> str:
    lines = [
        f"local {name} = {{{', '.join(_long_string(v) for v in values)}}}" for name, values in traffic.tables.items()
    ]
    lines += [f"wrk.method = {_long_string(traffic.method)}"]
    lines += [f"wrk.headers[ {_long_string(k)} ] = {_long_string(v)}" for k, v in traffic.headers.items()]
    expect = "nil" if traffic.expect is None else _long_string(traffic.expect)
    lines += [
        f"local expect = {expect}",
        f"local base_tag = {_long_string(tag)}",
        "threads = {}",
        "n = 0",
        "bad = 0",
        "function setup(thread)",
        '  thread:set("tag", base_tag .. "-" .. #threads)',
        "  table.insert(threads, thread)",
        "end",
        "function request()",
        "  local tag = tag or base_tag",
        "  local path, body",
        *(f"  {line}" for line in traffic.lua.strip().splitlines()),
        "  n = n + 1",
        "  return wrk.format(nil, path, nil, body)",
        "end",
        "function response(status, headers, body)",
        "  if status ~= 200 or (expect and not string.find(body, expect, 1, true)) then bad = bad + 1 end",
        "end",
    ]
    return "\n".join(lines) + _DONE


def _wrk(base_url: str, traffic: Traffic, *, connections: int, seconds: float, tag: str) -> Measured:
    with tempfile.TemporaryDirectory(prefix="onfile-wrk-") as folder:
        script = Path(folder) / "traffic.lua"
        script.write_text(lua_script(traffic, tag), encoding="utf-8")
        command = ["wrk", "-t1", f"-c{connections}", f"-d{max(1, round(seconds))}s"]
        command += [f"--timeout={TIMEOUT_SECONDS}s", "-s", str(script), base_url]
        done = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
    found = re.search(r"^ONFILE-LOAD ((?:\d+ ?){9})$", done.stdout, re.MULTILINE)
    if done.returncode != 0 or found is None:
        msg = f"wrk failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
        raise RuntimeError(msg)
    requests, duration_us, p50_us, p99_us, *errors = (int(part) for part in found.group(1).split())
    return Measured(requests, duration_us / 1e6, p50_us / 1000, p99_us / 1000, sum(errors))


async def _httpx(base_url: str, traffic: Traffic, *, connections: int, seconds: float, tag: str) -> Measured:
    latencies: list[float] = []
    errors = 0
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    headers = {"Content-Type": "application/json", **traffic.headers}
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=TIMEOUT_SECONDS) as client:
        started = time.perf_counter()
        deadline = started + seconds

        async def connection(index: int) -> None:
            nonlocal errors
            n = 0
            while time.perf_counter() < deadline:
                path, body = traffic.build(f"{tag}-{index}", n)
                n += 1
                begin = time.perf_counter()
                try:
                    answer = await client.request(traffic.method, path, content=body, headers=headers)
                    good = answer.status_code == 200 and (traffic.expect is None or traffic.expect in answer.text)
                except httpx.HTTPError:
                    good = False
                latencies.append(time.perf_counter() - begin)
                errors += not good

        await asyncio.gather(*(connection(index) for index in range(connections)))
        elapsed = time.perf_counter() - started
    return Measured(len(latencies), elapsed, _percentile(latencies, 0.50), _percentile(latencies, 0.99), errors)


def _percentile(values: list[float], share: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)] * 1000
