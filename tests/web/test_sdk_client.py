"""The HTTP client has the in-process SDK's shape and gives the same answers."""

from __future__ import annotations

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor, MemoryOrigin, MemoryRecord
from store.sdk import OnFileClient, OnFileError
from tests.builders import T0
from tests.web.conftest import AGENT_TOKEN
from web.services import Services

ADA = Actor(id="ada", tenant_ref="berlin")


async def test_the_client_begins_replays_and_remembers_through_the_api(
    client: AsyncTestClient[Litestar], services: Services
) -> None:
    pinned = MemoryRecord("m1", "manifest", "print it", "tenant:berlin", MemoryOrigin(author="human"), T0, pinned=True)
    await services.provider.add([pinned])
    onfile = OnFileClient("http://127.0.0.1:8000", AGENT_TOKEN, http=client)

    run = await onfile.begin_run("run_1", actor=ADA, thread_id="thr_1", text="labels")
    saved = await run.remember("call_1", "tone", "short answers")
    again = await run.remember("call_1", "tone", "short answers")
    mistake = await run.remember("call_2", "tone", "")
    replay = await onfile.begin_run("run_1", actor=ADA, thread_id="thr_1", text="labels")
    local = await services.runs.begin("run_1", actor=ADA, thread_id="thr_1", text="labels")
    await onfile.runs_dropped("thr_1", ["run_1"])
    await onfile.thread_deleted("thr_1")

    assert run.block == replay.block == local.block
    assert run.digest == local.digest
    assert run.digest.entries[0].pinned
    assert saved.ok
    assert again == saved
    assert (mistake.ok, mistake.error) == (False, "The fact is empty. Give a fact and try again.")


async def test_the_client_reports_a_refusal_as_an_error(client: AsyncTestClient[Litestar]) -> None:
    onfile = OnFileClient("http://127.0.0.1:8000", AGENT_TOKEN, http=client)
    await onfile.begin_run("run_1", actor=ADA, thread_id=None, text="")

    with pytest.raises(OnFileError, match="409"):
        await onfile.begin_run("run_1", actor=Actor(id="bob"), thread_id=None, text="")
    with pytest.raises(OnFileError, match="401"):
        await OnFileClient("http://127.0.0.1:8000", "wrong", http=client).begin_run(
            "run_2", actor=ADA, thread_id=None, text=""
        )
