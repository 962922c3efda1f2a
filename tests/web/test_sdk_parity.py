"""The in-process SDK and the HTTP client are one shape with one behaviour: the same ids accepted and
acted on exactly (never another run's or thread's), the same ids refused, the same refusals with the
same status, and the same digest."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor, MemoryOrigin, MemoryRecord
from store.persistence import Origin
from store.sdk import OnFile, OnFileClient, OnFileError
from tests.builders import T0
from tests.web.conftest import AGENT_TOKEN
from web.housekeeping import prune
from web.services import Services

ADA = Actor(id="ada", tenant_ref="berlin")
SDK = Any  # OnFile | OnFileClient: the one shape both have

ADDRESSABLE = [
    pytest.param("t?x", id="question-mark"),
    pytest.param("t#x", id="hash"),
    # an id with a %-escape in it is covered against a real server (test_agent_ids_served): the test
    # client decodes an address twice, which no server does
    pytest.param("t x", id="inner-space"),
    pytest.param("x/../t", id="dot-segments-with-slash"),
    pytest.param("ünïcode-線-🚚", id="unicode"),
    pytest.param(".", id="dot"),
    pytest.param("..", id="dot-dot"),
]
REFUSED_IDS = [
    pytest.param("", "is empty", id="empty"),
    pytest.param("a/b", "contains '/'", id="slash"),
    pytest.param("x\x00y", "invisible or control character (U+0000)", id="nul"),
    pytest.param("u\u202ex", "invisible or control character (U+202E)", id="right-to-left-override"),
    pytest.param("\u200b", "invisible or control character (U+200B)", id="zero-width"),
    pytest.param(" run", "starts or ends with a space", id="leading-space"),
    pytest.param("r\ufffd", "U+FFFD", id="replacement-character"),
    pytest.param("r" * 201, "the limit is 200", id="too-long"),
]


@pytest.fixture(params=["in-process", "http"])
async def sdk(
    request: pytest.FixtureRequest, services: Services, client: AsyncTestClient[Litestar]
) -> AsyncIterator[SDK]:
    """Each flavour over the same database the application serves."""
    if request.param == "http":
        yield OnFileClient("http://127.0.0.1:8000", AGENT_TOKEN, http=client)
    else:

        async def keep_open() -> None:
            return None

        yield OnFile(services.runs, services.registry, keep_open)


async def test_an_id_with_characters_an_address_treats_specially_names_that_id_and_no_other(
    sdk: SDK, services: Services
) -> None:
    for n, thread in enumerate(("t", "t?x", "t#x", "t x")):
        await sdk.begin_run(f"run_{n}", actor=ADA, thread_id=thread, text="")

    await sdk.thread_deleted("t?x")
    await sdk.runs_dropped("t#x", ["run_2"])

    resolving = await services.registry.origins_resolve(
        [Origin("t", "run_0"), Origin("t?x", "run_1"), Origin("t#x", "run_2"), Origin("t x", "run_3")]
    )
    assert resolving == {Origin("t", "run_0"), Origin("t x", "run_3")}


@pytest.mark.parametrize("odd", ADDRESSABLE)
async def test_a_run_under_an_odd_id_is_its_own_run(sdk: SDK, services: Services, odd: str) -> None:
    if "/" in odd:
        with pytest.raises(OnFileError) as refused:
            await sdk.begin_run(odd, actor=ADA, thread_id=None, text="")
        assert refused.value.status == 400
        return
    await sdk.begin_run("t", actor=Actor("bob"), thread_id=None, text="")

    run = await sdk.begin_run(odd, actor=ADA, thread_id=odd, text="")
    saved = await run.remember("c1", "tone", "short")

    assert saved.ok
    assert saved.record.origin.run_id == odd
    assert saved.record.origin.thread_id == odd
    assert await services.journal.stored_json(odd, "memory:digest") is not None


@pytest.mark.parametrize(("bad", "said"), REFUSED_IDS)
async def test_a_run_or_thread_id_that_cannot_be_one_is_refused_alike_before_anything_happens(
    sdk: SDK, services: Services, bad: str, said: str
) -> None:
    await sdk.begin_run("run_ok", actor=ADA, thread_id="thr_ok", text="")
    attempts: list[Callable[[], Awaitable[object]]] = [
        lambda: sdk.begin_run(bad, actor=ADA, thread_id=None, text=""),
        lambda: sdk.begin_run("run_2", actor=ADA, thread_id=bad, text=""),
        lambda: sdk.thread_deleted(bad),
        lambda: sdk.runs_dropped("thr_ok", ["run_ok", bad]),
    ]
    for attempt in attempts:
        with pytest.raises(OnFileError, match=re.escape(said)) as refused:
            await attempt()
        assert refused.value.status == 400

    assert await services.journal.stored_json("run_2", "memory:digest") is None
    assert await services.registry.origins_resolve([Origin("thr_ok", "run_ok")]) == {Origin("thr_ok", "run_ok")}


@pytest.mark.parametrize(("bad", "said"), [p for p in REFUSED_IDS if p.id != "slash"])
async def test_an_actor_or_call_id_that_cannot_be_one_is_refused_alike(
    sdk: SDK, services: Services, bad: str, said: str
) -> None:
    run = await sdk.begin_run("run_ok", actor=ADA, thread_id=None, text="")

    with pytest.raises(OnFileError, match=re.escape(said)) as actor_refused:
        await sdk.begin_run("run_2", actor=Actor(bad, "berlin"), thread_id=None, text="")
    with pytest.raises(OnFileError, match=re.escape(said)) as tenant_refused:
        await sdk.begin_run("run_2", actor=Actor("ada", bad), thread_id=None, text="")
    with pytest.raises(OnFileError, match=re.escape(said)) as call_refused:
        await run.remember(bad, "tone", "short")

    assert [e.value.status for e in (actor_refused, tenant_refused, call_refused)] == [400, 400, 400]
    assert await services.journal.stored_json("run_2", "memory:digest") is None
    assert not await services.provider.list(scopes=["actor:ada"], ctx=None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "actor", "said"),
    [
        pytest.param("x" * 100_001, ADA, "text is 100,001 characters long; the limit is 100,000.", id="long-text"),
        pytest.param("", Actor("ada", "berlin", tuple(f"r{n}" for n in range(51))), "the limit is 50", id="roles"),
    ],
)
async def test_a_turn_over_the_apis_limits_is_refused_alike(
    sdk: SDK, services: Services, text: str, actor: Actor, said: str
) -> None:
    with pytest.raises(OnFileError, match=re.escape(said)) as refused:
        await sdk.begin_run("run_1", actor=actor, thread_id=None, text=text)

    assert refused.value.status == 400
    assert await services.journal.stored_json("run_1", "memory:digest") is None


async def test_a_turn_at_the_limits_or_without_text_is_taken_alike(sdk: SDK) -> None:
    at_limits = Actor("ada", "berlin", tuple(f"r{n}" for n in range(50)))

    long_turn = await sdk.begin_run("run_1", actor=at_limits, thread_id=None, text="x" * 100_000)
    no_text = await sdk.begin_run("run_2", actor=ADA, thread_id=None, text=None)

    assert long_turn.writable
    assert no_text.digest.recalled is False


async def test_a_slash_is_fine_in_an_id_that_never_goes_into_an_address(sdk: SDK) -> None:
    run = await sdk.begin_run("run_1", actor=Actor("dept/ada", "org/berlin"), thread_id=None, text="")

    saved = await run.remember("call/1", "tone", "short")

    assert saved.ok
    assert saved.record.scope == "actor:dept/ada"


async def test_refusals_carry_the_same_status_in_process_and_over_http(sdk: SDK, services: Services) -> None:
    run = await sdk.begin_run("run_1", actor=ADA, thread_id="thr_1", text="")
    await sdk.begin_run("run_b", actor=ADA, thread_id="thr_b", text="")
    assert (await run.remember("call_1", "tone", "short")).ok

    with pytest.raises(OnFileError, match="resolved for actor ada, not bob") as other_actor:
        await sdk.begin_run("run_1", actor=Actor("bob"), thread_id=None, text="")
    with pytest.raises(OnFileError, match="already carried out with another key or fact") as reused:
        await run.remember("call_1", "tone", "long")
    with pytest.raises(OnFileError, match="belong to another thread") as elsewhere:
        await sdk.runs_dropped("thr_1", ["run_b"])
    later = datetime.now(UTC) + timedelta(hours=services.settings.journal_retention_hours, minutes=1)
    await prune(services, now=later)
    with pytest.raises(OnFileError, match="can no longer be replayed") as pruned:
        await sdk.begin_run("run_1", actor=ADA, thread_id="thr_1", text="")
    with pytest.raises(OnFileError, match="can no longer be replayed") as pruned_remember:
        await run.remember("call_2", "tone", "short")

    statuses = [e.value.status for e in (other_actor, reused, elsewhere, pruned, pruned_remember)]
    assert statuses == [409, 409, 409, 410, 410]
    assert str(elsewhere.value).endswith(
        "these runs belong to another thread than “thr_1”, so they cannot have been dropped from its history: “run_b”."
    )


async def test_a_refused_drop_names_each_run_in_quotes_so_dot_ids_are_seen(sdk: SDK) -> None:
    await sdk.begin_run(".", actor=ADA, thread_id="thr_b", text="")
    await sdk.begin_run("..", actor=ADA, thread_id="thr_b", text="")

    with pytest.raises(OnFileError) as refused:
        await sdk.runs_dropped("thr_1", ["..", "."])

    assert refused.value.status == 409
    assert str(refused.value).endswith("than “thr_1”, so they cannot have been dropped from its history: “.”, “..”.")


async def test_both_give_the_same_digest_down_to_each_records_own_pin(
    sdk: SDK, services: Services, client: AsyncTestClient[Litestar]
) -> None:
    wide = MemoryRecord("m1", "manifest", "print it", "tenant:berlin", MemoryOrigin(author="human"), T0, pinned=True)
    own = MemoryRecord("m2", "manifest", "email it", "actor:ada", MemoryOrigin(author="human"), T0)
    await services.provider.add([wide, own])

    run = await sdk.begin_run("run_1", actor=ADA, thread_id=None, text="")
    local = await services.runs.begin("run_1", actor=ADA, thread_id=None, text="")
    [entry] = run.digest.entries

    assert run.digest == local.digest
    assert (entry.pinned, entry.record.pinned, entry.record.id) == (True, False, "m2")
