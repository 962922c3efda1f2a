"""SQLite, the embedded default, stays sound under the churn of a busy server: 32 concurrent tasks on one
engine (more than its pool holds, so connections are opened and closed under load) each writing a new
fact, reading the person's memories and forgetting the fact again. No error, the database passes its
integrity check, and the search index is exactly what the rows say it must be.

An index that needs optimising corrupts this way: FTS5's `optimize` after every delete does so within
about a thousand such cycles (docs/decisions/2026-12-05-sqlite-search-postings.md), so this runs two
thousand. The index is postings in an ordinary B-tree kept by triggers (migration 0004), with nothing
to optimise; what this guards is that its triggers keep it in step when writers and forgetters
interleave.
"""

from __future__ import annotations

import asyncio

from sqlalchemy import text

from store import MemoryOrigin, MemoryRecord, ScopeContext
from store.persistence import SqlMemoryProvider, open_engine
from tests.builders import T0
from tests.integration.builders import ADA, BEA, CAL
from tests.integration.index_check import index_out_of_step

TASKS = 32
CYCLES = 2_000
PEOPLE = (ADA, BEA, CAL)


def standing_records() -> list[MemoryRecord]:
    """What a deployment already holds: 400 memories over 48 people, 4 organisations and global."""
    words: list[str] = ["invoice", "report", "depot", "route", "driver", "shift"]
    words += ["metric", "budget", "forecast", "meeting", "pallet", "freight"]
    scopes = ["global", *(f"tenant:t{n}" for n in range(4)), *(f"actor:p{n}" for n in range(48))]
    return [
        MemoryRecord(
            id=f"mem_standing_{n}",
            key=f"{words[n % 12]}-{n // 12}",
            text=" ".join(words[(n + k) % 12] for k in range(9)),
            scope=scopes[n % len(scopes)],
            origin=MemoryOrigin("human"),
            updated_at=T0,
        )
        for n in range(400)
    ]


async def test_concurrent_write_read_and_forget_cycles_leave_sqlite_sound(sqlite_database_url: str) -> None:
    engine = open_engine(sqlite_database_url)
    provider = SqlMemoryProvider(engine)
    await provider.add(standing_records())
    errors: list[BaseException] = []
    counter = iter(range(CYCLES))

    async def churn(task: int) -> None:
        for n in counter:
            person = PEOPLE[(task + n) % len(PEOPLE)]
            ctx = ScopeContext(actor=person)
            scopes = [f"actor:{person.id}", f"tenant:{person.tenant_ref}", "global"]
            try:
                record = await provider.write(
                    key=f"churn-{n}",
                    text=f"noted while churning, cycle w{n}x",
                    scope=f"actor:{person.id}",
                    origin=MemoryOrigin("agent", actor_ref=person.id),
                    ctx=ctx,
                )
                await provider.list(scopes=scopes, ctx=ctx)
                assert await provider.forget(id=record.id, ctx=ctx)
            except Exception as error:
                errors.append(error)

    try:
        await asyncio.gather(*(churn(task) for task in range(TASKS)))
        async with engine.connect() as connection:
            integrity = (await connection.execute(text("PRAGMA integrity_check"))).scalars().all()
            left = (await connection.execute(text("SELECT count(*) FROM agent_memory"))).scalar_one()
        differences = await index_out_of_step(engine)
    finally:
        await engine.dispose()

    assert errors == [], f"{len(errors)} errors, the first: {errors[0]!r}" if errors else ""
    assert integrity == ["ok"]
    assert left == len(standing_records()), "every churned fact was forgotten, nothing else"
    assert differences == []
