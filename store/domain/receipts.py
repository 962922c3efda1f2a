"""What one act of forgetting removed, place by place: the receipt a person (or the administrator who
erased them) is given, with counts and never the text.

A place is named by a stable id (`memories`, `search-index`, `vectors`, `journal`, `audit`, `waiting`,
`undo`, `conversations`, `sessions`) and described in words. The journal's line says plainly what is
kept: a forget leaves the digests of conversations already in progress as they were (a run resumes
with the prompt it started with) until retention prunes them; only an erasure deletes them at once.
Pure: the counts come in as data.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

__all__ = ("Act", "DeletionReceipt", "ReceiptLine", "Removal", "deletion_receipt")

Act = Literal["forget", "forget-all", "erasure"]


@dataclass(frozen=True, slots=True)
class Removal:
    """What the stores report an act removed. `journal_removed` counts deleted journal entries (an
    erasure's); `journal_kept` the conversations in progress whose recorded prompt still holds what
    was forgotten; `undo_kept` how many records are kept sealed for the undo window."""

    memories: int
    vectors: int
    index_entries: int
    audit_redacted: int
    journal_removed: int = 0
    journal_kept: int = 0
    waiting: int = 0
    undo_kept: int = 0
    conversations: int = 0
    sessions: int = 0


@dataclass(frozen=True, slots=True)
class ReceiptLine:
    """One place: how many went from it (`removed`), how many stay for now (`kept`), in words."""

    place: str
    removed: int
    words: str
    kept: int = 0


@dataclass(frozen=True, slots=True)
class DeletionReceipt:
    """The receipt of one act about one person, and the counts it was made from (`removal`)."""

    act: Act
    person: str
    at: datetime
    lines: tuple[ReceiptLine, ...]
    removal: Removal

    def line(self, place: str) -> ReceiptLine | None:
        return next((line for line in self.lines if line.place == place), None)


def _n(count: int, one: str, many: str) -> str:
    return f"{count:,} {one if count == 1 else many}"


def deletion_receipt(act: Act, person: str, at: datetime, removal: Removal, *, retention_hours: int) -> DeletionReceipt:
    """The receipt of `act` about `person`, its lines in a fixed order. Every act reports its
    memories, search index, vectors, journal and audit trail; a forget-all and an erasure their
    waiting notes too; a forget that can be undone its sealed copy; an erasure its conversation records
    and sessions."""
    lines = [
        ReceiptLine("memories", removal.memories, f"{_n(removal.memories, 'memory', 'memories')} deleted."),
        ReceiptLine(
            "search-index",
            removal.index_entries,
            f"{_n(removal.index_entries, 'search index entry', 'search index entries')} deleted.",
        ),
        ReceiptLine("vectors", removal.vectors, f"{_n(removal.vectors, 'meaning vector', 'meaning vectors')} deleted."),
        _journal_line(act, removal, retention_hours),
        ReceiptLine(
            "audit",
            removal.audit_redacted,
            f"{_n(removal.audit_redacted, 'audit trail entry', 'audit trail entries')} cleared of the text.",
        ),
    ]
    if act in {"forget-all", "erasure"}:
        waiting = _n(removal.waiting, "note", "notes")
        lines.append(ReceiptLine("waiting", removal.waiting, f"{waiting} waiting for approval deleted."))
    if removal.undo_kept:
        copies = _n(removal.undo_kept, "memory", "memories")
        words = (
            f"{copies} kept encrypted for ten minutes, with any vector made of them, so the forget can be undone; "
            "only your browser holds the key."
        )
        lines.append(ReceiptLine("undo", 0, words, kept=removal.undo_kept))
    if act == "erasure":
        records = _n(removal.conversations, "conversation record", "conversation records")
        lines.append(ReceiptLine("conversations", removal.conversations, f"{records} deleted."))
        lines.append(
            ReceiptLine("sessions", removal.sessions, f"{_n(removal.sessions, 'session', 'sessions')} signed out.")
        )
    return DeletionReceipt(act, person, at, tuple(lines), removal)


def _journal_line(act: Act, removal: Removal, retention_hours: int) -> ReceiptLine:
    if act == "erasure":
        entries = _n(removal.journal_removed, "journal entry", "journal entries")
        return ReceiptLine("journal", removal.journal_removed, f"{entries} of conversations deleted.")
    it, it_is = ("it", "it is") if removal.memories == 1 else ("them", "they are")
    if not removal.journal_kept:
        return ReceiptLine("journal", 0, f"No conversation in progress holds {it}.")
    runs = _n(removal.journal_kept, "conversation turn", "conversation turns")
    until = f"until they finish, at most {retention_hours} hours; then {it_is} deleted"
    hold = "holds" if removal.journal_kept == 1 else "hold"
    words = f"{runs} in progress still {hold} {it} {until}."
    return ReceiptLine("journal", 0, words, kept=removal.journal_kept)
