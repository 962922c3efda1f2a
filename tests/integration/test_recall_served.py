"""An agent's turns against `onfile serve`, on each backend, as a runtime meets recall by meaning: a
fact remembered in one turn is in front of the model on a later turn that shares no word with it —
with one memory on file, and with more than the block holds."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.builders import UNRELATED_FACTS
from tests.processes.servers import ServerProcess, agent_environment

TOKEN = "recall-agent-token-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ADA = {"id": "ada", "tenantRef": "berlin"}
OTHER_FACTS = [(f"note-{n}", fact) for n, fact in enumerate(UNRELATED_FACTS[:8])]


@pytest.fixture
def server(database_url: str, tmp_path: Path) -> Iterator[ServerProcess]:
    environment = agent_environment(database_url, TOKEN, ONFILE_MAX_MEMORIES="4")
    process = ServerProcess(environment, tmp_path / "server.log").start()
    try:
        yield process
    finally:
        process.stop()


def turn(client: httpx.Client, run: str, text: str) -> Any:
    response = client.post(
        f"/agent/runs/{run}/digest", json={"actor": ADA, "threadId": "thr_1", "text": text}, headers=AUTH
    )
    assert response.status_code == 200, response.text
    return response.json()


def remember(client: httpx.Client, run: str, key: str, fact: str) -> None:
    body = {"callId": f"call-{key}", "key": key, "fact": fact}
    response = client.post(f"/agent/runs/{run}/remember", json=body, headers=AUTH)
    assert response.json()["ok"], response.text


def test_what_the_assistant_concluded_reaches_a_later_turn_that_shares_no_word_with_it(server: ServerProcess) -> None:
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        turn(client, "run_1", "I always think in kilometres")
        remember(client, "run_1", "distance-units", "they report distances in kilometres")

        alone = turn(client, "run_2", "how far is it")

        for key, fact in OTHER_FACTS:
            turn(client, f"run_{key}", "")
            remember(client, f"run_{key}", key, fact)
        among_many = turn(client, "run_3", "how far away is the depot from the station?")
        replayed = client.post(
            "/agent/runs/run_3/digest", json={"actor": ADA, "threadId": "thr_1", "text": "anything"}, headers=AUTH
        )

    assert [e["key"] for e in alone["entries"]] == ["distance-units"]
    assert alone["recalled"] is False
    assert "distance-units" in [e["key"] for e in among_many["entries"]]
    assert (len(among_many["entries"]), among_many["omitted"], among_many["recalled"]) == (4, 5, True)
    assert replayed.json() == among_many
