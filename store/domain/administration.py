"""The rules of the elevated area: who administers which scope, where a person may publish their own
notes, the pin budget, and why a preview left an entry out. Pure: a deployment's own gate may do I/O,
the default one reads roles."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from store.domain.scopes import GLOBAL_SCOPE, own_scope
from store.domain.types import Actor, DigestEntry, MemoryDigest, MemoryRecord

__all__ = (
    "LEFT_OUT_EXPLANATIONS",
    "UNPIN_OR_RAISE",
    "AdminGate",
    "LeftOut",
    "LeftOutReason",
    "PinBudget",
    "RoleGate",
    "entries_left_out",
    "may_preview_person",
    "pin_budget",
    "preview_audit_scopes",
    "promotion_targets",
)

UNPIN_OR_RAISE = "Unpin something, or ask whoever runs OnFile to let a prompt carry more (ONFILE_MAX_MEMORIES)."
"""What an administrator can do about always-on facts a prompt cannot all carry."""


@runtime_checkable
class AdminGate(Protocol):
    """A deployment's answer to "may this person administer that scope" and "may they preview prompts"."""

    async def administers(self, actor: Actor, scope: str) -> bool: ...

    async def may_preview(self, actor: Actor) -> bool: ...


@dataclass(frozen=True, slots=True)
class RoleGate:
    """The default gate, from the identity provider's roles: `admin_role` administers the person's own
    organisation (`tenant:<their tenant>`), `global_admin_role` administers `global`, and
    `support_role` may preview what the model will see. Nobody administers another organisation."""

    admin_role: str = "onfile-admin"
    global_admin_role: str = "onfile-global-admin"
    support_role: str = "onfile-support"

    async def administers(self, actor: Actor, scope: str) -> bool:
        if scope == GLOBAL_SCOPE:
            return self.global_admin_role in actor.roles
        return bool(actor.tenant_ref) and scope == f"tenant:{actor.tenant_ref}" and self.admin_role in actor.roles

    async def may_preview(self, actor: Actor) -> bool:
        return self.support_role in actor.roles


def promotion_targets(actor: Actor, administered: Iterable[str]) -> tuple[str, ...]:
    """Where `actor` may republish their own notes: the scopes they administer (`administered`, in its
    order: narrowest first) except their own, where the note already is. Nowhere for someone who
    administers nothing."""
    own = own_scope(actor)
    return tuple(scope for scope in administered if scope != own)


@dataclass(frozen=True, slots=True)
class PinBudget:
    """How many keys are always on at a scope against the ceiling of one turn's block.

    `over` is true when the pinned keys exceed `max_memories`: then some always-on facts stop reaching
    prompts (they show up as pinnedOmitted).
    """

    scope: str
    pinned_keys: int
    max_memories: int

    @property
    def over(self) -> bool:
        return self.pinned_keys > self.max_memories

    @property
    def warning(self) -> str | None:
        """The warning naming the scope by its token, as an API answers it."""
        return self.warning_for(f"at {self.scope}")

    def warning_for(self, where: str) -> str | None:
        """The warning with the scope named by `where` ("for everyone in the organisation “berlin”"),
        as a page says it; None within the budget."""
        if not self.over:
            return None
        dropped = self.pinned_keys - self.max_memories
        return (
            f"{self.pinned_keys:,} keys are always on {where}, but a prompt carries at most "
            f"{self.max_memories:,} memories: {dropped:,} always-on fact{'s' if dropped != 1 else ''} would stop "
            f"reaching prompts. {UNPIN_OR_RAISE}"
        )


def pin_budget(
    records: Iterable[MemoryRecord], *, scope: str, max_memories: int, pinning: str | None = None
) -> PinBudget:
    """The budget at `scope` as it is, or as it would be after pinning the key `pinning`."""
    keys = {r.key for r in records if r.scope == scope and r.pinned}
    if pinning is not None:
        keys.add(pinning)
    return PinBudget(scope=scope, pinned_keys=len(keys), max_memories=max_memories)


LeftOutReason = Literal["budget", "relevance", "expired"]
LEFT_OUT_EXPLANATIONS: dict[LeftOutReason, str] = {
    "budget": "It applies, but the block was full: the ceiling dropped it (widest and stalest go first).",
    "relevance": "The search did not find it relevant to this turn's text.",
    "expired": (
        "It expired: the organisation keeps what the assistant concludes for a limited time, and an expired "
        "note reaches no prompt until the person keeps it."
    ),
}


@dataclass(frozen=True, slots=True)
class LeftOut:
    """An entry that applies to the person but is not in the turn's block, and why."""

    entry: DigestEntry
    reason: LeftOutReason

    @property
    def explanation(self) -> str:
        return LEFT_OUT_EXPLANATIONS[self.reason]


def entries_left_out(
    everything: MemoryDigest,
    offered: MemoryDigest,
    candidate_keys: Sequence[str] | None,
    *,
    expired_ids: Collection[str] = frozenset(),
) -> list[LeftOut]:
    """Every entry of the read-back (`everything`) missing from the turn (`offered`), with its reason:
    `expired` for a record whose id is in `expired_ids` (no turn reads it), `relevance` when a search
    chose the candidates and did not return the key, `budget` otherwise."""
    shown = {e.key for e in offered.entries}
    candidates = None if candidate_keys is None else set(candidate_keys)

    def reason(entry: DigestEntry) -> LeftOutReason:
        if entry.record.id in expired_ids:
            return "expired"
        return "relevance" if candidates is not None and entry.key not in candidates else "budget"

    return [LeftOut(entry=e, reason=reason(e)) for e in everything.entries if e.key not in shown]


def may_preview_person(viewer: Actor, person: Actor, *, all_organisations: bool = False) -> bool:
    """Whether support staff `viewer` may look at what the model is told about `person`, as OnFile
    knows them: only someone of the viewer's own organisation, unless the deployment made support
    staff answer for every organisation (`all_organisations`). Someone of no organisation is nobody's
    colleague: a viewer without one previews nobody, and nobody previews a person without one, except
    across organisations."""
    if all_organisations:
        return True
    return viewer.tenant_ref is not None and viewer.tenant_ref == person.tenant_ref


def preview_audit_scopes(viewer: Actor, person: Actor) -> tuple[str, ...]:
    """Where a look by `viewer` at what the model is told about `person` is recorded: always at
    `global`, so global administrators see every preview; at the organisation OnFile knows the person
    in, for its administrators; and at the viewer's own organisation when that is another one (support
    staff answering for every organisation), so theirs see whom their staff looked at. Never at a
    person's own scope, which no administrator reads."""
    scopes = [GLOBAL_SCOPE]
    for tenant in (person.tenant_ref, viewer.tenant_ref):
        if tenant is not None and f"tenant:{tenant}" not in scopes:
            scopes.append(f"tenant:{tenant}")
    return tuple(scopes)
