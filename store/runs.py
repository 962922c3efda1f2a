"""Runs: a turn's memory resolved once, journaled, and replayed byte for byte; `remember` once per call.

The digest is the run's `memory:digest` checkpoint: the scopes the resolver returned, the entries that
survived selection (with any search run inside it), the rendered block and the tools. Every later
call for the run reads it back, so a replay sees the same prompt even if memories, the index or the
actor's memberships changed meanwhile. It is also the authorisation boundary: `remember` is checked
against the recorded scopes. A remember call is journaled at `tool:<call id>`, and its write happens
inside that checkpoint, so a retry or replay returns the recorded outcome instead of writing again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec

from store.diagnostics import MemoryResolved
from store.domain.controls import MemoryControls, RememberAdmission, remember_admission
from store.domain.recent import Recent
from store.domain.types import Actor, MemoryDigest, ScopeContext
from store.domain.wire import DigestWire, RememberWire, digest_of, digest_wire, run_digest_wire
from store.memory import (
    MemoryConfig,
    PendingHolder,
    WriteOutcome,
    hold_memory,
    prepare_turn,
    prepare_write,
    write_memory,
)

__all__ = (
    "DIGEST_POSITION",
    "RECENT_ANSWERS",
    "AnsweredRun",
    "Journal",
    "MemoryRuns",
    "PeopleSeen",
    "PersonInAnotherOrganisationError",
    "RecordedRun",
    "RememberCallMismatchError",
    "RunActorMismatchError",
    "RunMemory",
    "RunNotStartedError",
    "RunRegistry",
    "offered",
    "remember_position",
)

DIGEST_POSITION = "memory:digest"

RECENT_ANSWERS = 512
"""How many runs `MemoryRuns` keeps the checkpoint text and answer of, by default (`recent_answers=`):
the runs a process is serving steps of at once, with room. Each costs about twice its answer's size
(some 26 KB for an answer of twenty long memories)."""


def remember_position(call_id: str) -> str:
    return f"tool:{call_id}"


class Journal(Protocol):
    """What `MemoryRuns` asks of a journal, as it asks it: each call says whom the run is for, and whether
    it computes exclusively or what is written alongside. Defaults a journal offers others are its own."""

    async def checkpoint(
        self,
        run_id: str,
        position: str,
        compute: Callable[[], Awaitable[Any]],
        *,
        actor_id: str,
        exclusive: bool,
    ) -> Any: ...

    async def stored_json(self, run_id: str, position: str) -> str | None: ...

    async def store_json(
        self,
        run_id: str,
        position: str,
        payload: str,
        *,
        actor_id: str,
        alongside: Callable[[], Awaitable[None]],
    ) -> tuple[bool, str]: ...


class RunRegistry(Protocol):
    async def register_run(self, run_id: str, thread_id: str, actor_id: str) -> None: ...


class PeopleSeen(Protocol):
    async def note(self, actor: Actor) -> None: ...

    async def find(self, person: str) -> Actor | None: ...

    async def find_with_pause(self, person: str) -> tuple[Actor | None, bool]:
        """The person as last seen, and whether they paused memory, in one read."""
        ...


class ControlSource(PendingHolder, Protocol):
    """Where a person's pause and their organisation's approval setting are read, and where a note
    waiting for approval is kept."""

    async def controls_for(self, person: Actor) -> MemoryControls: ...


class RunNotStartedError(LookupError):
    """`remember` for a run whose digest was never resolved."""

    def __init__(self, run_id: str) -> None:
        super().__init__(f"Run {run_id} has no memory digest yet: resolve the run's digest before calling remember.")


class RunActorMismatchError(ValueError):
    """A later call for a run names a different actor than the one it was resolved for."""

    def __init__(self, run_id: str, recorded: str, asked: str) -> None:
        super().__init__(f"Run {run_id} was resolved for actor {recorded}, not {asked}.")


class PersonInAnotherOrganisationError(ValueError):
    """A new run names a person OnFile knows in another organisation than the call says. An agent call
    never moves a person: that is their sign-in's say (the identity provider's claim) or an audited
    operator's act (onfile people move), so the run is refused and nothing is resolved, journaled or noted."""

    def __init__(self, person: str, known: str | None, asked: str | None) -> None:
        def named(tenant: str | None) -> str:
            return f"organisation {tenant}" if tenant is not None else "no organisation"

        super().__init__(
            f"{person} is known in {named(known)}, but this call names {named(asked)}: an agent call cannot move "
            "a person between organisations, so nothing was resolved or written. Send the organisation OnFile "
            "knows; a real move is made by the person signing in, or by an operator (onfile people move)."
        )
        self.person = person
        self.known = known
        self.asked = asked


