"""`onfile demo` as a person runs it: however it is stopped, its identity provider stops with it; a
second demo on a port in use is refused before it touches anything."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from web.cli import main
from web.demo import server as demo_server
from web.demo.oidc_mock import MockProvider, free_port


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc: the field after the name in `stat`)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue  # gone while we looked
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def running(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie nobody reaped has stopped running)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """`onfile demo` on a free port, answering; yields it and its identity provider's process id."""
    port = free_port()
    command = [sys.executable, "-m", "web.cli", "demo", "--port", str(port), "--folder", str(tmp_path / "demo")]
    with (tmp_path / "demo.log").open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path)  # noqa: S603
    provider: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        assert process.poll() is None, (tmp_path / "demo.log").read_text()
        provider = children(process.pid)
        assert len(provider) == 1, "the demo runs one identity provider"
        yield process, provider[0]
    finally:
        for pid in [process.pid, *provider]:
            if running(pid):
                os.kill(pid, signal.SIGKILL)
        process.wait(timeout=10)


def test_an_agent_runtime_reaches_the_demo_with_the_call_it_prints(
    demo: tuple[subprocess.Popen[bytes], int], tmp_path: Path
) -> None:
    banner = (tmp_path / "demo.log").read_text()
    printed = re.search(r"curl -X POST (\S+) \\\n\s+-H \"Authorization: Bearer (\S+)\".*\n\s+-d '(.+)'", banner)
    assert printed is not None, banner
    url, token, body = printed.groups()

    answer = httpx.post(
        url, content=body, headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    )
    wrong = httpx.post(url, content=body, headers={"Authorization": "Bearer nope", "Content-Type": "application/json"})

    assert answer.status_code == 200, answer.text
    keys = {entry["key"] for entry in answer.json()["entries"]}
    assert {"units", "manifest-required"} <= keys, "Ada's own note on units, and Berlin's always-on policy"
    assert wrong.status_code == 401


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=["TERM", "HUP", "INT"])
def test_stopping_the_demo_stops_its_identity_provider(
    demo: tuple[subprocess.Popen[bytes], int], stop: signal.Signals
) -> None:
    process, provider = demo

    process.send_signal(stop)
    process.wait(timeout=15)
    deadline = time.monotonic() + 5
    while running(provider) and time.monotonic() < deadline:
        time.sleep(0.1)

    assert not running(provider), "the identity provider outlived the demo"


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A loopback port something listens on."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield int(listener.getsockname()[1])


def test_a_demo_on_a_port_in_use_is_refused_before_it_prints_or_touches_a_file(
    taken_port: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    running = tmp_path / "demo" / "demo.sqlite3"  # a demo already running there
    running.parent.mkdir()
    running.write_bytes(b"the running demo's database")
    before = set(children(os.getpid()))  # the session's own (a PostgreSQL server, say) are not the demo's

    with pytest.raises(SystemExit) as exited:
        main(["demo", "--port", str(taken_port), "--folder", str(running.parent)])

    assert exited.value.code == 1
    out, err = capsys.readouterr()
    assert out == "", "no banner"
    assert err == (
        f"onfile: cannot listen on 127.0.0.1:{taken_port} for the dashboard (Address already in use); "
        "is a demo already running? Choose another port with --port.\n"
    )
    assert running.read_bytes() == b"the running demo's database"
    assert set(children(os.getpid())) <= before, "no identity provider was started"


def test_a_demo_whose_identity_provider_port_is_in_use_is_refused_too(
    taken_port: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(demo_server, "MockProvider", lambda: MockProvider(port=taken_port))

    with pytest.raises(SystemExit) as exited:
        main(["demo", "--port", str(free_port()), "--folder", str(tmp_path / "demo")])

    assert exited.value.code == 1
    assert f"cannot listen on 127.0.0.1:{taken_port} for the identity provider" in capsys.readouterr().err
    assert not (tmp_path / "demo").exists()
