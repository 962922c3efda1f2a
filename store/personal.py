"""A person's acts on their own memories: forgetting one or many, undoing that, correcting a text.

Each act is decided by the pure rules (`store.domain.forgetting`, `store.domain.authority`) over what
is on file for the person now, and touches their own scope only.

**Forgetting really removes the text**, and an undo is possible for `UNDO_WINDOW` only. What went is
kept for the undo in `forgotten_stash`, encrypted with a fresh key that is handed back to the caller
and never stored: the person's browser holds it (in the notice offering the undo), so the database
alone cannot read what was forgotten. Undoing puts every record back as it was — its id, text,
origin, and its dates — unless its key has been written at the person's own scope since. Housekeeping
deletes stashes older than the window; a person's erasure deletes theirs at once.

**A correction** is a new text for one of the person's own memories, written by them: from then on
it is stated by the person. It is held to the input rules of every write, and recorded in the audit
trail at the person's own scope with the value before and after — a scope no administrator reads.
Forgetting a memory drops its key and values from those entries, so the trail never keeps the text
of a memory the person forgot.

**Each forget has a receipt** (`store.domain.receipts`): how many memories, search index entries,
vectors and audit texts went, how many conversations in progress still hold it in their journal, and
for a forget-all the waiting notes discarded with them, counted in the transaction that deletes them.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

from cryptography.fernet import Fernet, InvalidToken

from store.domain.authority import memory_forget_verdict
from store.domain.codec import record_from_json, record_to_json
from store.domain.forgetting import Choice, chosen_reach, memory_correct_verdict, putback
from store.domain.precedence import resolve_digest
from store.domain.receipts import DeletionReceipt, Removal, deletion_receipt
from store.domain.remember import check_memory_input
from store.domain.scopes import own_scope
from store.domain.types import Actor, DigestEntry, MemoryRecord, ScopeContext
from store.memory import NOT_ON_FILE, ForgetOutcome, MemoryConfig, scopes_on_file
from store.persistence import AuditTrail, ForgottenStash, MemoryControlStore, RunJournal, SqlMemoryProvider
from store.persistence.memories import Meaning
from store.restating import restate

__all__ = (
    "UNDO_WINDOW",
    "Correction",
    "Forgotten",
    "PersonalMemories",
    "UndoTicket",
    "Undone",
)

UNDO_WINDOW = timedelta(minutes=10)
"""How long a forget can be undone, and so how long its sealed records are kept."""


@dataclass(frozen=True, slots=True)
class UndoTicket:
    """What undoing one act of forgetting needs: the stash's id and the only key that opens it."""

    stash: str
    key: str


@dataclass(frozen=True, slots=True)
class Forgotten:
    """What one act of forgetting removed: the records as they were (none when the choice was not
    allowed, or everything chosen went meanwhile), and the ticket for its undo."""

    records: tuple[MemoryRecord, ...]
    ticket: UndoTicket | None
    receipt: DeletionReceipt | None = None
    """What went from where (None when nothing went)."""

    @property
    def count(self) -> int:
        return len(self.records)


@dataclass(frozen=True, slots=True)
class Undone:
    """What an undo did: `restored` the records put back as they were, `superseded` those whose key had
    been written again since (the newer value stays); `expired` when there was nothing to undo (too
    late, already undone, or not this person's), `refused` when their own scope no longer applies."""

    status: Literal["restored", "expired", "refused"]
    restored: tuple[MemoryRecord, ...] = ()
    superseded: tuple[MemoryRecord, ...] = ()
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Correction:
    """What became of a correction: `done` with the record before and after, or why not (`invalid`
    input, `refused` for a shared fact, `not_found` for anything not on file for the person)."""

    status: Literal["done", "invalid", "refused", "not_found"]
    reason: str = ""
    before: MemoryRecord | None = None
    after: MemoryRecord | None = None


