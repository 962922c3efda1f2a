"""The SQL provider recalls exactly the keys the reference provider recalls, in the same order: the
same words ranked by the same BM25 (SQLite's is the reference's to the last unit), the same vectors,
the same fusion and fill."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest

from store.domain.types import MemoryRecord
from store.embedding import DEFAULT_EMBEDDER, Embedder
from store.in_memory import InMemoryMemoryProvider
from store.persistence import open_engine
from store.persistence import provider as provider_module
from store.persistence.provider import SqlMemoryProvider
from store.persistence.recall import recall_candidates
from tests.builders import UNRELATED_FACTS
from tests.integration.builders import ADA, ctx, keys_in_order, make_record, scopes_of

T = TypeVar("T")

TURNS = [
    "how far away is the depot?",
    "when does our accounting year begin",
    "what should I drink this morning",
    "who approves my budget",
    "is the office open on the public holiday?",
    "can you show prices with tax",
    "what is my cat called",
    "send the invoice to Munich",
    "zzz qqq",
    "the and of",
]


def _records() -> list[MemoryRecord]:
    chooser = random.Random(11)
    facts = [*UNRELATED_FACTS, "they report distances in kilometres", "the depot opens at six"]
    scopes = ["actor:ada", "tenant:berlin", "global", "tenant:hamburg", "actor:bea"]
    made = []
    for n in range(150):
        fact = chooser.choice(facts)
        key = f"k{chooser.randrange(60)}"
        scope = chooser.choice(scopes)
        made.append(
            make_record(key, f"{fact} ({n})", scope, pinned=chooser.random() < 0.03, days_ago=chooser.random() * 90)
        )
    unique: dict[tuple[str, str], MemoryRecord] = {(r.scope, r.key): r for r in made}
    return list(unique.values())


async def _recalls_as_the_reference(
    database_url: str, records: list[MemoryRecord], embedder: Embedder | None, limit: int
) -> None:
    """Every turn of `TURNS` recalls, from `records` stored in SQL, the keys and records the reference
    recalls, in its order, and both had to choose."""
    reference = InMemoryMemoryProvider(records, embedder=embedder)
    engine = open_engine(database_url)
    try:
        sql = SqlMemoryProvider(engine, embedder=embedder)
        await sql.add(records)
        for turn in TURNS:
            expected = await reference.recall(scopes=scopes_of(ADA), query=turn, limit=limit, ctx=ctx())
            found = await sql.recall(scopes=scopes_of(ADA), query=turn, limit=limit, ctx=ctx())

            assert found.ranked, "more keys apply than the block holds: both had to choose"
            assert keys_in_order(found.records) == keys_in_order(expected.records), turn
            assert (found.ranked, found.keys, found.pinned_keys) == (
                expected.ranked,
                expected.keys,
                expected.pinned_keys,
            )
            assert [r.id for r in found.records] == [r.id for r in expected.records], turn
    finally:
        await engine.dispose()


@pytest.mark.parametrize("limit", [5, 20])
async def test_sqlite_recalls_what_the_reference_recalls(sqlite_database_url: str, limit: int) -> None:
    await _recalls_as_the_reference(sqlite_database_url, _records(), DEFAULT_EMBEDDER, limit)


@pytest.mark.parametrize("embedder", [None, DEFAULT_EMBEDDER], ids=["words alone", "words and meaning"])
async def test_a_person_whose_every_memory_one_read_holds_recalls_what_the_reference_recalls(
    sqlite_database_url: str, embedder: Embedder | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    limit = 20
    at_ada = [r for r in _records() if r.scope in scopes_of(ADA)][: limit * len(scopes_of(ADA)) - 5]
    candidates_read: list[object] = []
    monkeypatch.setattr(provider_module, "recall_candidates", _counted(recall_candidates, candidates_read))

    await _recalls_as_the_reference(sqlite_database_url, at_ada, embedder, limit)

    assert bool(candidates_read) == (embedder is not None), "with no vector to compare, the candidates are not read"


def _counted(read: Callable[..., Awaitable[T]], calls: list[object]) -> Callable[..., Awaitable[T]]:
    async def counted(*args: object, **kwargs: object) -> T:
        calls.append(args)
        return await read(*args, **kwargs)

    return counted
