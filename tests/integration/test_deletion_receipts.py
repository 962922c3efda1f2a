"""Each line of a deletion receipt is true: after a forget, a forget-all or an erasure, on SQLite and
PostgreSQL, the receipt counts what went from each place, and a scan of the database afterwards (every
table and index, and on SQLite the file's own bytes with its write-ahead log folded in) finds what that
line says went nowhere."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from store import Actor, MemoryConfig, MemoryOrigin, MemoryRecord, ScopeContext, memories_on_file
from store.admin import Administration, Stores
from store.domain.administration import RoleGate
from store.domain.forgetting import chosen_reach
from store.domain.receipts import DeletionReceipt, ReceiptLine
from store.persistence import (
    AuditTrail,
    ConversationRegistry,
    DashboardSessions,
    ForgottenStash,
    KnownPeople,
    MemoryControlStore,
    RunJournal,
    SqlMemoryProvider,
)
from store.persistence.engine import checkpoints_settled
from store.personal import PersonalMemories
from store.runs import MemoryRuns
from tests.integration.text_scan import places_holding

ADA = Actor("ada", "berlin")
LENA = Actor("lena", "berlin", ("onfile-admin",))
SECRET = "quokkavelvet"


class HashEmbedder:
    """A vector per text from its hash: distinct bytes, found in the file only where the vector is."""

    name = "test-hash-64"

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = [np.frombuffer(hashlib.sha512(t.encode()).digest(), dtype=np.int8) for t in texts]
        return np.array(rows, dtype=np.float32)


class World:
    def __init__(self, engine: AsyncEngine, database_url: str) -> None:
        self.engine = engine
        self.url = database_url
        self.provider = SqlMemoryProvider(engine, embedder=HashEmbedder())
        self.config = MemoryConfig(provider=self.provider)
        self.journal = RunJournal(engine)
        self.registry = ConversationRegistry(engine)
        self.sessions = DashboardSessions(engine)
        self.people = KnownPeople(engine)
        self.audit = AuditTrail(engine)
        self.controls = MemoryControlStore(engine)
        self.stash = ForgottenStash(engine)
        self.runs = MemoryRuns(self.config, self.journal, self.registry, self.people)
        self.personal = PersonalMemories(
            self.config, self.provider, self.stash, self.audit, journal=self.journal, waiting=self.controls
        )
        stores = Stores(self.journal, self.registry, self.sessions, controls=self.controls, stash=self.stash)
        self.admin = Administration(self.config, self.provider, RoleGate(), self.audit, self.people, stores)

    async def secret(self, key: str = "health") -> MemoryRecord:
        return await self.provider.write(
            key=key,
            text=f"{SECRET} appointment on Fridays",
            scope="actor:ada",
            origin=MemoryOrigin("agent", thread_id="thr_1", run_id="run_0", actor_ref="ada"),
            ctx=ScopeContext(ADA),
        )

    async def forget(self, record: MemoryRecord, *, undoable: bool = False) -> DeletionReceipt:
        entries = (await memories_on_file(self.config, ScopeContext(ADA))).entries
        forgotten = await self.personal.forget(ADA, chosen_reach(ADA, entries, [record.id]), undoable=undoable)
        assert forgotten.receipt is not None
        return forgotten.receipt

    async def column(self, name: str, record: MemoryRecord) -> object:
        async with self.engine.connect() as connection:
            statement = text(f"SELECT {name} FROM agent_memory WHERE id = :id")  # noqa: S608 - a fixed name
            return (await connection.execute(statement, {"id": record.id})).scalar_one()

    async def holding(self, needle: str | bytes) -> list[str]:
        """Every table holding `needle`, and "file" when the SQLite file's bytes do (after its log is
        checkpointed into it and truncated, so neither the log nor a freed page can hide it)."""
        found = await places_holding(self.engine, needle)
        if self.engine.dialect.name == "sqlite":
            await checkpoints_settled(self.engine)
            async with self.engine.connect() as connection:
                await connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
            path = Path(make_url(self.url).database or "")
            raw = needle.encode() if isinstance(needle, str) else needle
            files = [path, path.with_name(path.name + "-wal")]
            contents = [await asyncio.to_thread(f.read_bytes) for f in files if f.exists()]
            if any(raw in content for content in contents):
                found.append("file")
        return found

    async def prune(self) -> None:
        await self.journal.prune(older_than=datetime.now(UTC) + timedelta(seconds=1))


@pytest.fixture
def world(engine: AsyncEngine, database_url: str) -> World:
    return World(engine, database_url)


def line(receipt: DeletionReceipt, place: str) -> ReceiptLine:
    found = receipt.line(place)
    assert found is not None, f"no {place} line"
    return found


async def test_the_memories_line_counts_the_forgotten_memory_and_its_text_is_nowhere(world: World) -> None:
    secret = await world.secret()
    assert await world.holding(SECRET) != []

    receipt = await world.forget(secret)

    assert line(receipt, "memories").removed == 1
    assert await world.holding(SECRET) == []


async def test_the_search_index_line_counts_its_entry_and_the_entry_is_nowhere(world: World) -> None:
    secret = await world.secret()
    terms = str(await world.column("search_terms", secret))
    assert terms
    assert await world.holding(terms.split()[0])

    receipt = await world.forget(secret)

    assert line(receipt, "search-index").removed == 1
    for term in terms.split():
        assert await world.holding(term) == []
    assert await world.provider.search(scopes=["actor:ada"], query=SECRET, limit=5, ctx=ScopeContext(ADA)) == ()


async def test_the_vectors_line_counts_the_vector_and_its_bytes_are_nowhere(world: World) -> None:
    secret = await world.secret()
    vector = await world.column("embedding", secret)
    assert isinstance(vector, bytes)
    assert "agent_memory" in await world.holding(vector)

    receipt = await world.forget(secret)

    assert line(receipt, "vectors").removed == 1
    assert await world.holding(vector) == []


async def test_the_journal_line_says_which_runs_keep_it_until_pruned_and_then_it_is_nowhere(world: World) -> None:
    secret = await world.secret()
    await world.runs.begin("run_1", actor=ADA, thread_id="thr_1", text="")
    await world.runs.begin("run_2", actor=ADA, thread_id="thr_1", text="")

    journal = line(await world.forget(secret), "journal")

    assert (journal.removed, journal.kept) == (0, 2)
    assert [p for p in await world.holding(SECRET) if p != "file"] == ["run_journal"]
    await world.prune()
    assert await world.holding(SECRET) == []


async def test_an_erasures_journal_line_counts_the_entries_deleted_and_the_text_is_nowhere(world: World) -> None:
    await world.secret()
    await world.people.note(ADA)
    await world.runs.begin("run_1", actor=ADA, thread_id="thr_1", text="")

    erasure = await world.admin.erase_person(LENA, ADA)

    assert erasure is not None
    assert erasure.receipt is not None
    assert line(erasure.receipt, "journal").removed == 1
    assert line(erasure.receipt, "memories").removed == 1
    assert line(erasure.receipt, "conversations").removed >= 1
    assert await world.holding(SECRET) == []
    assert await world.holding("thr_1") == []


async def test_the_audit_line_counts_the_entries_cleared_and_their_text_is_nowhere(world: World) -> None:
    secret = await world.secret()
    corrected = await world.personal.correct(ADA, secret.id, f"{SECRET} appointment on Mondays")
    assert corrected.status == "done"
    assert "audit_entry" in await world.holding("Mondays")

    receipt = await world.forget(secret)

    assert line(receipt, "audit").removed == 1
    assert await world.holding(SECRET) == []
    assert await world.holding("Mondays") == []


async def test_a_second_forget_all_counts_no_audit_entry_the_first_already_cleared(world: World) -> None:
    secret = await world.secret()
    assert (await world.personal.correct(ADA, secret.id, f"{SECRET} on Mondays")).status == "done"

    first = await world.personal.forget_all(ADA)
    again = await world.personal.forget_all(ADA)

    assert line(first, "audit").removed == 1
    assert (line(again, "memories").removed, line(again, "audit").removed) == (0, 0)
    assert line(again, "audit").words == "0 audit trail entries cleared of the text."
    assert await world.holding("Mondays") == []


async def test_the_waiting_line_of_a_forget_all_counts_the_notes_and_their_text_is_nowhere(world: World) -> None:
    await world.secret()
    await world.controls.hold("ada", key="diet", text=f"{SECRET} vegetarian", thread_id=None, run_id=None)

    receipt = await world.personal.forget_all(ADA)

    assert (line(receipt, "memories").removed, line(receipt, "waiting").removed) == (1, 1)
    assert await world.controls.waiting_for("ada") == []
    assert await world.holding(SECRET) == []


async def test_the_undo_line_says_a_copy_is_kept_sealed_and_the_text_is_not_readable_anywhere(world: World) -> None:
    secret = await world.secret()

    receipt = await world.forget(secret, undoable=True)

    undo = line(receipt, "undo")
    assert (undo.removed, undo.kept) == (0, 1)
    assert await world.holding(SECRET) == []


async def test_an_erasures_sessions_and_waiting_lines_count_what_went(world: World) -> None:
    await world.people.note(ADA)
    await world.sessions.create({"actor": {"id": "ada"}}, ttl=timedelta(hours=1), actor_id="ada")
    await world.controls.hold("ada", key="diet", text=f"{SECRET} vegetarian", thread_id=None, run_id=None)

    erasure = await world.admin.erase_person(LENA, ADA)

    assert erasure is not None
    assert erasure.receipt is not None
    assert (line(erasure.receipt, "sessions").removed, line(erasure.receipt, "waiting").removed) == (1, 1)
    assert await world.holding(SECRET) == []


async def test_a_refused_erasure_is_audited_about_the_person_and_removes_nothing(world: World) -> None:
    await world.secret()
    outsider = Actor("jonas", "hamburg", ("onfile-admin",))

    assert await world.admin.erase_person(outsider, ADA) is None

    attempts = await world.audit.about("ada")
    assert {(a.who, a.action, a.scope) for a in attempts} == {
        ("jonas", "erase-refused", scope) for scope in ("global", "tenant:berlin")
    }, "where her organisation's and every global administrator see it, never in his organisation's trail"
    assert "agent_memory" in await world.holding(SECRET)


class CountingEmbedder(HashEmbedder):
    """`HashEmbedder`, counting the texts it was asked to embed."""

    def __init__(self) -> None:
        self.embedded = 0

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded += len(texts)
        return await super().embed(texts)


async def test_an_undo_puts_each_memory_back_with_the_vector_it_had_without_embedding_it_again(
    engine: AsyncEngine, database_url: str
) -> None:
    world = World(engine, database_url)
    counting = CountingEmbedder()
    world.provider = SqlMemoryProvider(engine, embedder=counting)
    world.config = MemoryConfig(provider=world.provider)
    world.personal = PersonalMemories(world.config, world.provider, world.stash, world.audit)
    records = [await world.secret(f"health-{n}") for n in range(3)]
    before = [await world.column("embedding", record) for record in records]
    entries = (await memories_on_file(world.config, ScopeContext(ADA))).entries
    asked = counting.embedded

    forgotten = await world.personal.forget(ADA, chosen_reach(ADA, entries, [r.id for r in records]))
    assert forgotten.ticket is not None
    vector = before[0]
    assert isinstance(vector, bytes)
    assert await world.holding(vector) == [], "the stash holds the vector sealed, never as it was"
    undone = await world.personal.undo(ADA, forgotten.ticket)

    assert undone.status == "restored"
    assert counting.embedded == asked, "nothing was embedded again"
    assert [await world.column("embedding", record) for record in records] == before
    assert {await world.column("embedder", record) for record in records} == {HashEmbedder.name}
