"""Journal retention over HTTP and from the command line: pruned runs are told, never recomputed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from tests.web.conftest import AGENT_TOKEN
from web.cli import main
from web.housekeeping import prune
from web.services import Services
from web.settings import Settings

AUTH = {"Authorization": f"Bearer {AGENT_TOKEN}"}
ADA = {"id": "ada", "tenantRef": "berlin"}


async def test_a_run_past_its_retention_is_pruned_and_answers_410(
    client: AsyncTestClient[Litestar], services: Services
) -> None:
    await client.post("/agent/runs/run_old/digest", json={"actor": ADA, "threadId": "t"}, headers=AUTH)
    later = datetime.now(UTC) + timedelta(hours=services.settings.journal_retention_hours, minutes=1)

    pruned = await prune(services, now=later)
    resumed = await client.post("/agent/runs/run_old/digest", json={"actor": ADA, "threadId": "t"}, headers=AUTH)
    remembered = await client.post(
        "/agent/runs/run_old/remember", json={"callId": "c", "key": "k", "fact": "v"}, headers=AUTH
    )

    assert pruned.runs == 1
    assert resumed.status_code == 410
    assert "can no longer be replayed" in resumed.json()["error"]
    assert remembered.status_code == 410


async def test_runs_within_retention_are_kept(client: AsyncTestClient[Litestar], services: Services) -> None:
    await client.post("/agent/runs/run_new/digest", json={"actor": ADA, "threadId": "t"}, headers=AUTH)

    assert (await prune(services)).runs == 0
    again = await client.post("/agent/runs/run_new/digest", json={"actor": ADA, "threadId": "t"}, headers=AUTH)
    assert again.status_code == 200


async def test_people_are_noted_when_an_agent_resolves_a_run_for_them(
    client: AsyncTestClient[Litestar], services: Services
) -> None:
    await client.post("/agent/runs/run_1/digest", json={"actor": {**ADA, "roles": ["staff"]}}, headers=AUTH)

    (seen,) = await services.people.recent()
    assert (seen.id, seen.tenant_ref, seen.roles) == ("ada", "berlin", ("staff",))


def test_onfile_prune_runs_from_the_command_line(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ONFILE_DATABASE_URL", settings.database_url)
    assert main(["db", "upgrade"]) == 0  # prune looks after a database, never creates one

    assert main(["prune"]) == 0
    assert "pruned the journals of 0 runs begun over 48 hours ago" in capsys.readouterr().out
