"""A person's say over what their assistant keeps: pausing memory, and approving what it concludes.

Two switches decide what becomes of a `remember` call. A person may pause memory for themselves: then
nothing is written and the model is told so (digests still work: pausing stops new notes, it does
not hide old ones). An organisation may require approval: then what the assistant concludes about
one of its people waits, outside every prompt, until that person approves it (an ordinary memory the
assistant concluded) or discards it (gone, text and all). Pure: the switches come in as data.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from store.domain.types import MemoryOrigin

__all__ = (
    "BEGUN_WHILE_PAUSED",
    "MEMORY_PAUSED",
    "WAITING_FOR_APPROVAL",
    "MemoryControls",
    "PendingMemory",
    "PendingState",
    "RememberAdmission",
    "Settlement",
    "approval_required",
    "reaches_prompts",
    "remember_admission",
    "settle_pending",
)

MEMORY_PAUSED = (
    "Memory is paused: this person has asked that nothing new be remembered about them, so nothing was saved. "
    "Do not call remember again in this conversation; carry on from what they tell you now."
)
BEGUN_WHILE_PAUSED = (
    "Memory was paused when this conversation began, so nothing from it is saved, even though the person has "
    "resumed since. Do not call remember again in this conversation; carry on from what they tell you now."
)
WAITING_FOR_APPROVAL = (
    "Saved for the person to approve: their organisation asks each person to approve what the assistant "
    "concludes about them. It is not among your notes until they approve it, and may never be."
)
PendingState = Literal["pending", "approved", "discarded"]


@dataclass(frozen=True, slots=True)
class MemoryControls:
    """What a person and their organisation decided about new memories: `paused` is the person's own
    switch; `approval_required` is their organisation's setting (or the deployment's default)."""

    paused: bool = False
    approval_required: bool = False


@dataclass(frozen=True, slots=True)
class RememberAdmission:
    """What a `remember` call may do: `write` it as a memory, `hold` it for the person's approval, or
    `refuse` it. `reason` is what the model is told when it is not simply written."""

    route: Literal["write", "hold", "refuse"]
    reason: str = ""


def remember_admission(controls: MemoryControls, *, begun_while_paused: bool = False) -> RememberAdmission:
    """A paused person's memory takes nothing, whatever their organisation requires: pausing is the
    stronger wish, and a held note would still be a note kept about them. A run begun while they were
    paused (`begun_while_paused`: its recorded digest was not writable) takes nothing either, though
    they resumed since: the run's digest is what its calls may do, and resuming takes effect from their
    next run. Otherwise approval, when required, holds the note; else it is written."""
    if controls.paused:
        return RememberAdmission("refuse", MEMORY_PAUSED)
    if begun_while_paused:
        return RememberAdmission("refuse", BEGUN_WHILE_PAUSED)
    if controls.approval_required:
        return RememberAdmission("hold", WAITING_FOR_APPROVAL)
    return RememberAdmission("write")


def approval_required(organisation_choice: bool | None, *, default: bool) -> bool:
    """An organisation's own choice wins; one that never chose (or a person of no organisation) gets the
    deployment's default."""
    return default if organisation_choice is None else organisation_choice


def reaches_prompts(state: PendingState) -> bool:
    """Only an approved note is ever in a prompt, a digest or a search: a note waiting for approval is
    not yet the person's memory, and a discarded one never will be."""
    return state == "approved"


@dataclass(frozen=True, slots=True)
class PendingMemory:
    """A note the assistant concluded about `person_id`, waiting for them to approve or discard it."""

    id: str
    person_id: str
    key: str
    text: str
    thread_id: str | None
    run_id: str | None
    concluded_at: datetime


@dataclass(frozen=True, slots=True)
class Settlement:
    """What settling a waiting note does: `write` the memory with `origin` (approved), or not; the
    waiting note goes either way. `found` is false for a note that is not the person's or is gone."""

    found: bool
    write: bool = False
    origin: MemoryOrigin | None = None


def settle_pending(
    person_id: str, pending: PendingMemory | None, decision: Literal["approve", "discard"]
) -> Settlement:
    """Only the person a note is about settles it; anyone else's note answers like one that does not
    exist. Approving makes it an ordinary memory the assistant concluded, pointing at the conversation
    and turn it came from; discarding writes nothing."""
    if pending is None or pending.person_id != person_id:
        return Settlement(found=False)
    if decision == "discard":
        return Settlement(found=True)
    origin = MemoryOrigin(author="agent", thread_id=pending.thread_id, run_id=pending.run_id, actor_ref=person_id)
    return Settlement(found=True, write=True, origin=origin)
