"""A throwaway PostgreSQL server in a temporary folder, on a free loopback port.

Debian's PostgreSQL binaries (`initdb`, `pg_ctl`) are enough; no server needs to be running. initdb
refuses to run as root, so as root the server runs as the `postgres` system user, in folders that
user owns. Used by the tests (one server per run) and by the storage benchmark.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType

import asyncpg

__all__ = ("PostgresServer", "missing_binaries")

_BINARIES = ("initdb", "pg_ctl")
_POSTGRES_USER = "postgres"


def missing_binaries() -> str | None:
    """Why no server can be started here, or None when it can."""
    absent = [name for name in _BINARIES if shutil.which(name) is None]
    if absent:
        return f"PostgreSQL binaries not found on PATH: {', '.join(absent)} (install Debian's postgresql package)"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root needs `runuser` to start PostgreSQL as the postgres user"
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class PostgresServer:
    """Start with `start()` (or `with PostgresServer() as server:`), stop with `stop()`: the folder goes too."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.user = _POSTGRES_USER if os.geteuid() == 0 else os.environ.get("USER", "postgres")
        self._root = Path(tempfile.mkdtemp(prefix="onfile-pg-"))
        self._data = self._root / "data"
        self._sockets = self._root / "sockets"
        self._log = self._root / "server.log"
        self._running = False

    @property
    def pid(self) -> int | None:
        """The running server's process id (the postmaster, parent of every backend), or None."""
        try:
            return int((self._data / "postmaster.pid").read_text().split("\n", 1)[0])
        except (OSError, ValueError):
            return None

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+asyncpg://{self.user}@127.0.0.1:{self.port}/{database}"

    def start(self) -> PostgresServer:
        self._sockets.mkdir()
        if os.geteuid() == 0:
            for path in (self._root, self._sockets):
                shutil.chown(path, user=_POSTGRES_USER, group=_POSTGRES_USER)
        self._run("initdb", "-D", str(self._data), "-U", self.user, "--auth=trust", "-E", "UTF8")
        self._run("pg_ctl", "-D", str(self._data), "-l", str(self._log), "-o", self._options(), "-w", "start")
        self._running = True
        return self

    def _options(self) -> str:
        return (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self._sockets} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )

    def pause(self) -> None:
        """Stop the server, keeping its data (an outage): connections are cut, new ones refused."""
        self._run("pg_ctl", "-D", str(self._data), "-m", "fast", "-w", "stop")

    def resume(self) -> None:
        """Start a paused server again on the same port, with the same data."""
        self._run("pg_ctl", "-D", str(self._data), "-l", str(self._log), "-o", self._options(), "-w", "start")

    def stop(self) -> None:
        if self._running:
            self._run("pg_ctl", "-D", str(self._data), "-m", "fast", "-w", "stop")
            self._running = False
        shutil.rmtree(self._root, ignore_errors=True)

    def create_database(self, name: str, *, template: str | None = None) -> str:
        """Create database `name` (a copy of `template` when given) and return its URL. Names are
        the caller's own constants, never input."""
        copy = f' TEMPLATE "{template}"' if template else ""
        asyncio.run(self._admin(f'CREATE DATABASE "{name}"{copy}'))
        return self.url(name)

    def drop_database(self, name: str) -> None:
        asyncio.run(self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

    async def _admin(self, statement: str) -> None:
        connection = await asyncpg.connect(host="127.0.0.1", port=self.port, user=self.user, database="postgres")
        try:
            await connection.execute(statement)
        finally:
            await connection.close()

    def _run(self, *command: str) -> None:
        prefix = ["runuser", "-u", _POSTGRES_USER, "--"] if os.geteuid() == 0 else []
        env = {**os.environ, "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
        completed = subprocess.run(  # noqa: S603 - fixed binaries, arguments of our own
            [*prefix, *command], capture_output=True, text=True, env=env, check=False, cwd=self._root
        )
        if completed.returncode != 0:
            log = self._log.read_text() if self._log.exists() else ""
            msg = f"{' '.join(command)} failed ({completed.returncode}):\n{completed.stdout}{completed.stderr}{log}"
            raise RuntimeError(msg)

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()
