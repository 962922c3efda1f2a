"""Who may write and who may forget a memory at a scope. Every decision carries a reason a person
can read, naming the scope."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from store.domain.scopes import own_scope
from store.domain.types import Actor, Author, DigestEntry

__all__ = (
    "ForgetAllReach",
    "RestoreVerdict",
    "Verdict",
    "forget_all_reach",
    "memory_forget_verdict",
    "memory_restore_verdict",
    "memory_write_verdict",
)


@dataclass(frozen=True, slots=True)
class Verdict:
    """A decision and why it was made."""

    allowed: bool
    reason: str

    def __bool__(self) -> bool:
        return self.allowed


def memory_write_verdict(
    *,
    scope: str,
    actor: Actor,
    scopes: Sequence[str],
    author: Author,
    elevated: bool = False,
) -> Verdict:
    """May `author`, acting for `actor`, write at `scope`? Decided in this order:

    1. a scope not among the actor's resolved `scopes` is refused — nobody writes where they do not apply;
    2. the actor's own scope is allowed;
    3. anything but a human is refused above its own scope, whatever `elevated` says;
    4. an elevated human is allowed (elevated: the host's answer to "may this person administer it");
    5. otherwise refused.
    """
    if scope not in scopes:
        return Verdict(False, f"The scope {scope} does not apply to {actor.id}, so nothing can be written there.")
    if scope == own_scope(actor):
        return Verdict(True, f"{scope} is {actor.id}'s own scope, which is always theirs to write.")
    if author != "human":
        return Verdict(
            False,
            f"Only a person may write at {scope}: the assistant writes at {own_scope(actor)} only, "
            "and a person can republish it wider.",
        )
    if elevated:
        return Verdict(True, f"{actor.id} administers {scope}.")
    return Verdict(False, f"Writing at {scope} needs someone who administers it; {actor.id} does not.")


def memory_forget_verdict(*, scope: str, actor: Actor) -> Verdict:
    """May `actor` forget a memory held at `scope`? Their own scope only.

    There is deliberately no elevation here: forgetting your own needs nobody's permission, and the
    endpoint serving it must not ask a question a host might answer no to. Removing a shared memory is
    an administrative act that belongs in the console.
    """
    if scope == own_scope(actor):
        return Verdict(True, f"{scope} is {actor.id}'s own scope: they may forget anything held there.")
    return Verdict(
        False,
        f"This memory is held at {scope}, which is managed by its administrators; it cannot be forgotten here.",
    )


@dataclass(frozen=True, slots=True)
class RestoreVerdict:
    """Whether a forgotten memory may be put back: `restore`, or `superseded` (its key was written
    again since) or `refused` (as a write would be), with a reason a person can read."""

    status: Literal["restore", "superseded", "refused"]
    reason: str


def memory_restore_verdict(
    *, key: str, author: Author, actor: Actor, on_file: Sequence[DigestEntry], scopes: Sequence[str]
) -> RestoreVerdict:
    """May a memory `actor` forgot under `key` be put back at their own scope? Not when the key has
    been written there again since (the newer value is kept: an undo never overwrites); otherwise as
    any write of `author`'s at that scope is (`memory_write_verdict`). `on_file` is everything that
    applies to the person now, with the wider values each entry overrides; `scopes` are theirs now."""
    own = own_scope(actor)
    if any(e.key == key and own in {e.scope, *(o.scope for o in e.overrides)} for e in on_file):
        return RestoreVerdict(
            "superseded", f"“{key}” has been written again since it was forgotten, so the newer value was kept."
        )
    verdict = memory_write_verdict(scope=own, actor=actor, scopes=scopes, author=author)
    return RestoreVerdict("restore" if verdict.allowed else "refused", verdict.reason)


@dataclass(frozen=True, slots=True)
class ForgetAllReach:
    """What "forget everything" would do for a person: `goes` counts the entries at their own scope;
    `stays` counts what their organisation or everyone holds — the wider entries, and the wider
    values their own entries override, which come into view once theirs are gone."""

    goes: int
    stays: int


def forget_all_reach(actor: Actor, on_file: Sequence[DigestEntry]) -> ForgetAllReach:
    own = own_scope(actor)
    goes = sum(1 for e in on_file if e.scope == own)
    return ForgetAllReach(goes=goes, stays=len(on_file) - goes + sum(len(e.overrides) for e in on_file))
