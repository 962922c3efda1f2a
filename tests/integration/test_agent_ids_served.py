"""Ids the way a real server receives them. The test client decodes an address twice, which no
server does, so what `%` in an id does is seen here, against `onfile serve`: the HTTP client sends each
id as one encoded segment and the server acts on exactly that id; bytes that are not UTF-8 are a 400,
never an id that collides with another."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from store import Actor
from store.persistence import ConversationRegistry, Origin, open_engine
from store.sdk import OnFileClient
from tests.processes.servers import ServerProcess, agent_environment

TOKEN = "served-ids-agent-token-0123456789"


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[ServerProcess, str]]:
    url = f"sqlite+aiosqlite:///{tmp_path / 'onfile.sqlite3'}"
    environment = agent_environment(url, TOKEN)
    server = ServerProcess(environment, tmp_path / "server.log").start()
    try:
        yield server, url
    finally:
        server.stop()


async def test_ids_holding_percent_escapes_are_their_own_runs_and_threads(served: tuple[ServerProcess, str]) -> None:
    server, url = served
    onfile = OnFileClient(server.base_url, TOKEN)
    try:
        # were any two of these decoded into one, the later call would be refused for another actor
        for n, run_id in enumerate(("tAx", "t%41x", "t%2541x", "t%3Fx", "t?x")):
            await onfile.begin_run(run_id, actor=Actor(f"person{n}"), thread_id=run_id, text="")
        await onfile.thread_deleted("t%3Fx")
        await onfile.runs_dropped("t%41x", ["t%41x"])
    finally:
        await onfile.close()

    engine = open_engine(url)
    try:
        registry = ConversationRegistry(engine)
        origins = [Origin(thread, thread) for thread in ("tAx", "t%41x", "t%2541x", "t%3Fx", "t?x")]
        resolving = await registry.origins_resolve(origins)
    finally:
        await engine.dispose()
    assert resolving == {Origin("tAx", "tAx"), Origin("t%2541x", "t%2541x"), Origin("t?x", "t?x")}


async def test_an_address_that_is_not_utf8_or_splits_an_id_is_refused_naming_the_id(
    served: tuple[ServerProcess, str],
) -> None:
    server, _ = served
    headers = {"Authorization": f"Bearer {TOKEN}"}
    body = {"actor": {"id": "ada"}}
    async with httpx.AsyncClient(base_url=server.base_url, headers=headers) as client:
        not_utf8 = await client.post("/agent/runs/%FF/digest", json=body)
        other_bytes = await client.post("/agent/runs/%FE/digest", json={"actor": {"id": "bob"}})
        slash = await client.post("/agent/runs/a%2Fb/digest", json=body)
        too_long = await client.post(f"/agent/runs/{'r' * 201}/digest", json=body)
        thread_too_long = await client.delete(f"/agent/threads/{'t' * 201}")
        thread_slash = await client.delete("/agent/threads/a%2Fb")
        trailing = [
            await client.post("/agent/runs/a%2F/digest", json=body),
            await client.delete("/agent/threads/thrx%2F"),
            await client.delete("/agent/threads/thrx%2F%2F"),
            await client.post("/agent/runs/a%2f/remember", json={"callId": "c", "key": "k", "fact": "f"}),
            # written otherwise, the router still reaches the routes: the check is the raw address's
            await client.post(f"{server.base_url}//agent/runs/a%2F/digest", json=body),
            await client.post("/agent/%72uns/a%2F/digest", json=body),
            await client.post("/%61gent/runs/a%2F/digest", json=body),
            await client.post("/agent/runs%2Fa%2F/digest", json=body),
            await client.delete(f"{server.base_url}//agent/threads/thrx%2F"),
        ]
        run_a = await client.post("/agent/runs/a/digest", json={"actor": {"id": "max"}})
        elsewhere = await client.post("/agent/nothing/a%2Fb", json=body)

    assert not_utf8.status_code == other_bytes.status_code == 400
    assert "U+FFFD" in not_utf8.json()["error"]
    assert (too_long.status_code, too_long.json()) == (
        400,
        {"error": "runId is 201 characters long; the limit is 200."},
    )
    assert thread_too_long.json() == {"error": "threadId is 201 characters long; the limit is 200."}, "named as sent"
    assert slash.status_code == 400, "the router reads the id as two segments; the API still names the id"
    assert slash.json()["error"].startswith("runId contains '/'")
    assert thread_slash.status_code == 400
    assert thread_slash.json()["error"].startswith("threadId contains '/'")
    assert elsewhere.status_code == 404
    for answer in trailing:  # the router reads `a%2F` as `a`: refused before the route acts on another id
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"].split(" ", 1)[0] in {"runId", "threadId"}
    assert run_a.status_code == 200, "run a was never touched"


async def test_ids_of_dots_alone_are_their_own_runs_and_threads(served: tuple[ServerProcess, str]) -> None:
    """An HTTP client reads `.` and `..` in an address as folders: the SDK sends them encoded, so a
    run, a thread or a dropped run under such an id is that one, never the address above it."""
    server, url = served
    onfile = OnFileClient(server.base_url, TOKEN)
    try:
        for n, run_id in enumerate((".", "..", "...")):
            run = await onfile.begin_run(run_id, actor=Actor(f"dots{n}"), thread_id=run_id, text="")
            assert (await run.remember("c1", "units", "kilometres")).ok
        await onfile.thread_deleted("..")
        await onfile.runs_dropped(".", ["."])
    finally:
        await onfile.close()

    engine = open_engine(url)
    try:
        resolving = await ConversationRegistry(engine).origins_resolve([Origin(d, d) for d in (".", "..", "...")])
    finally:
        await engine.dispose()
    assert resolving == {Origin("...", "...")}


async def test_the_agent_apis_bare_address_answers_json(served: tuple[ServerProcess, str]) -> None:
    server, _ = served
    async with httpx.AsyncClient(base_url=server.base_url, headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        answers = [await client.post("/agent", json={}), await client.delete("/agent")]

    for answer in answers:
        assert answer.status_code == 404
        assert answer.json()["error"].startswith(f"Nothing is at {answer.request.method} /agent;")