class PersonalMemories:
    """The person's own acts over one memory configuration, its SQL provider, the stash and the trail."""

    def __init__(
        self,
        config: MemoryConfig,
        provider: SqlMemoryProvider,
        stash: ForgottenStash,
        audit: AuditTrail,
        *,
        journal: RunJournal | None = None,
        waiting: MemoryControlStore | None = None,
        retention_hours: int = 48,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._config = config
        self._provider = provider
        self._stash = stash
        self._audit = audit
        self._journal = journal
        self._waiting = waiting
        self._retention_hours = retention_hours
        self._clock = clock

    async def forget(self, actor: Actor, choice: Choice, *, undoable: bool = True) -> Forgotten:
        """Forget the entries of an allowed `choice` in one transaction, with the redaction of the
        trail's entries about their keys and, when `undoable`, their stash. A record that went
        meanwhile is simply not among those returned."""
        if not choice.allowed:
            return Forgotten(records=(), ticket=None)
        ctx = ScopeContext(actor=actor)
        own = own_scope(actor)
        key = Fernet.generate_key()
        ticket = None
        ids = [e.record.id for e in choice.goes]
        async with self._provider.together():
            removed = await self._provider.removal(own, ids)
            meanings = await self._provider.meanings_before_forgetting(ids, ctx=ctx) if undoable else {}
            gone = await self._provider.forget_many(ids=ids, ctx=ctx)
            if not gone:
                return Forgotten(records=(), ticket=None)
            if undoable:
                payload = [_stashed(r, created, meanings.get(r.id)) for r, created in gone]
                sealed = Fernet(key).encrypt(json.dumps(payload).encode())
                ticket = UndoTicket(await self._stash.keep(owner=own, sealed=sealed), key.decode())
            redacted = await self._audit.redact_keys(own, [r.key for r, _ in gone])
        removal = Removal(
            memories=len(gone),
            vectors=removed.vectors,
            index_entries=removed.index_entries,
            audit_redacted=redacted,
            journal_kept=await self._runs_holding(actor, {r.id for r, _ in gone}),
            undo_kept=len(gone) if ticket is not None else 0,
        )
        receipt = deletion_receipt("forget", actor.id, self._clock(), removal, retention_hours=self._retention_hours)
        return Forgotten(records=tuple(r for r, _ in gone), ticket=ticket, receipt=receipt)

    async def _runs_holding(self, actor: Actor, ids: set[str]) -> int:
        """How many of the person's runs still journaled were offered any of `ids`: their recorded
        prompt keeps it until retention prunes them."""
        if self._journal is None or not ids:
            return 0
        return len({run_id for run_id, _, _, _ in await self._journal.offered_in(actor.id, sorted(ids))})

    async def forget_by_id(self, actor: Actor, memory_id: str) -> ForgetOutcome:
        """Forget one memory by id, with no undo (the agent API's read-back): a shared fact is
        `refused`, anything not on file for the person `not_found`, alike for every such id."""
        on_file = await self._entries_of(actor, [memory_id])
        choice = chosen_reach(actor, list(on_file.values()), [memory_id])
        if choice.shared:
            scope = on_file[memory_id].scope
            return ForgetOutcome("refused", memory_forget_verdict(scope=scope, actor=actor).reason, scope=scope)
        if not (await self.forget(actor, choice, undoable=False)).records:
            return ForgetOutcome("not_found", NOT_ON_FILE)
        return ForgetOutcome("forgotten", memory_forget_verdict(scope=own_scope(actor), actor=actor).reason)

    async def _entries_of(self, actor: Actor, ids: Sequence[str]) -> dict[str, DigestEntry]:
        """The entries on file for the person whose record is one of `ids`, by id, resolved over the
        records of their keys alone: an id not on file for them, or whose record a narrower one
        overrides, has none."""
        scopes = await scopes_on_file(self._config, ScopeContext(actor=actor))
        records = await self._provider.records_of_ids(scopes, ids)
        wanted = set(ids)
        entries = resolve_digest(records, scopes=scopes, max_memories=None).entries
        return {e.record.id: e for e in entries if e.record.id in wanted}

    async def forget_all(self, actor: Actor) -> DeletionReceipt:
        """Forget everything held at the person's own scope, every value the trail kept of it and every
        note waiting for their approval; no undo. The receipt says what went from where."""
        own = own_scope(actor)
        ids: set[str] = set()
        if self._journal is not None:  # the journal's line names only runs offered one of these
            ids = {r.id for r in await self._provider.list(scopes=[own], ctx=ScopeContext(actor=actor))}
        async with self._provider.together():
            removed = await self._provider.removal(own)
            gone = await self._provider.forget_all(ctx=ScopeContext(actor=actor))
            redacted = await self._audit.redact_scope(own)
            waiting = await self._waiting.discard_waiting(actor.id) if self._waiting is not None else 0
        removal = Removal(
            memories=gone,
            vectors=removed.vectors,
            index_entries=removed.index_entries,
            audit_redacted=redacted,
            journal_kept=await self._runs_holding(actor, ids),
            waiting=waiting,
        )
        return deletion_receipt("forget-all", actor.id, self._clock(), removal, retention_hours=self._retention_hours)

    async def undo(self, actor: Actor, ticket: UndoTicket) -> Undone:
        """Put back what the act behind `ticket` forgot, as it was, within `UNDO_WINDOW`: once."""
        own = own_scope(actor)
        sealed = await self._stash.read(ticket.stash, owner=own, kept_since=self._clock() - UNDO_WINDOW)
        opened = _open(sealed, ticket.key) if sealed is not None else None
        # only the right key uses the stash up; of two undoing at once, one finds it gone
        if opened is None or not await self._stash.discard(ticket.stash, owner=own):
            return Undone("expired", reason="It is too late to undo that: it can be undone for ten minutes.")
        ctx = ScopeContext(actor=actor)
        stashed, meanings = opened
        forgotten = [r for r, _ in stashed]
        # Only whether each key is held at the person's own scope again decides: those records are read.
        held = await self._provider.records_holding([own], [r.key for r in forgotten])
        scopes = await scopes_on_file(self._config, ctx)
        plan = putback(actor, forgotten, [DigestEntry(r, pinned=r.pinned) for r in held], scopes)
        if plan.refused:
            return Undone("refused", reason=plan.refused)
        wanted = {r.id for r in plan.restore}
        back = set(
            await self._provider.put_back([(r, c) for r, c in stashed if r.id in wanted], ctx=ctx, meanings=meanings)
        )
        restored = tuple(r for r in plan.restore if r.id in back)
        # a key written between the plan and the insert is kept too: never overwritten by an undo
        superseded = plan.superseded + tuple(r for r in plan.restore if r.id not in back)
        return Undone("restored", restored=restored, superseded=superseded)

    async def correct(self, actor: Actor, memory_id: str, text: str) -> Correction:
        """A new text, written by the person, for one of their own memories: its id, key and pin stay,
        its date becomes now. The change and its audit entry (before and after) are one transaction."""
        entry = (await self._entries_of(actor, [memory_id])).get(memory_id)
        if entry is None:
            return Correction("not_found", NOT_ON_FILE)
        verdict = memory_correct_verdict(scope=entry.scope, actor=actor)
        if not verdict.allowed:
            return Correction("refused", verdict.reason)
        checked = check_memory_input(entry.key, text, max_fact_chars=self._config.max_fact_chars)
        if checked.error is not None:
            return Correction("invalid", checked.error)
        change = await restate(self._config, self._provider, self._audit, actor, entry.record, checked.fact)
        if change is None:  # forgotten meanwhile: a correction never brings it back
            return Correction("not_found", NOT_ON_FILE)
        return Correction("done", before=change[0], after=change[1])


def _stashed(record: MemoryRecord, created: datetime, meaning: Meaning | None) -> dict[str, object]:
    """One forgotten record as its stash holds it, with its vector when it had one."""
    item: dict[str, object] = {"record": record_to_json(record), "createdAt": created.isoformat()}
    if meaning is not None:
        item["embedder"] = meaning.embedder
        item["vector"] = base64.b64encode(meaning.vector).decode()
    return item


def _open(sealed: bytes, key: str) -> tuple[list[tuple[MemoryRecord, datetime]], dict[str, Meaning]] | None:
    """The records a stash holds, and the vectors it kept of them by id, or None when the key does not
    open it."""
    try:
        payload = json.loads(Fernet(key.encode()).decrypt(sealed))
        records = [(record_from_json(item["record"]), datetime.fromisoformat(item["createdAt"])) for item in payload]
        meanings = {
            record.id: Meaning(str(item["embedder"]), base64.b64decode(item["vector"]))
            for (record, _), item in zip(records, payload, strict=True)
            if "vector" in item
        }
    except (InvalidToken, ValueError, TypeError, KeyError):
        return None
    return records, meanings
