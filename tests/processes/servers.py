"""OnFile server processes for tests: `onfile serve` started the way an operator starts it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from web.demo.oidc_mock import free_port

__all__ = ("ServerProcess", "agent_environment")


def agent_environment(database_url: str, token: str, **settings: str) -> dict[str, str]:
    """The settings `onfile serve` needs to serve agents on `database_url` with the bearer `token`: an
    identity provider it never reaches (no one signs in), and any further `ONFILE_*` `settings`."""
    return {
        "ONFILE_DATABASE_URL": database_url,
        "ONFILE_SECRET_KEY": "agent-server-secret-key-0123456789abcdef",
        "ONFILE_OIDC_ISSUER": "http://127.0.0.1:9/unused",
        "ONFILE_OIDC_CLIENT_ID": "onfile",
        "ONFILE_OIDC_CLIENT_SECRET": "secret",
        "ONFILE_AGENT_TOKENS": token,
        **settings,
    }


@dataclass
class ServerProcess:
    """`onfile serve` on a free loopback port with the given ONFILE_* environment."""

    environment: Mapping[str, str]
    log_path: Path
    workers: int = 1
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        """The started server's process id (the parent of its workers)."""
        if self.process is None:
            msg = "the server has not been started"
            raise RuntimeError(msg)
        return self.process.pid

    def start(self, *, timeout: float = 30.0) -> ServerProcess:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ONFILE_")}
        env.update(self.environment)
        env.setdefault("ONFILE_BASE_URL", self.base_url)
        command = [sys.executable, "-m", "web.cli", "serve", "--port", str(self.port), "--workers", str(self.workers)]
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)  # noqa: S603
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                msg = f"onfile serve exited with {self.process.returncode}: {self.log_path.read_text()[-2000:]}"
                raise RuntimeError(msg)
            try:
                if httpx.get(f"{self.base_url}/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        msg = f"onfile serve did not answer within {timeout} s: {self.log_path.read_text()[-2000:]}"
        raise RuntimeError(msg)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
