"""A long turn's meaning: however long the turn, the embedder is handed at most its opening and its
close (`store.domain.recall.meaning_text`), on the stored provider and the in-memory one alike."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from store.domain.recall import MEANING_CHARS_AT_MOST, meaning_text
from store.in_memory import InMemoryMemoryProvider
from store.memory import MemoryConfig
from store.persistence import ConversationRegistry, RunJournal, SqlMemoryProvider
from store.runs import MemoryRuns
from tests.builders import make_record
from tests.integration.builders import ADA


class Handed:
    """An embedder that notes every text it is handed."""

    name = "handed"

    def __init__(self) -> None:
        self.texts: list[str] = []

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += texts
        return np.ones((len(texts), 4), dtype=np.float32)


@pytest.mark.parametrize("stored", [True, False], ids=["stored", "in-memory"])
async def test_a_turn_of_100000_characters_is_embedded_as_its_opening_and_its_close(
    engine: AsyncEngine, stored: bool
) -> None:
    handed = Handed()
    records = [make_record(f"key-{n}", f"fact number {n}") for n in range(5)]
    provider: SqlMemoryProvider | InMemoryMemoryProvider = InMemoryMemoryProvider(records, embedder=handed)
    if stored:
        stored_provider = SqlMemoryProvider(engine, embedder=handed)
        await stored_provider.add(records)
        provider = stored_provider
    handed.texts.clear()
    runs = MemoryRuns(MemoryConfig(provider=provider, max_memories=2), RunJournal(engine), ConversationRegistry(engine))
    turn = "How far is the depot? " + " ".join(["lorem ipsum"] * 8_332)

    memory = await runs.begin("run_1", actor=ADA, thread_id=None, text=turn)

    assert len(turn) > 100_000 - 20
    assert memory.digest.recalled
    assert handed.texts[-1] == meaning_text(turn)
    assert len(handed.texts[-1]) == MEANING_CHARS_AT_MOST + 1
    assert handed.texts[-1].startswith("How far is the depot? ")
