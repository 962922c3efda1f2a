"""Where the load benchmark's CPU goes: the time the server's processes spend, per request served.

A row's rate says how many requests the machine served; this says what each cost the processes
that served it, read from Linux's `/proc` before and after the row's measured seconds — the OnFile
(or bare) server with every worker under it, and, on PostgreSQL, the database server with every
backend under it. The load generator's own time is in neither, so the figure does not move with the
other core's work the way a rate does. Where there is no `/proc`, there are no figures.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

__all__ = ("CpuProbe", "no_probe", "process_tree_seconds", "tree_probe")

CpuProbe = Callable[[], tuple[float | None, float | None]]
"""CPU seconds used so far: (the serving processes, the database server's — None without one)."""

_PROC = Path("/proc")
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def process_tree_seconds(pid: int) -> float | None:
    """User and system CPU seconds that `pid` and every process under it have used (a process that
    has exited is no longer counted); None without `/proc` or when `pid` is gone."""
    if not (_PROC / str(pid)).is_dir():
        return None
    parents: dict[int, list[int]] = {}
    used: dict[int, int] = {}
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # it exited while we looked
            continue
        # "pid (name) state ppid …": the name may hold spaces and parentheses, so split after it
        fields = stat[stat.rindex(")") + 2 :].split()
        child = int(entry.name)
        parents.setdefault(int(fields[1]), []).append(child)
        used[child] = int(fields[11]) + int(fields[12])  # utime, stime
    if pid not in used:
        return None
    total, waiting = 0, [pid]
    while waiting:
        current = waiting.pop()
        total += used.get(current, 0)
        waiting.extend(parents.get(current, ()))
    return total / _TICKS


def tree_probe(server_pid: int, database_pid: int | None = None) -> CpuProbe:
    def probe() -> tuple[float | None, float | None]:
        database = None if database_pid is None else process_tree_seconds(database_pid)
        return process_tree_seconds(server_pid), database

    return probe


def no_probe() -> tuple[float | None, float | None]:
    return None, None
