"""`onfile serve --workers 2` under concurrent agent calls, on SQLite and on PostgreSQL: 100 `remember`
calls at once on one key and on a hundred keys make one row per (scope, key) and no error; replays of
one call racing on both processes write once; the journal and the table agree. On SQLite the two
processes' writers queue for the lock instead of failing."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from store import ScopeContext
from store.domain.codec import record_from_json
from store.persistence import RunJournal, SqlMemoryProvider, open_engine
from tests.integration.builders import ADA
from tests.processes.servers import ServerProcess, agent_environment

TOKEN = "concurrency-agent-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
DIGEST = {"actor": {"id": "ada", "tenantRef": "berlin"}, "threadId": "thr_1", "text": ""}


@pytest.fixture
def server(database_url: str, tmp_path: Path) -> Iterator[ServerProcess]:
    environment = agent_environment(database_url, TOKEN)
    process = ServerProcess(environment, tmp_path / "server.log", workers=2).start()
    try:
        yield process
    finally:
        process.stop()


async def remember_all(base_url: str, run_id: str, calls: list[dict[str, str]]) -> list[httpx.Response]:
    limits = httpx.Limits(max_connections=len(calls), max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=60) as client:
        assert (await client.post(f"/agent/runs/{run_id}/digest", json=DIGEST, headers=AUTH)).status_code == 200
        return list(
            await asyncio.gather(
                *(client.post(f"/agent/runs/{run_id}/remember", json=call, headers=AUTH) for call in calls)
            )
        )


def writes_logged(server: ServerProcess, run_id: str) -> int:
    """The `memory.written` events both workers logged for `run_id`: one per write that happened."""
    return sum(
        1 for line in server.log_path.read_text().splitlines() if "memory.written" in line and f'"{run_id}"' in line
    )


def assert_all_ok(answers: list[httpx.Response]) -> list[dict[str, Any]]:
    assert [a.status_code for a in answers] == [200] * len(answers), {a.text for a in answers if a.status_code != 200}
    bodies = [a.json() for a in answers]
    assert all(body["ok"] for body in bodies), [body for body in bodies if not body["ok"]]
    return bodies


async def test_concurrent_remember_calls_on_two_processes_keep_one_row_per_key_and_write_each_call_once(
    server: ServerProcess, database_url: str
) -> None:
    one_key = [{"callId": f"one-{n}", "key": "units", "fact": f"answer {n}"} for n in range(100)]
    many_keys = [{"callId": f"many-{n}", "key": f"key-{n}", "fact": f"fact {n}"} for n in range(100)]
    replay = [{"callId": "again", "key": "tone", "fact": "short answers"} for _ in range(30)]

    on_one_key = assert_all_ok(await remember_all(server.base_url, "run_one", one_key))
    on_many_keys = assert_all_ok(await remember_all(server.base_url, "run_many", many_keys))
    replays = await remember_all(server.base_url, "run_replay", replay)

    assert len({body["record"]["id"] for body in on_one_key}) == 1, "one key is one record, whoever wrote last"
    assert len({body["record"]["id"] for body in on_many_keys}) == 100
    assert len({answer.content for answer in replays}) == 1, "every replay gets the recorded outcome"
    assert (writes_logged(server, "run_one"), writes_logged(server, "run_many")) == (100, 100)
    assert writes_logged(server, "run_replay") == 1, "replays racing on two processes wrote more than once"
    assert "database is locked" not in server.log_path.read_text()

    engine = open_engine(database_url)
    try:
        rows = await SqlMemoryProvider(engine).list(scopes=["actor:ada"], ctx=ScopeContext(actor=ADA))
        journal = RunJournal(engine)
        recorded = [p["record"] for p in (await journal.checkpoints("run_one")).values() if "record" in p]
    finally:
        await engine.dispose()
    assert sorted(r.key for r in rows) == sorted(["units", "tone", *(f"key-{n}" for n in range(100))])
    units = next(r for r in rows if r.key == "units")
    written = {(r.text, r.updated_at) for r in map(record_from_json, recorded)}
    assert len(written) == 100
    assert (units.text, units.updated_at) in written, "the row is one of the writes the journal recorded, whole"
    assert replays[0].json()["record"]["text"] == next(r.text for r in rows if r.key == "tone")
