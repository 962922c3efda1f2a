"""The elevated area's use-cases: publishing, editing, pinning and retiring shared facts, promotion,
the support preview, and the audit trail over all of them.

Every write goes through `memory_write_verdict` with a human author and the gate's answer as
`elevated`, against the one scope resolver; every act is audited with who, when, scope, key, before
and after. A memory outside the scopes a person administers answers exactly like an unknown one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Literal

from store.domain.administration import (
    AdminGate,
    LeftOut,
    PinBudget,
    entries_left_out,
    may_preview_person,
    pin_budget,
    preview_audit_scopes,
    promotion_targets,
)
from store.domain.authority import memory_write_verdict
from store.domain.block import build_memory_block
from store.domain.codec import record_to_json
from store.domain.expiry import is_expired
from store.domain.receipts import DeletionReceipt, Removal, deletion_receipt
from store.domain.remember import check_memory_input
from store.domain.scopes import GLOBAL_SCOPE, normalise_scopes, own_scope
from store.domain.types import Actor, MemoryDigest, MemoryOrigin, MemoryRecord, ScopeContext
from store.memory import MemoryConfig, lookalike_key_refusal, memories_on_file, prepare_write, select_for_turn
from store.persistence import (
    AuditAction,
    AuditEntry,
    AuditTrail,
    ConversationRegistry,
    DashboardSessions,
    ForgottenStash,
    KnownPeople,
    MemoryControlStore,
    RunJournal,
    SqlMemoryProvider,
)
from store.restating import ChangedMeanwhileError, StillAsRead, restate

__all__ = (
    "NOT_ADMINISTERED",
    "PEOPLE_SHOWN",
    "AdminOutcome",
    "Administration",
    "Erasure",
    "Preview",
    "PreviewRefusal",
    "Seen",
    "Stores",
)

NOT_ADMINISTERED = "There is no shared memory with that id among the scopes you administer."
Status = Literal["done", "refused", "not_found", "invalid", "changed"]
PEOPLE_SHOWN = 200
"""How many people the people page lists at once; anyone else is found by name or id."""
PreviewRefusal = Literal["forbidden", "unknown"]
"""Why a preview was not shown: the viewer may not preview at all, or nobody by that id is known
among the people they may preview (the same answer whether the id was never seen or belongs to a
person of another organisation)."""


CHANGED_MEANWHILE = "Nothing was changed: the fact was changed since the version read."


@dataclass(frozen=True, slots=True)
class AdminOutcome:
    """What became of an administrative act: `done` with the record (and a pin-budget warning when
    always-on facts would stop reaching prompts), or why not (`changed`: with the version it is now)."""

    status: Status
    reason: str = ""
    record: MemoryRecord | None = None
    budget: PinBudget | None = None

    @property
    def ok(self) -> bool:
        return self.status == "done"


@dataclass(frozen=True, slots=True)
class Preview:
    """Exactly what the model would be given for a person and a turn text, and what it would not."""

    actor: Actor
    """The person as OnFile knows them: their organisation and roles as last seen."""
    digest: MemoryDigest
    block: str
    left_out: tuple[LeftOut, ...]

    @property
    def chars(self) -> int:
        return len(self.block)

    @property
    def tokens_estimate(self) -> int:
        """About four characters a token for English text: an estimate, labelled as one wherever shown."""
        return (len(self.block) + 3) // 4


@dataclass(frozen=True, slots=True)
class Erasure:
    """What a person's erasure removed."""

    person: str
    memories: int
    checkpoints: int
    conversations: int
    sessions: int
    receipt: DeletionReceipt | None = None
    """What went from where, for the administrator to keep."""
    waiting: int = 0
    """The notes that waited for their approval."""


@dataclass(frozen=True, slots=True)
class Seen:
    """People OnFile has seen, most recently seen first, and the names of those whose name is known, by
    id; `more` when there were more than were listed."""

    people: tuple[Actor, ...]
    more: bool = False
    names: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Stores:
    """Where else a person's data lives, for their erasure."""

    journal: RunJournal
    registry: ConversationRegistry
    sessions: DashboardSessions
    controls: MemoryControlStore | None = None
    """The person's pause and the notes waiting for their approval."""
    stash: ForgottenStash | None = None
    """What the person just forgot, kept sealed for its undo."""


