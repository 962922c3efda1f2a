"""A server killed (SIGKILL) in the middle of a burst of writes leaves no partial state, on SQLite and
PostgreSQL: after a restart the database is sound, every row is one whole write the journal recorded,
the search index agrees with the table, every answered call replays its answer, and every call that
was cut off can simply be sent again and is carried out once."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from store import Actor, ScopeContext
from store.domain.codec import record_from_json
from store.persistence import RunJournal, SqlMemoryProvider, open_engine
from tests.processes.servers import ServerProcess, agent_environment

TOKEN = "kill-test-agent-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ADA = Actor("ada", "berlin")
CALLS = 200


def environment(database_url: str) -> dict[str, str]:
    return agent_environment(database_url, TOKEN)


@pytest.fixture
def servers(database_url: str, tmp_path: Path) -> Iterator[list[ServerProcess]]:
    started: list[ServerProcess] = []
    try:
        yield started
    finally:
        for server in started:
            server.stop()


def call(n: int) -> dict[str, str]:
    return {"callId": f"call-{n}", "key": f"key-{n % 12}", "fact": f"fact number w{n:04d}x"}


async def burst(base_url: str, kill: ServerProcess) -> dict[int, bytes]:
    """Send the calls twenty at a time and SIGKILL the server once some are answered; the answers got."""
    answered: dict[int, bytes] = {}
    limits = httpx.Limits(max_connections=20)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=10) as client:
        body = {"actor": {"id": "ada", "tenantRef": "berlin"}, "threadId": "thr_1", "text": ""}
        assert (await client.post("/agent/runs/run_k/digest", json=body, headers=AUTH)).status_code == 200

        async def send(n: int) -> None:
            with contextlib.suppress(httpx.HTTPError):
                answer = await client.post("/agent/runs/run_k/remember", json=call(n), headers=AUTH)
                assert answer.status_code == 200, answer.text
                answered[n] = answer.content
            if len(answered) == 40 and kill.process is not None and kill.process.poll() is None:
                os.kill(kill.process.pid, signal.SIGKILL)

        await asyncio.gather(*(send(n) for n in range(CALLS)))
    return answered


async def test_a_server_killed_mid_burst_leaves_whole_writes_that_the_journal_and_the_index_agree_with(
    servers: list[ServerProcess], database_url: str, tmp_path: Path
) -> None:
    first = ServerProcess(environment(database_url), tmp_path / "first.log").start()
    servers.append(first)
    answered = await burst(first.base_url, first)
    assert first.process is not None
    assert first.process.wait(timeout=10) == -signal.SIGKILL
    assert 40 <= len(answered) < CALLS, "the server was killed mid-burst"

    engine = open_engine(database_url)
    try:
        if database_url.startswith("sqlite"):
            async with engine.connect() as connection:
                assert (await connection.execute(text("PRAGMA integrity_check"))).scalar_one() == "ok"
        second = ServerProcess(environment(database_url), tmp_path / "second.log").start()
        servers.append(second)
        async with httpx.AsyncClient(base_url=second.base_url, timeout=30) as client:
            for n, content in answered.items():  # an answered call replays its answer, byte for byte
                replay = await client.post("/agent/runs/run_k/remember", json=call(n), headers=AUTH)
                assert replay.content == content
            for n in sorted(set(range(CALLS)) - set(answered)):  # a call cut off is sent again, and done
                again = await client.post("/agent/runs/run_k/remember", json=call(n), headers=AUTH)
                assert again.json()["ok"] is True, again.text

        provider = SqlMemoryProvider(engine)
        rows = await provider.list(scopes=["actor:ada"], ctx=ScopeContext(actor=ADA))
        checkpoints = await RunJournal(engine).checkpoints("run_k")
        searched = {
            row.id: await provider.search(
                scopes=["actor:ada"], query=row.text.rsplit(" ", 1)[-1], limit=5, ctx=ScopeContext(actor=ADA)
            )
            for row in rows
        }
    finally:
        await engine.dispose()

    recorded = [record_from_json(p["record"]) for position, p in checkpoints.items() if position.startswith("tool:")]
    assert len(recorded) == CALLS, "every call is in the journal exactly once"
    assert sorted(r.key for r in rows) == sorted({f"key-{n % 12}" for n in range(CALLS)})
    whole_writes = {(r.key, r.text, r.updated_at) for r in recorded}
    for row in rows:
        assert (row.key, row.text, row.updated_at) in whole_writes, f"{row} is not a write the journal recorded"
        assert {r.id for r in recorded if r.key == row.key} == {row.id}, "one record per key, whoever wrote it"
        assert [(r.key, r.text) for r in searched[row.id]] == [(row.key, row.text)], "the index agrees with the table"
