"""The one wire shape of each answer that leaves the store: a record, a digest's entry, a digest, a
remember call's outcome, an audit entry.

The agent API answers with these Structs, the SDK decodes the API's answers into them, the support
preview answers a digest in the same shape, and the run journal stores a run's digest and a remember
call's record as them. Field names on the wire are camelCase. Conversions to and from the domain's
values are exact: `digest_of(digest_wire(d)) == d` for every digest.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

import msgspec

from store.domain.controls import PendingMemory
from store.domain.types import DigestEntry, MemoryDigest, MemoryOrigin, MemoryRecord, Override

__all__ = (
    "AuditEntryWire",
    "DigestWire",
    "EntryWire",
    "OriginWire",
    "OverrideWire",
    "PendingWire",
    "RecordWire",
    "RememberWire",
    "RunDigestWire",
    "WaitingNoteWire",
    "digest_of",
    "digest_wire",
    "pending_of",
    "pending_wire",
    "record_of",
    "record_wire",
    "run_digest_wire",
    "waiting_note_wire",
)


Count = Annotated[int, msgspec.Meta(ge=0)]


class OriginWire(msgspec.Struct, rename="camel", frozen=True):
    author: Literal["human", "agent"]
    thread_id: str | None
    run_id: str | None
    actor_ref: str | None
    promoted_from: str | None = None


class OverrideWire(msgspec.Struct, frozen=True):
    scope: str
    text: str
    author: Literal["human", "agent"]


class RecordWire(msgspec.Struct, rename="camel", frozen=True):
    id: str
    key: str
    text: str
    scope: str
    pinned: bool
    origin: OriginWire
    updated_at: str


class EntryWire(RecordWire, frozen=True):
    """A record as one turn sees it. `pinned` is the entry's (true when any record of the key is
    pinned); `record_pinned` is the record's own."""

    overrides: list[OverrideWire]
    record_pinned: bool


class DigestWire(msgspec.Struct, rename="camel", frozen=True):
    scopes: list[str]
    entries: list[EntryWire]
    omitted: Count
    pinned_omitted: Count
    recalled: bool


class RunDigestWire(DigestWire, frozen=True, kw_only=True):
    """A run's digest with what its model is shown: the agent API's answer to a digest call (which the
    SDK reads) and the support preview's. `memory` is "off" when the deployment keeps no memory."""

    memory: Literal["on", "off"] = "on"
    block: str
    writable: bool
    tools: list[dict[str, Any]]


class WaitingNoteWire(msgspec.Struct, rename="camel", frozen=True):
    """A note the assistant concluded that waits for the person's approval (their organisation requires
    it): not a memory until they approve it. `concluded_at` is ISO 8601 in UTC, with a `Z`."""

    id: str
    key: str
    text: str
    thread_id: str | None
    run_id: str | None
    concluded_at: str


class PendingWire(WaitingNoteWire, frozen=True):
    """A waiting note as the `remember` call answers it: whom it is about, and `message`, which says
    that it waits, in words for the model."""

    person_id: str
    message: str


def waiting_note_wire(note: PendingMemory) -> WaitingNoteWire:
    """How the person's own API lists a waiting note."""
    return WaitingNoteWire(note.id, note.key, note.text, note.thread_id, note.run_id, _utc_text(note.concluded_at))


def pending_wire(note: PendingMemory, message: str) -> PendingWire:
    """How a `remember` call that was held answers: the note, whom it is about and `message`."""
    listed = waiting_note_wire(note)
    return PendingWire(**msgspec.structs.asdict(listed), person_id=note.person_id, message=message)


def _utc_text(at: datetime) -> str:
    return at.astimezone(UTC).isoformat().replace("+00:00", "Z")


def pending_of(wire: PendingWire) -> PendingMemory:
    """The note a journaled `remember` answer holds."""
    concluded = datetime.fromisoformat(wire.concluded_at)
    return PendingMemory(wire.id, wire.person_id, wire.key, wire.text, wire.thread_id, wire.run_id, concluded)


class RememberWire(msgspec.Struct, rename="camel", frozen=True, omit_defaults=True):
    """The outcome of a `remember` call: the record written, the note kept waiting for the person's
    approval, or the error the model can correct. The agent API answers it, the SDK reads it, and the
    journal keeps it for retries and replays."""

    ok: bool
    record: RecordWire | None = None
    error: str | None = None
    pending: PendingWire | None = None


class AuditEntryWire(msgspec.Struct, frozen=True):
    """One act in the audit trail, as its downloads carry it: `before` and `after` are the records'
    wire shapes (None where there was nothing), and `at` is an ISO 8601 time."""

    id: str
    at: str
    who: str
    action: str
    scope: str
    key: str | None
    before: Any
    after: Any


def record_wire(record: MemoryRecord) -> RecordWire:
    return RecordWire(*_record_fields(record, pinned=record.pinned))


def record_of(wire: RecordWire, *, pinned: bool | None = None) -> MemoryRecord:
    """The record `wire` carries; `pinned` overrides the wire's flag (an entry's record pin is
    `record_pinned`, not `pinned`)."""
    origin = wire.origin
    return MemoryRecord(
        id=wire.id,
        key=wire.key,
        text=wire.text,
        scope=wire.scope,
        pinned=wire.pinned if pinned is None else pinned,
        origin=MemoryOrigin(
            author=origin.author,
            thread_id=origin.thread_id,
            run_id=origin.run_id,
            actor_ref=origin.actor_ref,
            promoted_from=origin.promoted_from,
        ),
        updated_at=datetime.fromisoformat(wire.updated_at),
    )


def digest_wire(digest: MemoryDigest) -> DigestWire:
    return DigestWire(
        scopes=list(digest.scopes),
        entries=[_entry_wire(entry) for entry in digest.entries],
        omitted=digest.omitted,
        pinned_omitted=digest.pinned_omitted,
        recalled=digest.recalled,
    )


def run_digest_wire(
    digest: DigestWire,
    *,
    block: str,
    writable: bool,
    tools: list[dict[str, Any]],
    memory: Literal["on", "off"] = "on",
) -> RunDigestWire:
    return RunDigestWire(
        digest.scopes,
        digest.entries,
        digest.omitted,
        digest.pinned_omitted,
        digest.recalled,
        memory=memory,
        block=block,
        writable=writable,
        tools=tools,
    )


def digest_of(wire: DigestWire) -> MemoryDigest:
    return MemoryDigest(
        scopes=tuple(wire.scopes),
        entries=tuple(
            DigestEntry(
                record=record_of(entry, pinned=entry.record_pinned),
                overrides=tuple(Override(scope=o.scope, text=o.text, author=o.author) for o in entry.overrides),
                pinned=entry.pinned,
            )
            for entry in wire.entries
        ),
        omitted=wire.omitted,
        pinned_omitted=wire.pinned_omitted,
        recalled=wire.recalled,
    )


def _record_fields(record: MemoryRecord, *, pinned: bool) -> tuple[str, str, str, str, bool, OriginWire, str]:
    """A record's wire fields in `RecordWire`'s order (which `EntryWire` begins with)."""
    o = record.origin
    origin = OriginWire(o.author, o.thread_id, o.run_id, o.actor_ref, o.promoted_from)
    return (record.id, record.key, record.text, record.scope, pinned, origin, record.updated_at.isoformat())


def _entry_wire(entry: DigestEntry) -> EntryWire:
    overrides = [OverrideWire(o.scope, o.text, o.author) for o in entry.overrides]
    return EntryWire(*_record_fields(entry.record, pinned=entry.pinned), overrides, entry.record.pinned)