class Administration:
    """The elevated area over one memory configuration (its provider and its one resolver)."""

    def __init__(
        self,
        config: MemoryConfig,
        provider: SqlMemoryProvider,
        gate: AdminGate,
        audit: AuditTrail,
        people: KnownPeople,
        stores: Stores | None = None,
        *,
        support_everywhere: bool = False,
    ) -> None:
        self._config = config
        self._provider = provider
        self._gate = gate
        self._audit = audit
        self._people = people
        self._stores = stores
        self._support_everywhere = support_everywhere

    async def resolved_scopes(self, actor: Actor) -> tuple[str, ...]:
        return normalise_scopes(await self._config.scopes.resolve(ScopeContext(actor=actor)))

    async def administered_scopes(self, actor: Actor) -> tuple[str, ...]:
        """The actor's resolved scopes the gate says they administer, narrowest first."""
        return tuple([s for s in await self.resolved_scopes(actor) if await self._gate.administers(actor, s)])

    async def may_preview(self, actor: Actor) -> bool:
        return await self._gate.may_preview(actor)

    async def shared_memories(self, actor: Actor) -> list[MemoryRecord]:
        """Every memory at the scopes the actor administers: no cap."""
        scopes = await self.administered_scopes(actor)
        if not scopes:
            return []
        return list(await self._provider.list(scopes=scopes, ctx=ScopeContext(actor=actor)))

    async def shared_memory(self, actor: Actor, memory_id: str) -> MemoryRecord | None:
        """The shared fact `memory_id`, when it is held at a scope `actor` administers; None otherwise
        (unknown, or held elsewhere: the two are not told apart)."""
        return await self._administered(actor, memory_id)

    async def budgets(self, actor: Actor) -> list[PinBudget]:
        records = await self.shared_memories(actor)
        return [
            pin_budget(records, scope=scope, max_memories=self._config.max_memories)
            for scope in await self.administered_scopes(actor)
        ]

    async def publish(self, actor: Actor, *, scope: str, key: str, text: str, pinned: bool = False) -> AdminOutcome:
        """Write a shared fact (a new key, or a new text for an existing one) as a person, at a scope they
        administer: never their own (their own notes are theirs to forget unaudited, on their own page).
        A pin asked for and not made (the fact deleted meanwhile) is the outcome, not a silent unpinned
        success."""
        checked = check_memory_input(key, text, max_fact_chars=self._config.max_fact_chars)
        if checked.error is not None:
            return AdminOutcome("invalid", checked.error)
        refusal = await self._refusal(actor, scope)
        if refusal:
            return AdminOutcome("refused", refusal)
        lookalike = await lookalike_key_refusal(self._provider, key=checked.key, scope=scope, ctx=ScopeContext(actor))
        if lookalike is not None:
            return AdminOutcome("invalid", lookalike)
        origin = MemoryOrigin("human", actor_ref=actor.id)
        record = await self._replace_audited(actor, scope, checked.key, checked.fact, origin, action="write")
        if not pinned:
            return AdminOutcome("done", record=record)
        pinned_outcome = await self.pin(actor, record.id, pinned=True)
        if not pinned_outcome.ok:  # deleted meanwhile: say so, never answer an unpinned record as done
            reason = f"“{record.key}” was published at {scope} but not made always on: {pinned_outcome.reason}"
            return AdminOutcome(pinned_outcome.status, reason, record=record)
        return pinned_outcome

    async def edit(self, actor: Actor, memory_id: str, *, text: str, still: StillAsRead | None = None) -> AdminOutcome:
        """A new text for a shared fact; its id, key and pin stay. An update of that record by id, in one
        transaction with its audit entry: `before` is the value it replaced, and a fact deleted meanwhile
        answers as an unknown id, never written again. The same text again writes and records nothing.
        With `still`, only the version read is edited (checked under the row's lock): else `changed`."""
        record = await self._administered(actor, memory_id)
        if record is None:
            return AdminOutcome("not_found", NOT_ADMINISTERED)
        if still is not None and not still(record):
            return AdminOutcome("changed", CHANGED_MEANWHILE, record=record)
        checked = check_memory_input(record.key, text, max_fact_chars=self._config.max_fact_chars)
        if checked.error is not None:
            return AdminOutcome("invalid", checked.error)
        refusal = await self._refusal(actor, record.scope)
        if refusal:
            return AdminOutcome("refused", refusal)
        if checked.fact == record.text:  # saved unchanged: its date stays, and no edit is recorded
            return AdminOutcome("done", record=record)
        try:
            change = await restate(self._config, self._provider, self._audit, actor, record, checked.fact, still=still)
        except ChangedMeanwhileError as changed:
            return AdminOutcome("changed", CHANGED_MEANWHILE, record=changed.record)
        if change is None:  # deleted meanwhile: an edit never brings it back
            return AdminOutcome("not_found", NOT_ADMINISTERED)
        return AdminOutcome("done", record=change[1])

    async def retire(self, actor: Actor, memory_id: str, *, still: StillAsRead | None = None) -> AdminOutcome:
        """The administrative delete the personal page refuses. With `still`, only the version read is
        deleted (checked under the row's lock, the delete rolled back otherwise): else `changed`."""
        record = await self._may_change(actor, memory_id, still)
        if isinstance(record, AdminOutcome):
            return record
        try:
            async with self._provider.together():
                gone = await self._provider.retire_at(memory_id, scope=record.scope)
                if gone is None:
                    return AdminOutcome("not_found", NOT_ADMINISTERED)
                if still is not None and not still(gone):
                    raise ChangedMeanwhileError(gone)
                await self._audit.append(
                    who=actor.id, action="delete", scope=gone.scope, key=gone.key, before=_snapshot(gone)
                )
        except ChangedMeanwhileError as changed:
            return AdminOutcome("changed", CHANGED_MEANWHILE, record=changed.record)
        return AdminOutcome("done", record=gone)

    async def pin(
        self, actor: Actor, memory_id: str, *, pinned: bool, still: StillAsRead | None = None
    ) -> AdminOutcome:
        """Make a shared fact always on (or not). The outcome carries the scope's pin budget after the
        change, whose warning says when always-on facts would stop reaching prompts. The change and its
        audit entry are one transaction; a fact already so is left as it is, unrecorded; a fact deleted
        meanwhile answers as an unknown id. With `still`, only the version read is changed (checked under
        the row's lock): else `changed`."""
        record = await self._may_change(actor, memory_id, still)
        if isinstance(record, AdminOutcome):
            return record
        try:
            async with self._provider.together():
                change = await self._provider.repin(memory_id, scope=record.scope, pinned=pinned)
                if change is None:  # deleted meanwhile: nothing was pinned, and nothing is audited
                    return AdminOutcome("not_found", NOT_ADMINISTERED)
                before, updated = change
                if still is not None and not still(before):
                    raise ChangedMeanwhileError(before)
                if before.pinned != updated.pinned:  # already so (a second tab): nothing to record
                    await self._audit.append(
                        who=actor.id,
                        action="pin" if pinned else "unpin",
                        scope=updated.scope,
                        key=updated.key,
                        before=_snapshot(before),
                        after=_snapshot(updated),
                    )
        except ChangedMeanwhileError as changed:
            return AdminOutcome("changed", CHANGED_MEANWHILE, record=changed.record)
        at_scope = await self._provider.list(scopes=[record.scope], ctx=ScopeContext(actor=actor))
        budget = pin_budget(at_scope, scope=record.scope, max_memories=self._config.max_memories)
        return AdminOutcome("done", record=updated, budget=budget)

    async def promotion_targets(self, actor: Actor) -> tuple[str, ...]:
        """The wider scopes the actor may republish their own entries at (`promotion_targets`)."""
        return promotion_targets(actor, await self.administered_scopes(actor))

    async def _paused(self, person: Actor) -> bool:
        """Whether the person paused memory: their agent's digest then invites no `remember`."""
        controls = self._stores.controls if self._stores is not None else None
        return controls is not None and (await controls.controls_for(person)).paused

    async def promote(self, actor: Actor, memory_id: str, *, scope: str) -> AdminOutcome:
        """Republish one of the actor's own entries at a wider scope they administer. The new record is
        human-authored; its origin records who promoted it and from which memory (and keeps the
        conversation the fact was concluded in). The original stays, and still overrides it for them."""
        source = await self._provider.get(memory_id)
        if source is None or source.scope != own_scope(actor):
            return AdminOutcome("not_found", "There is no memory of yours with that id to publish.")
        refusal = await self._refusal(actor, scope)
        if refusal:
            return AdminOutcome("refused", refusal)
        # Held to the rules of any write: a note stored before them is checked again, not copied blindly.
        checked = check_memory_input(source.key, source.text, max_fact_chars=self._config.max_fact_chars)
        problem = checked.error or await lookalike_key_refusal(
            self._provider, key=checked.key, scope=scope, ctx=ScopeContext(actor)
        )
        if problem is not None:
            return AdminOutcome("invalid", problem)
        origin = MemoryOrigin(
            "human",
            thread_id=source.origin.thread_id,
            run_id=source.origin.run_id,
            actor_ref=actor.id,
            promoted_from=source.id,
        )
        record = await self._replace_audited(
            actor, scope, checked.key, checked.fact, origin, action="promote", promoted_from=source
        )
        return AdminOutcome("done", record=record)

    async def preview(
        self, viewer: Actor, person_id: str, *, thread_id: str | None, text: str
    ) -> Preview | PreviewRefusal:
        """The block the agent API would return for the person `person_id` and `text`, byte for byte,
        with what was left out and why. The person is taken as OnFile knows them (their organisation
        and roles as last seen), never as a caller describes them, and must be one `viewer` may preview
        (`may_preview_person`); anyone else is `unknown`, exactly like an id never seen. Read-only:
        nothing is written or journaled; the look itself is audited where those who oversee it read
        (`preview_audit_scopes`)."""
        if not await self._gate.may_preview(viewer):
            return "forbidden"
        person = await self._people.find(person_id)
        if person is None or not may_preview_person(viewer, person, all_organisations=self._support_everywhere):
            return "unknown"
        ctx = ScopeContext(actor=person, thread_id=thread_id)
        digest, candidates = await select_for_turn(self._config, ctx, text)
        block = build_memory_block(digest, writable=self._config.writable and not await self._paused(person))
        everything = await memories_on_file(self._config, ctx)
        theirs = own_scope(person)
        own = [e.record.id for e in everything.entries if e.scope == theirs]
        now = datetime.now(UTC)
        expired = {id for id, at in (await self._provider.expiries(own, ctx=ctx)).items() if is_expired(at, now)}
        left_out = tuple(entries_left_out(everything, digest, candidates, expired_ids=expired))
        looked_at = {"actor": {"id": person.id, "tenantRef": person.tenant_ref, "roles": list(person.roles)}}
        async with self._provider.together():
            for scope in preview_audit_scopes(viewer, person):
                await self._audit.append(
                    who=viewer.id, action="preview", scope=scope, key=None, after=looked_at, subject=person.id
                )
        return Preview(person, digest, block, left_out)

    async def people_to_preview(self, viewer: Actor, *, limit: int = PEOPLE_SHOWN) -> Seen:
        """The people `viewer` may preview, most recently seen first, at most `limit` (`more` says when
        there are others), with their names: those of their own organisation, or everyone when support
        answers for every organisation; nobody for someone not in support."""
        if not await self._gate.may_preview(viewer):
            return Seen(people=())
        if self._support_everywhere:
            found = await self._people.of_organisations((), everyone=True, limit=limit + 1)
        elif viewer.tenant_ref is None:
            return Seen(people=())
        else:
            found = await self._people.of_organisations([viewer.tenant_ref], limit=limit + 1)
        listed = found[:limit]
        return Seen(
            people=tuple(p for p, _ in listed),
            more=len(found) > limit,
            names={p.id: name for p, name in listed if name is not None},
        )

    async def may_erase(self, actor: Actor, person: Actor) -> bool:
        """A tenant administrator of the person's organisation, or a global administrator."""
        tenant = f"tenant:{person.tenant_ref}" if person.tenant_ref else None
        if tenant and await self._gate.administers(actor, tenant):
            return True
        return await self._gate.administers(actor, "global")

    async def erasable_people(self, actor: Actor, *, sought: str | None = None, limit: int = PEOPLE_SHOWN) -> Seen:
        """The people seen that `actor` may erase, most recently seen first, at most `limit`: everyone
        for a global administrator, otherwise the people of the organisations they administer. Their
        organisations are chosen in the query, before the limit, so nobody drops out of reach because
        others were seen since; `sought` looks for people by id or name."""
        administered = await self.administered_scopes(actor)
        tenants = [scope.removeprefix("tenant:") for scope in administered if scope.startswith("tenant:")]
        everyone = await self._gate.administers(actor, "global")
        found = await self._people.of_organisations(tenants, everyone=everyone, sought=sought, limit=limit + 1)
        shown = [(p, name) for p, name in found[:limit] if await self.may_erase(actor, p)]
        names = {p.id: name for p, name in shown if name is not None}
        return Seen(people=tuple(p for p, _ in shown), more=len(found) > limit, names=names)

    async def erasable_person(self, actor: Actor, person_id: str) -> Actor | None:
        """The person seen with that id, when `actor` may erase them (`may_erase` decides); None for
        anyone else, never seen, or erased already."""
        person = await self._people.find(person_id)
        return person if person is not None and await self.may_erase(actor, person) else None

    async def own_memory_count(self, person: Actor) -> int:
        """How many memories are held at the person's own scope (what an erasure would remove)."""
        return len(await self._provider.list(scopes=[own_scope(person)], ctx=ScopeContext(actor=person)))

    async def waiting_count(self, person: Actor) -> int:
        """How many notes wait for the person's approval (what an erasure would remove with their memories)."""
        if self._stores is None or self._stores.controls is None:
            return 0
        return await self._stores.controls.waiting_count(person.id)

    async def erase_person(self, actor: Actor, person: Actor) -> Erasure | None:
        """Remove a person: their own-scope memories and the notes waiting for their approval (and their
        pause), their journaled digests and remember outcomes, their conversation-registry rows, their
        sessions and the record of having seen them; drop the values from earlier audit entries about
        their own scope. The trail keeps that the erasure happened, by whom and when (at their
        organisation's scope, where its administrators see it). None when `actor` may not erase them:
        the attempt is audited then, about the person, so they see who tried and for which
        organisation, where their organisation's and global administrators see it."""
        if self._stores is None:
            return None
        if not await self.may_erase(actor, person):
            # where the person's administrators (and global ones) see it, never in the trail of the one
            # who tried: there the entry would tell whether the id is a person, and where
            tried = {"person": person.id, "tenantRef": person.tenant_ref, "for": actor.tenant_ref}
            scopes = [GLOBAL_SCOPE, *([f"tenant:{person.tenant_ref}"] if person.tenant_ref else [])]
            async with self._provider.together():
                for scope in scopes:
                    await self._audit.append(
                        who=actor.id, action="erase-refused", scope=scope, key=None, subject=person.id, after=tried
                    )
            return None
        own = own_scope(person)
        removed = await self._provider.removal(own)
        erasure = Erasure(
            person=person.id,
            memories=await self._provider.retire_scope(own),
            checkpoints=await self._stores.journal.erase_actor(person.id),
            conversations=await self._stores.registry.erase_actor(person.id),
            sessions=await self._stores.sessions.delete_for_actor(person.id),
        )
        waiting = await self._stores.controls.erase_person(person.id) if self._stores.controls is not None else 0
        await self._people.forget(person.id)
        if self._stores.stash is not None:
            await self._stores.stash.erase_owner(own)
        removal = Removal(
            memories=erasure.memories,
            vectors=removed.vectors,
            index_entries=removed.index_entries,
            audit_redacted=await self._audit.redact_scope(own),
            journal_removed=erasure.checkpoints,
            waiting=waiting,
            conversations=erasure.conversations,
            sessions=erasure.sessions,
        )
        now = datetime.now(UTC)
        receipt = deletion_receipt("erasure", person.id, now, removal, retention_hours=0)
        erasure = replace(erasure, receipt=receipt, waiting=waiting)
        await self._audit.append(
            who=actor.id,
            action="erase",
            scope=f"tenant:{person.tenant_ref}" if person.tenant_ref else "global",
            key=None,
            subject=person.id,
            after={
                "person": person.id,
                "memories": erasure.memories,
                "checkpoints": erasure.checkpoints,
                "conversations": erasure.conversations,
                "sessions": erasure.sessions,
            },
        )
        return erasure

    async def signed_in(self, person: Actor, *, name: str | None = None) -> bool:
        """Note a person who signed in (under `name`, when their ID token gave one), with the
        organisation their identity provider states: the one way besides `move_person` that a person
        changes organisation, audited at both. Whether their organisation or roles changed since OnFile
        last knew them (false for someone new)."""
        known = await self._people.find(person.id)
        async with self._provider.together():
            await self._people.note(person, signed_in=True, name=name)
            if known is not None and known.tenant_ref != person.tenant_ref:
                await self._audit_move(person.id, person.id, known.tenant_ref, person.tenant_ref, by="sign-in")
                await self._provider.reset_expiry_of(person)
        return known is not None and (known.tenant_ref, set(known.roles)) != (person.tenant_ref, set(person.roles))

    async def move_person(self, by: str, person_id: str, tenant_ref: str | None) -> Actor | None:
        """Record the person `person_id` in the organisation `tenant_ref` (None: none), audited as done by
        `by` at the organisation they leave and the one they join; the person as they now are, or None
        when nobody by that id is known. Their own memories go with them, what the assistant concluded
        under the lifetime of the organisation they join; memories their former organisation shared
        stop applying to them. For a deployment's operators (`onfile people move`)."""
        known = await self._people.find(person_id)
        if known is None:
            return None
        moved = Actor(id=known.id, tenant_ref=tenant_ref, roles=known.roles)
        if known.tenant_ref != tenant_ref:
            async with self._provider.together():
                await self._people.note(moved, signed_in=True)
                await self._audit_move(by, person_id, known.tenant_ref, tenant_ref, by="operator")
                await self._provider.reset_expiry_of(moved)
        return moved

    async def _audit_move(self, who: str, person: str, left: str | None, joined: str | None, *, by: str) -> None:
        after = {"person": person, "from": left, "to": joined, "by": by}
        for tenant in dict.fromkeys((left, joined)):
            scope = f"tenant:{tenant}" if tenant is not None else GLOBAL_SCOPE
            await self._audit.append(who=who, action="move", scope=scope, key=None, after=after, subject=person)

    async def audit_entries(self, actor: Actor, *, limit: int | None = None) -> list[AuditEntry]:
        """The trail of the scopes the actor administers, newest first."""
        return await self._audit.at_scopes(await self.administered_scopes(actor), limit=limit)

    async def _refusal(self, actor: Actor, scope: str) -> str | None:
        """Why `actor` may not act at `scope` here, or None. The write verdict decides, and the elevated
        area acts only at scopes the person administers: their own scope, always theirs to write, is
        refused here too, so its facts stay out of the trail (a person's own forgets are not audited)."""
        elevated = await self._gate.administers(actor, scope)
        verdict = memory_write_verdict(
            scope=scope, actor=actor, scopes=await self.resolved_scopes(actor), author="human", elevated=elevated
        )
        if not verdict.allowed:
            return verdict.reason
        if not elevated:
            return (
                f"Writing at {scope} here needs someone who administers it; {actor.id} does not. "
                "Your own notes are kept on your own page."
            )
        return None

    async def _may_change(
        self, actor: Actor, memory_id: str, still: StillAsRead | None = None
    ) -> MemoryRecord | AdminOutcome:
        """The shared fact `actor` may change (and, with `still`, still the version read), or the outcome
        that says why not."""
        record = await self._administered(actor, memory_id)
        if record is None:
            return AdminOutcome("not_found", NOT_ADMINISTERED)
        if still is not None and not still(record):
            return AdminOutcome("changed", CHANGED_MEANWHILE, record=record)
        refusal = await self._refusal(actor, record.scope)
        return AdminOutcome("refused", refusal) if refusal else record

    async def _administered(self, actor: Actor, memory_id: str) -> MemoryRecord | None:
        record = await self._provider.get(memory_id)
        if record is None or record.scope not in await self.administered_scopes(actor):
            return None
        return record

    async def _replace_audited(
        self,
        actor: Actor,
        scope: str,
        key: str,
        text: str,
        origin: MemoryOrigin,
        *,
        action: AuditAction,
        promoted_from: MemoryRecord | None = None,
    ) -> MemoryRecord:
        """Write (scope, key) as `actor` and audit it in the same transaction, `before` being the value
        the write replaced (read under its lock); a promotion's entry also names its source."""
        await prepare_write(self._config, key, text)
        async with self._provider.together():
            before, record = await self._provider.replace(
                key=key, text=text, scope=scope, origin=origin, ctx=ScopeContext(actor=actor)
            )
            after = _snapshot(record) or {}
            if promoted_from is not None:
                after["promotedFrom"] = _snapshot(promoted_from)
            await self._audit.append(
                who=actor.id, action=action, scope=scope, key=record.key, before=_snapshot(before), after=after
            )
        return record


def _snapshot(record: MemoryRecord | None) -> dict[str, Any] | None:
    return None if record is None else record_to_json(record)
