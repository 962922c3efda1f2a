"""When each memory was used, as the person's page shows it: the last turn that was offered it, with
its conversation linked or said to be deleted, the turns over the last 30 days, or "Never used"; and
the same after the journal is pruned."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from litestar import Litestar
from litestar.testing import AsyncTestClient
from sqlalchemy import text

from tests.web.builders import ADA, make_record, page_of, seed
from tests.web.conftest import AGENT_TOKEN, LoginAs
from tests.web.html_tree import Element
from web.housekeeping import prune
from web.services import Services

AUTH = {"Authorization": f"Bearer {AGENT_TOKEN}"}


async def turn(client: AsyncTestClient[Litestar], run: str, thread: str) -> None:
    body = {"actor": {"id": "ada", "tenantRef": "berlin"}, "threadId": thread, "text": ""}
    assert (await client.post(f"/agent/runs/{run}/digest", json=body, headers=AUTH)).status_code == 200


def usage_of(page: Element, memory_id: str) -> Element:
    return page.one("li", {"data-entry": memory_id}).one(attrs={"data-usage": True})


async def test_each_memory_says_when_it_was_last_used_how_often_lately_or_that_it_never_was(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("m_units", "units", "miles"))
    await turn(client, "run_1", "thr_1")
    await turn(client, "run_2", "thr_2")
    await seed(services, make_record("m_tone", "tone", "short"))  # written after both turns
    await login_as(ADA)

    page = page_of(await client.get("/"))

    used, never = usage_of(page, "m_units"), usage_of(page, "m_tone")
    assert (used["data-usage"], used["data-usage-turns"]) == ("used", "2")
    assert "in 2 turns over the last 30 days" in used.text
    assert used.one("a", {"data-usage-conversation": True})["href"] == "https://chat.example.com/threads/thr_2"
    assert (never["data-usage"], never.text) == ("never", "Never used in a conversation")


async def test_a_deleted_conversation_is_said_so_and_the_count_survives_pruning(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("m_units", "units", "miles"))
    await turn(client, "run_1", "thr_1")
    await services.registry.delete_thread("thr_1")
    await services.journal.prune(older_than=datetime.now(UTC) + timedelta(seconds=1))
    await login_as(ADA)

    used = usage_of(page_of(await client.get("/")), "m_units")

    assert used["data-usage-turns"] == "1"
    assert used.one(attrs={"data-badge": "usage-conversation-gone"}).text == "That conversation was deleted"
    assert used.find("a") is None


async def test_a_memory_that_expires_takes_its_runs_journals_but_not_the_other_memories_use(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    """The journals of the runs that named an expired memory go when it is pruned; what those runs were
    offered is counted first, so the person's other memories still say when they were used."""
    await seed(services, make_record("m_units", "units", "miles", author="human"))
    await seed(services, make_record("m_tone", "tone", "short"))
    await seed(services, make_record("m_tone1", "tone-1", "its id begins with the expiring one's"))
    await turn(client, "run_1", "thr_1")
    expired = datetime.now(UTC) - timedelta(minutes=1)
    async with services.provider.engine.begin() as connection:
        await connection.execute(text("UPDATE agent_memory SET expires_at = :at WHERE id = 'm_tone'"), {"at": expired})
    await turn(client, "run_2", "thr_2")  # the expired one is left out: this run does not name it

    pruned = await prune(services)

    await login_as(ADA)
    page = page_of(await client.get("/"))
    used = usage_of(page, "m_units")
    assert (pruned.expired, pruned.expired_runs) == (1, 1)
    assert used["data-usage-turns"] == "2", "run_1 was counted before its journal went"
    assert usage_of(page, "m_tone1")["data-usage-turns"] == "2"
    async with services.provider.engine.connect() as connection:
        counted = await connection.execute(text("SELECT count(*) FROM memory_use_count WHERE memory_id = 'm_tone'"))
        assert counted.scalar_one() == 0, "the expired memory's own use goes with it"
    replay = await client.post(
        "/agent/runs/run_2/digest", json={"actor": {"id": "ada", "tenantRef": "berlin"}, "text": ""}, headers=AUTH
    )
    assert replay.status_code == 200, "a run that never named the expired memory keeps its journal"
