"""A local development identity provider (oidc-provider-mock) in a child process, for the demo and
the tests. It listens on loopback only and is never part of a real deployment."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

__all__ = ("MockProvider", "free_port")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class MockProvider:
    """Start with `start()`, stop with `stop()`. `issuer` is always spelt with 127.0.0.1, because the
    provider derives its issuer from the Host header and every party must use one spelling."""

    port: int = field(default_factory=free_port)
    refresh_tokens: bool = True
    """Whether the provider issues refresh tokens (without them, a person is asked about at userinfo)."""
    process: subprocess.Popen[bytes] | None = None

    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, *, timeout: float = 20.0) -> MockProvider:
        command = [sys.executable, "-m", "oidc_provider_mock", "--host", "127.0.0.1", "--port", str(self.port), "-n"]
        if not self.refresh_tokens:
            command.append("--no-refresh-token")
        self.process = subprocess.Popen(  # noqa: S603 - a fixed module of our own venv, on loopback
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                msg = f"the development identity provider exited with {self.process.returncode}"
                raise RuntimeError(msg)
            try:
                httpx.get(f"{self.issuer}/.well-known/openid-configuration", timeout=1).raise_for_status()
            except httpx.HTTPError:
                time.sleep(0.1)
            else:
                return self
        self.stop()
        msg = f"the development identity provider did not start within {timeout} s"
        raise RuntimeError(msg)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def set_person(self, sub: str, claims: Mapping[str, Any]) -> None:
        """Give `sub` these claims in the ID tokens the provider issues from now on."""
        httpx.put(f"{self.issuer}/users/{sub}", json=dict(claims), timeout=5).raise_for_status()

    def revoke_tokens(self, sub: str) -> None:
        """Withdraw every token issued to `sub`: a refresh or a userinfo call with one is refused."""
        httpx.post(f"{self.issuer}/users/{sub}/revoke-tokens", timeout=5).raise_for_status()

    def authorize(self, authorization_url: str, sub: str, *, deny: bool = False) -> str:
        """Play the person at the provider's consent form; returns where the provider sends them back."""
        form: dict[str, str] = {"action": "deny"} if deny else {"sub": sub}
        response = httpx.post(authorization_url, data=form, timeout=5)
        if response.status_code not in {302, 303}:
            msg = f"the provider answered {response.status_code}: {response.text[:200]}"
            raise RuntimeError(msg)
        return response.headers["location"]

    def people(self, people: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
        for sub, claims in people:
            self.set_person(sub, claims)
