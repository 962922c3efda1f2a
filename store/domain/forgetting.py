"""What a person's choice of memories to forget reaches, what a correction of one may change, and which
forgotten memories an undo may put back. Pure: the entries on file in, decisions with reasons out.

A person may act only on what is held at their own scope. A shared fact (their organisation's, or
everyone's) is never theirs to forget or correct, and an id that is not on file for them — unknown,
another person's, or forgotten meanwhile — is one and the same "not on file", so a choice cannot be
used to learn what is on file about others.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from store.domain.authority import Verdict, memory_write_verdict
from store.domain.scopes import own_scope
from store.domain.types import Actor, DigestEntry, MemoryRecord

__all__ = (
    "Choice",
    "Putback",
    "chosen_reach",
    "matching_reach",
    "memory_correct_verdict",
    "putback",
    "selection_fingerprint",
)


@dataclass(frozen=True, slots=True)
class Choice:
    """What forgetting a choice of memories would do.

    `goes` are the person's own entries it forgets, in the order given; `shared` the chosen ids held
    at a wider scope (refused: their administrators manage them); `missing` the chosen ids not on file
    for the person. `stays` counts what matched but is not theirs to forget (for "all matching").
    The act happens only when `allowed`: everything chosen is theirs, and there is something to forget.
    """

    goes: tuple[DigestEntry, ...]
    shared: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    stays: int = 0

    @property
    def allowed(self) -> bool:
        return bool(self.goes) and not self.shared and not self.missing

    @property
    def reason(self) -> str:
        """Why the choice may or may not be forgotten, in words a person can act on."""
        if self.shared:
            n = len(self.shared)
            return (
                f"{_count(n, 'of the memories you chose is', 'of the memories you chose are')} shared with you by "
                "your organisation or for everyone: only their administrators can remove them. Nothing was forgotten."
            )
        if self.missing:
            n = len(self.missing)
            return (
                f"{_count(n, 'of the memories you chose is', 'of the memories you chose are')} no longer on file "
                "for you (perhaps forgotten in another tab). Nothing was forgotten."
            )
        if not self.goes:
            return "No memory was chosen. Tick the ones to forget, or choose all that match."
        return f"{_count(len(self.goes), 'memory of yours goes', 'memories of yours go')}."


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def chosen_reach(actor: Actor, on_file: Sequence[DigestEntry], ids: Iterable[str]) -> Choice:
    """The memories a person ticked, by id: each must be one of their own entries on file now. An id
    given twice counts once; the order given is kept."""
    own = own_scope(actor)
    by_id = {e.record.id: e for e in on_file}
    goes: list[DigestEntry] = []
    shared: list[str] = []
    missing: list[str] = []
    for id in dict.fromkeys(ids):
        entry = by_id.get(id)
        if entry is None:
            missing.append(id)
        elif entry.scope == own:
            goes.append(entry)
        else:
            shared.append(id)
    return Choice(goes=tuple(goes), shared=tuple(shared), missing=tuple(missing))


def matching_reach(actor: Actor, matching: Sequence[DigestEntry], *, shared: int = 0) -> Choice:
    """ "All that match": every entry matching the person's search and filters that is their own; the
    shared facts among the matches are not selectable, and are counted as staying, with `shared` more
    that matched at a wider scope and were counted without being read."""
    own = own_scope(actor)
    goes = tuple(e for e in matching if e.scope == own)
    return Choice(goes=goes, stays=len(matching) - len(goes) + shared)


def selection_fingerprint(ids: Iterable[str]) -> str:
    """One short value for a set of ids, whatever their order: a confirmation carries it, so the act
    forgets exactly the set the person was shown, and a set that changed meanwhile is asked again."""
    digest = hashlib.blake2b(digest_size=16, person=b"onfile-choice")
    for id in sorted(set(ids)):
        digest.update(id.encode())
        digest.update(b"\x00")
    return digest.hexdigest()


def memory_correct_verdict(*, scope: str, actor: Actor) -> Verdict:
    """May `actor` correct the text of a memory held at `scope`? Their own scope only, needing nobody's
    permission there (as forgetting does); a shared fact is changed by its administrators."""
    if scope == own_scope(actor):
        return Verdict(True, f"{scope} is {actor.id}'s own scope: they may correct anything held there.")
    return Verdict(
        False, f"This memory is held at {scope}, which is managed by its administrators; it cannot be changed here."
    )


@dataclass(frozen=True, slots=True)
class Putback:
    """Which forgotten records an undo puts back: `restore` as they were (id, text, origin, date);
    `superseded` those whose key was written again at the person's own scope since (the newer value
    is kept); `refused` says why nothing may be written there at all (empty when it may)."""

    restore: tuple[MemoryRecord, ...]
    superseded: tuple[MemoryRecord, ...] = ()
    refused: str = ""


def putback(
    actor: Actor, forgotten: Sequence[MemoryRecord], on_file: Sequence[DigestEntry], scopes: Sequence[str]
) -> Putback:
    """Undo a forget of `forgotten`: each record goes back at the person's own scope, unless its key is
    held there again. Records held anywhere else are not theirs to put back and are left out. A person
    may write their own scope by any author's hand, so a write refusal means their own scope no longer
    applies to them (`memory_write_verdict`)."""
    own = own_scope(actor)
    verdict = memory_write_verdict(scope=own, actor=actor, scopes=scopes, author="human")
    if not verdict.allowed:
        return Putback(restore=(), refused=verdict.reason)
    held = {e.key for e in on_file if e.scope == own}
    mine = [r for r in forgotten if r.scope == own]
    return Putback(
        restore=tuple(r for r in mine if r.key not in held),
        superseded=tuple(r for r in mine if r.key in held),
    )
