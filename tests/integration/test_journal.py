"""The run journal: a position is computed once, stored once, and every reader gets the stored answer."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from store.persistence.engine import open_engine
from store.persistence.journal import RunJournal


def constant(value: Any) -> Any:
    calls: list[Any] = []

    async def compute() -> Any:
        calls.append(value)
        return value

    compute.calls = calls  # type: ignore[attr-defined]
    return compute


async def test_a_new_position_is_computed_stored_and_returned(engine: AsyncEngine) -> None:
    journal = RunJournal(engine)
    compute = constant({"scopes": ["actor:ada", "global"], "entries": [{"key": "units"}]})

    answer = await journal.checkpoint("run_1", "memory:digest", compute)

    assert answer == {"scopes": ["actor:ada", "global"], "entries": [{"key": "units"}]}
    assert await journal.checkpoints("run_1") == {"memory:digest": answer}


async def test_a_stored_position_is_read_back_without_computing(engine: AsyncEngine) -> None:
    journal = RunJournal(engine)
    await journal.checkpoint("run_1", "memory:digest", constant(["first"]))
    second = constant(["second"])

    assert await journal.checkpoint("run_1", "memory:digest", second) == ["first"]
    assert second.calls == []


async def test_payloads_keep_their_json_shape(engine: AsyncEngine) -> None:
    journal = RunJournal(engine)
    payloads: list[Any] = [
        None,
        0,
        1.5,
        "naïve — 日本語 😀",
        [1, [2, {"a": None}]],
        {"nested": {"deep": [True, False]}},
    ]

    for n, payload in enumerate(payloads):
        assert await journal.checkpoint("run_1", f"p{n}", constant(payload)) == payload
    for n, payload in enumerate(payloads):
        assert await journal.checkpoint("run_1", f"p{n}", constant("recomputed")) == payload


async def test_positions_are_per_run(engine: AsyncEngine) -> None:
    journal = RunJournal(engine)
    await journal.checkpoint("run_1", "memory:digest", constant("one"))
    await journal.checkpoint("run_2", "memory:digest", constant("two"))

    assert await journal.checkpoints("run_1") == {"memory:digest": "one"}
    assert await journal.checkpoints("run_2") == {"memory:digest": "two"}
    assert await journal.checkpoints("run_3") == {}


async def test_two_processes_racing_on_one_position_both_get_the_one_stored_answer(database_url: str) -> None:
    first_engine, second_engine = open_engine(database_url), open_engine(database_url)
    try:
        both_computing = asyncio.Barrier(2)

        def racer(value: str) -> Any:
            async def compute() -> str:
                await both_computing.wait()  # neither has stored before both have looked and computed
                return value

            return compute

        answers = await asyncio.gather(
            RunJournal(first_engine).checkpoint("run_1", "memory:digest", racer("from first")),
            RunJournal(second_engine).checkpoint("run_1", "memory:digest", racer("from second")),
        )

        assert answers[0] == answers[1]
        assert answers[0] in {"from first", "from second"}
        assert await RunJournal(first_engine).checkpoints("run_1") == {"memory:digest": answers[0]}
    finally:
        await first_engine.dispose()
        await second_engine.dispose()