class RememberCallMismatchError(ValueError):
    """A remember call id already carried out with other arguments: a retry sends the same ones, so
    this is a different call under a reused id, and answering the first call's outcome would tell the
    model a fact was saved that was not."""

    def __init__(self, run_id: str, call_id: str) -> None:
        super().__init__(
            f"Call {call_id} of run {run_id} was already carried out with another key or fact; nothing was "
            "written. Give each remember call its own callId."
        )


class RecordedActor(msgspec.Struct, rename="camel", frozen=True):
    id: str
    tenant_ref: str | None
    roles: list[str]


class RecordedRun(msgspec.Struct, rename="camel", frozen=True):
    """The `memory:digest` checkpoint as stored: the run's actor and thread, its digest in the one wire
    shape (`store.domain.wire.DigestWire`), the block and the tools. A replay decodes the stored JSON
    text straight into it and a new run encodes it once. The API's answer is made from it the same way
    on both paths (`AnsweredRun`), so a replay's answer is byte-identical to the first one."""

    actor: RecordedActor
    thread_id: str | None
    digest: DigestWire
    block: str
    writable: bool
    tools: list[dict[str, Any]]

    def to_run_memory(self, run_id: str) -> RunMemory:
        actor = self.actor
        return RunMemory(
            run_id=run_id,
            actor=Actor(id=actor.id, tenant_ref=actor.tenant_ref, roles=tuple(actor.roles)),
            thread_id=self.thread_id,
            digest=digest_of(self.digest),
            block=self.block,
            writable=self.writable,
            tools=tuple(self.tools),
        )


class _JournaledRemember(RememberWire, frozen=True):
    """A remember call's outcome as journaled: with the fingerprint of its arguments, which an outcome
    journaled before fingerprints were kept does not have."""

    arguments: str | None = None


class _OfferedEntry(msgspec.Struct, frozen=True):
    id: str


class _OfferedDigest(msgspec.Struct, frozen=True):
    entries: list[_OfferedEntry] = msgspec.field(default_factory=list)


class _Offered(msgspec.Struct, rename="camel", frozen=True):
    thread_id: str | None = None
    digest: _OfferedDigest = msgspec.field(default_factory=_OfferedDigest)


_decode_offered = msgspec.json.Decoder(_Offered).decode


def offered(stored: str) -> tuple[str | None, frozenset[str]]:
    """From a `memory:digest` checkpoint's JSON text: the run's thread, and the ids of the memories
    its prompt was offered (decoding nothing else). A checkpoint of another shape offered nothing:
    pruning, which counts what runs were offered, never stops at one."""
    try:
        run = _decode_offered(stored)
    except msgspec.DecodeError:
        return None, frozenset()
    return run.thread_id, frozenset(entry.id for entry in run.digest.entries)


_decode_recorded = msgspec.json.Decoder(RecordedRun).decode
_encode = msgspec.json.Encoder().encode
_sorted_encode = msgspec.json.Encoder(order="sorted").encode
_decode_tools = msgspec.json.Decoder(list[dict[str, Any]]).decode


class AnsweredRun:
    """A run's checkpoint as read (or stored), and the agent API's answer for it: `run_digest_wire` of
    its digest, block, writable and tools, as JSON bytes, made on first use and then kept.

    The answer is made from the checkpoint alone, so the first call and every replay answer the same
    bytes. The tools' keys are put in one order first: PostgreSQL's jsonb keeps an object's keys in an
    order of its own, and the answer must not depend on where the run was stored. Once the answer is
    made, the decoded run is let go (it is decoded again if asked for): what `MemoryRuns` keeps of a
    recent run is its text and its answer."""

    __slots__ = ("_answer", "_recorded", "actor_id", "stored")

    def __init__(self, stored: str, recorded: RecordedRun) -> None:
        self.stored = stored
        self.actor_id = recorded.actor.id
        self._recorded: RecordedRun | None = recorded
        self._answer: bytes | None = None

    @classmethod
    def read(cls, stored: str) -> AnsweredRun:
        return cls(stored, _decode_recorded(stored))

    @property
    def recorded(self) -> RecordedRun:
        return self._recorded if self._recorded is not None else _decode_recorded(self.stored)

    @property
    def answer(self) -> bytes:
        if self._answer is None:
            run = self.recorded
            tools = _decode_tools(_sorted_encode(run.tools))
            self._answer = _encode(run_digest_wire(run.digest, block=run.block, writable=run.writable, tools=tools))
            self._recorded = None
        return self._answer


