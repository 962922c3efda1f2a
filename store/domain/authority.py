"""Who may write and who may forget a memory at a scope. Every decision carries a reason a person
can read, naming the scope."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from store.domain.scopes import own_scope
from store.domain.types import Actor, Author

__all__ = ("Verdict", "memory_forget_verdict", "memory_write_verdict")


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