@dataclass(frozen=True, slots=True)
class RunMemory:
    """A run's recorded memory: what the model is shown on every step and every replay of the run."""

    run_id: str
    actor: Actor
    thread_id: str | None
    digest: MemoryDigest
    block: str
    writable: bool
    tools: tuple[dict[str, Any], ...]


class MemoryRuns:
    """Journaled memory for runs, over one journal and one conversation registry."""

    def __init__(
        self,
        config: MemoryConfig,
        journal: Journal,
        registry: RunRegistry,
        people: PeopleSeen | None = None,
        controls: ControlSource | None = None,
        *,
        recent_answers: int = RECENT_ANSWERS,
    ) -> None:
        self._config = config
        self._journal = journal
        self._registry = registry
        self._people = people
        self._controls = controls
        self._recent: Recent[str, str, AnsweredRun] = Recent(recent_answers, setting="recent_answers")

    async def begin(self, run_id: str, *, actor: Actor, thread_id: str | None, text: str) -> RunMemory:
        """The run's memory: resolved, searched with `text`, rendered and registered with its thread on
        the first call; read back unchanged on every later one. Raises `RunActorMismatchError` when a
        later call names another actor (a different id: the same person with changed memberships is the
        same actor, and gets the recorded digest)."""
        return (await self.begin_recorded(run_id, actor=actor, thread_id=thread_id, text=text)).to_run_memory(run_id)

    async def begin_recorded(self, run_id: str, *, actor: Actor, thread_id: str | None, text: str) -> RecordedRun:
        """`begin`, answering the checkpoint as stored."""
        return (await self.begin_answered(run_id, actor=actor, thread_id=thread_id, text=text)).recorded

    async def begin_answered(self, run_id: str, *, actor: Actor, thread_id: str | None, text: str) -> AnsweredRun:
        """`begin`, with the agent API's answer: what the agent API serves.

        A replay is one journal read. When the text read is the very text the last call for the run
        read or stored (for the last `recent_answers` runs asked), it is the same `AnsweredRun`, its
        answer already made; otherwise it is decoded once. A new run resolves outside any transaction (the
        search may be slow), then stores the checkpoint, registers the run with its thread and notes the
        person in ONE write transaction — or, when a racer stored first, takes the racer's checkpoint
        and writes nothing. A new run naming a person known in another organisation is
        `PersonInAnotherOrganisationError`, before anything is resolved."""
        stored = await self._journal.stored_json(run_id, DIGEST_POSITION)
        if stored is None:
            paused = None
            if self._people is not None:
                known, paused = await self._people.find_with_pause(actor.id)
                if known is not None and known.tenant_ref != actor.tenant_ref:
                    raise PersonInAnotherOrganisationError(actor.id, known.tenant_ref, actor.tenant_ref)
            recorded, resolved = await self._resolve(run_id, actor, thread_id, text, paused)

            async def alongside() -> None:
                if thread_id:
                    await self._registry.register_run(run_id, thread_id, actor.id)
                if self._people is not None:
                    await self._people.note(actor)

            payload = _encode(recorded).decode()
            won, stored = await self._journal.store_json(
                run_id, DIGEST_POSITION, payload, actor_id=actor.id, alongside=alongside
            )
            if won:  # a racer that lost resolved nothing anyone will see: it is not counted
                self._config.diagnostics.publish(resolved)
                answered = AnsweredRun(stored, recorded)
            else:
                answered = AnsweredRun.read(stored)
            self._recent.keep(run_id, stored, answered)
        else:
            kept = self._recent.same(run_id, stored)
            if kept is None:
                kept = AnsweredRun.read(stored)
                self._recent.keep(run_id, stored, kept)
            answered = kept
        if answered.actor_id != actor.id:
            raise RunActorMismatchError(run_id, answered.actor_id, actor.id)
        return answered

    async def _resolve(
        self, run_id: str, actor: Actor, thread_id: str | None, text: str, paused: bool | None
    ) -> tuple[RecordedRun, MemoryResolved]:
        """A new run's digest. For a person who paused memory (`paused`, when already read), the run
        is not writable: no `remember` is offered or invited, and a call the model makes anyway is
        refused, even after they resume (which takes effect from their next run)."""
        ctx = ScopeContext(actor=actor, thread_id=thread_id)
        writes = True
        if self._config.writable and self._controls is not None:
            writes = not (paused if paused is not None else (await self._controls.controls_for(actor)).paused)
        turn, resolved = await prepare_turn(self._config, ctx, run_id=run_id, query=text, writes=writes)
        who = RecordedActor(actor.id, actor.tenant_ref, list(actor.roles))
        digest = digest_wire(turn.digest)
        writable = self._config.writable and writes
        return RecordedRun(who, thread_id, digest, turn.block, writable, list(turn.tools)), resolved

    async def recorded(self, run_id: str) -> RunMemory:
        """The run's recorded memory; `RunNotStartedError` when it has none."""
        stored = await self._journal.stored_json(run_id, DIGEST_POSITION)
        if stored is None:
            raise RunNotStartedError(run_id)
        return _decode_recorded(stored).to_run_memory(run_id)

    async def remember(self, run_id: str, *, call_id: str, key: str, fact: str) -> WriteOutcome:
        """Carry out the model's `remember` call `call_id` once; a retry or replay gets the recorded
        outcome. The same call id with another key or fact is `RememberCallMismatchError`.

        What the call may do is decided when it is first carried out (`remember_admission`): written,
        held for the person's approval, or refused because they paused memory (now, or when the run
        began: its digest was not writable, and resuming does not make it so). That decision is part of
        the journaled outcome, so a replay answers it again even after the person resumed. The person's
        controls are read before the exclusive checkpoint opens its transaction, as the embedding is
        made: a read on a second pooled connection while that transaction holds one would starve the
        pool when many calls race for one position."""
        run = await self.recorded(run_id)
        arguments = _arguments_fingerprint(key, fact)
        await prepare_write(self._config, key, fact)
        admission = await self._admission(run.actor, begun_while_paused=self._config.writable and not run.writable)

        async def execute() -> dict[str, Any]:
            ctx = ScopeContext(actor=run.actor, thread_id=run.thread_id)
            if admission.route == "refuse":
                outcome = WriteOutcome(ok=False, error=admission.reason)
            elif admission.route == "hold" and self._controls is not None:
                outcome = await hold_memory(
                    self._config, run.digest, self._controls, key=key, fact=fact, ctx=ctx, run_id=run_id
                )
            else:
                outcome = await write_memory(self._config, run.digest, key=key, fact=fact, ctx=ctx, run_id=run_id)
            return {**msgspec.to_builtins(outcome.to_wire()), "arguments": arguments}

        position = remember_position(call_id)
        # exclusive: a write must happen once, even when replays of one call race (on any process).
        outcome = await self._journal.checkpoint(run_id, position, execute, actor_id=run.actor.id, exclusive=True)
        # an outcome journaled before fingerprints were kept has none, and is answered as it is
        if outcome.get("arguments", arguments) != arguments:
            raise RememberCallMismatchError(run_id, call_id)
        return WriteOutcome.from_wire(msgspec.convert(outcome, _JournaledRemember))

    async def _admission(self, person: Actor, *, begun_while_paused: bool) -> RememberAdmission:
        if self._controls is None:
            return RememberAdmission("write")
        return remember_admission(await self._controls.controls_for(person), begun_while_paused=begun_while_paused)


def _arguments_fingerprint(key: str, fact: str) -> str:
    """What identifies a call's arguments in its journaled outcome, without a second copy of the fact."""
    encoded = f"{len(key)}:{key}{fact}".encode("utf-8", "surrogatepass")  # a model's text may hold anything
    return hashlib.blake2b(encoded, digest_size=16, person=b"onfile-remember").hexdigest()
