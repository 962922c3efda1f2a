"""Memory for one turn: resolve the scopes, read or search the provider, decide, render, write.

This module sequences the I/O (the resolver and the provider) around the pure rules in
`store.domain`; it decides nothing itself.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, cast, runtime_checkable

from store.diagnostics import DIAGNOSTICS, Diagnostics, MemoryResolved, MemoryWritten
from store.domain.authority import memory_forget_verdict, memory_restore_verdict, memory_write_verdict
from store.domain.block import build_memory_block
from store.domain.controls import WAITING_FOR_APPROVAL, PendingMemory
from store.domain.lookalikes import lookalike_key_problem, may_read_like_another, same_looking_key
from store.domain.precedence import DEFAULT_MAX_MEMORIES, resolve_digest, resolve_recalled, resolve_shortlist
from store.domain.relevance import query_words
from store.domain.remember import DEFAULT_MAX_FACT_CHARS, MemoryInput, check_memory_input, remember_tool
from store.domain.scopes import DefaultScopeResolver, ScopeResolver, normalise_scopes, own_scope
from store.domain.types import MemoryDigest, MemoryOrigin, MemoryRecord, ScopeContext, Shortlist
from store.domain.wire import RememberWire, pending_of, pending_wire, record_of, record_wire
from store.provider import (
    MemoryProvider,
    PreparingMemoryProvider,
    RecallingMemoryProvider,
    SearchableMemoryProvider,
    ShortlistingMemoryProvider,
    WritableMemoryProvider,
    WriteRefusedError,
)

__all__ = (
    "BulkForgettingProvider",
    "ForgetOutcome",
    "MemoryConfig",
    "PendingHolder",
    "RestoreOutcome",
    "TurnMemory",
    "WriteOutcome",
    "forget_all_memories",
    "forget_memory",
    "hold_memory",
    "lookalike_key_refusal",
    "memories_on_file",
    "memory_for_turn",
    "offer_memories",
    "prepare_turn",
    "prepare_write",
    "records_on_file",
    "related_keys",
    "restore_memory",
    "scopes_on_file",
    "select_for_turn",
    "write_memory",
)


DEFAULT_RECENT_TURNS = 128


class RecentTurns:
    """The decision and block of the last listed turn at each set of scopes, for as many sets as `size`
    (the least recently asked go first).

    Most turns are one more turn of a conversation whose memories have not changed since the last one.
    The rules and the block are pure, so when a listed turn's shortlist equals the one the last turn
    at the same scopes read, its digest and block are that turn's, and the turn costs its read and a
    comparison instead of the rules (about half of what a listed turn of twenty memories costs past its
    read). The comparison is of everything read — every record's text, time, origin and pin, and the
    totals — so a changed, added, forgotten or expired memory is a different shortlist and the rules
    run; a hit is never a guess. Searched and recalled turns, which depend on the turn's words, are
    not kept."""

    __slots__ = ("_kept", "_size")

    def __init__(self, size: int) -> None:
        self._size = size
        self._kept: OrderedDict[tuple[str, ...], tuple[Shortlist, MemoryDigest, str | None]] = OrderedDict()

    def digest(self, scopes: tuple[str, ...], shortlist: Shortlist) -> MemoryDigest | None:
        """The digest the last turn at `scopes` decided, if it read the same shortlist."""
        kept = self._kept.get(scopes)
        if kept is None or kept[0] != shortlist:
            return None
        self._kept.move_to_end(scopes)
        return kept[1]

    def keep(self, scopes: tuple[str, ...], shortlist: Shortlist, digest: MemoryDigest) -> None:
        """Remember the digest decided from `shortlist` at `scopes` (its block follows, `keep_block`)."""
        if self._size == 0:
            return
        self._kept[scopes] = (shortlist, digest, None)
        self._kept.move_to_end(scopes)
        if len(self._kept) > self._size:
            self._kept.popitem(last=False)

    def block(self, digest: MemoryDigest) -> str | None:
        """The block rendered for this very digest, when it is the one kept (and was rendered)."""
        kept = self._kept.get(digest.scopes)
        return kept[2] if kept is not None and kept[1] is digest else None

    def keep_block(self, digest: MemoryDigest, block: str) -> None:
        """Remember the block of `digest`, when it is the one kept; another digest is not kept."""
        kept = self._kept.get(digest.scopes)
        if kept is not None and kept[1] is digest:
            self._kept[digest.scopes] = (kept[0], digest, block)


@dataclass(frozen=True, slots=True)
class MemoryConfig:
    """Memory switched on: a provider, the one scope resolver, and the two numbers that bound the
    block (`max_memories` lines, each at most `max_fact_chars` characters when written)."""

    provider: MemoryProvider
    scopes: ScopeResolver = field(default_factory=DefaultScopeResolver)
    max_memories: int = DEFAULT_MAX_MEMORIES
    max_fact_chars: int = DEFAULT_MAX_FACT_CHARS
    diagnostics: Diagnostics = DIAGNOSTICS
    recent_turns: int = DEFAULT_RECENT_TURNS
    """How many people's last listed turns are remembered (`RecentTurns`); 0 remembers none."""
    _writable: bool = field(init=False, repr=False, compare=False)
    _shortlists: bool = field(init=False, repr=False, compare=False)
    _recalls: bool = field(init=False, repr=False, compare=False)
    _recent: RecentTurns = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.max_memories < 1:
            msg = f"max_memories must be at least 1, not {self.max_memories}"
            raise ValueError(msg)
        if self.max_fact_chars < 1:
            msg = f"max_fact_chars must be at least 1, not {self.max_fact_chars}"
            raise ValueError(msg)
        if self.recent_turns < 0:
            msg = f"recent_turns cannot be negative, not {self.recent_turns}"
            raise ValueError(msg)
        # Asked on every turn, and a runtime Protocol check costs microseconds: decided once per config.
        object.__setattr__(self, "_writable", isinstance(self.provider, WritableMemoryProvider))
        object.__setattr__(self, "_shortlists", isinstance(self.provider, ShortlistingMemoryProvider))
        object.__setattr__(self, "_recalls", isinstance(self.provider, RecallingMemoryProvider))
        object.__setattr__(self, "_recent", RecentTurns(self.recent_turns))

    @property
    def writable(self) -> bool:
        """Whether the provider can store what the model concludes (and so whether `remember` is offered)."""
        return self._writable

    def tools(self) -> tuple[dict[str, Any], ...]:
        """The tool definitions a turn offers: `remember` when the provider can write, nothing otherwise."""
        return (remember_tool(self.max_fact_chars),) if self.writable else ()


@dataclass(frozen=True, slots=True)
class TurnMemory:
    """What one turn is given: the digest (the decision), the block (its rendering) and the tools."""

    digest: MemoryDigest
    block: str
    tools: tuple[dict[str, Any], ...]


@dataclass(frozen=True, slots=True)
class WriteOutcome:
    """The result of a `remember` call: the stored record, or an error the model can act on."""

    ok: bool
    record: MemoryRecord | None = None
    error: str | None = None
    pending: PendingMemory | None = None
    """Set instead of `record` when the note waits for the person's approval (`store.domain.controls`)."""

    def to_wire(self) -> RememberWire:
        if self.ok and self.record is not None:
            return RememberWire(ok=True, record=record_wire(self.record))
        if self.ok and self.pending is not None:
            held = pending_wire(self.pending, WAITING_FOR_APPROVAL)
            return RememberWire(ok=True, pending=held)
        return RememberWire(ok=False, error=self.error)

    @classmethod
    def from_wire(cls, wire: RememberWire) -> WriteOutcome:
        if wire.ok and wire.record is not None:
            return cls(ok=True, record=record_of(wire.record))
        if wire.ok and wire.pending is not None:
            return cls(ok=True, pending=pending_of(wire.pending))
        return cls(ok=False, error=wire.error)


async def offer_memories(config: MemoryConfig, ctx: ScopeContext, query: str | None = None) -> MemoryDigest:
    """The digest for a turn. When every applicable key fits under the ceiling, the block holds them
    all, whatever the turn says, and claims no selection. Otherwise, when the `query` (the person's
    turn text) holds a word, the provider chooses: by `recall` (words and meaning, always filling the
    ceiling) where it can, else by `search`; a turn with no word is listed (a provider that can
    shortlists instead: the same digest, reading only the keys the block holds). Records returned
    outside the resolved scopes are dropped: a backstop, never the boundary."""
    digest, _ = await select_for_turn(config, ctx, query)
    return digest


async def select_for_turn(
    config: MemoryConfig, ctx: ScopeContext, query: str | None = None
) -> tuple[MemoryDigest, tuple[str, ...] | None]:
    """`offer_memories`, and the keys a search returned as candidates (None when nothing was chosen):
    what the preview needs to tell "not relevant" from "over the budget"."""
    scopes = normalise_scopes(await config.scopes.resolve(ctx))
    if not scopes:
        return MemoryDigest(scopes=()), None
    text = (query or "").strip()
    provider = config.provider
    limit = config.max_memories
    # a turn with no word in it (only punctuation or emoji) has nothing to rank by: it is listed, and
    # its block does not claim a selection was made
    if text and query_words(text):
        if config._recalls:  # decided once, in __post_init__
            recall = await cast(RecallingMemoryProvider, provider).recall(
                scopes=scopes, query=text, limit=limit, ctx=ctx
            )
            if not recall.ranked:
                return resolve_digest(recall.records, scopes=scopes, max_memories=limit), None
            digest = resolve_recalled(
                recall.records, keys=recall.keys, pinned_keys=recall.pinned_keys, scopes=scopes, max_memories=limit
            )
            return digest, _candidates(recall.records, scopes)
        if isinstance(provider, SearchableMemoryProvider):
            found = await provider.search(scopes=scopes, query=text, limit=limit, ctx=ctx)
            candidates = _candidates(found, scopes)
            # a search returns the keys its words match; when that leaves room, and everything that
            # applies fits, nothing has to be chosen: the block holds it all
            if len(candidates) >= limit or (listed := await _listed_if_all_fit(config, ctx, scopes)) is None:
                return resolve_digest(found, scopes=scopes, max_memories=limit, ranked=True), candidates
            return listed, None
    return await _listed(config, ctx, scopes), None


def _candidates(records: Sequence[MemoryRecord], scopes: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(r.key for r in records if r.scope in scopes))


async def _listed(config: MemoryConfig, ctx: ScopeContext, scopes: Sequence[str]) -> MemoryDigest:
    if config._shortlists:  # decided once, in __post_init__
        shortlisting = cast(ShortlistingMemoryProvider, config.provider)
        shortlist = await shortlisting.shortlist(scopes=scopes, limit=config.max_memories, ctx=ctx)
        key = tuple(scopes)
        decided = config._recent.digest(key, shortlist)
        if decided is None:
            decided = resolve_shortlist(shortlist, scopes=key, max_memories=config.max_memories)
            config._recent.keep(key, shortlist, decided)
        return decided
    listed = await config.provider.list(scopes=scopes, ctx=ctx)
    return resolve_digest(listed, scopes=scopes, max_memories=config.max_memories)


async def _listed_if_all_fit(config: MemoryConfig, ctx: ScopeContext, scopes: Sequence[str]) -> MemoryDigest | None:
    """The listed digest when it omits nothing (every applicable key fits), else None."""
    listed = await _listed(config, ctx, scopes)
    return None if listed.omitted else listed


async def related_keys(config: MemoryConfig, ctx: ScopeContext, query: str, limit: int) -> tuple[str, ...]:
    """The keys applicable to the actor that a turn saying `query` would rank first, best first, at most
    `limit`: the agent's own ranking (words and meaning), offered to a person searching their page for
    related memories. A provider that cannot recall ranks by its search (words only); one that cannot
    search finds nothing related."""
    scopes = normalise_scopes(await config.scopes.resolve(ctx))
    text = query.strip()
    if not scopes or not text or limit <= 0:
        return ()
    provider = config.provider
    if config._recalls:  # decided once, in __post_init__
        recalling = cast(RecallingMemoryProvider, provider)
        return tuple(await recalling.rank_keys(scopes=scopes, query=text, limit=limit, ctx=ctx))
    if isinstance(provider, SearchableMemoryProvider) and query_words(text):
        found = await provider.search(scopes=scopes, query=text, limit=limit, ctx=ctx)
        return _candidates(found, scopes)[:limit]
    return ()


async def memories_on_file(config: MemoryConfig, ctx: ScopeContext) -> MemoryDigest:
    """Everything that applies to the actor, for the person to read back: no ceiling, no search.
    Showing someone more than the model sees is harmless; showing them less is the failure."""
    scopes, listed = await records_on_file(config, ctx)
    if not scopes:
        return MemoryDigest(scopes=())
    return resolve_digest(listed, scopes=scopes, max_memories=None)


async def scopes_on_file(config: MemoryConfig, ctx: ScopeContext) -> tuple[str, ...]:
    """The actor's scopes, narrowest first: where what is on file for them is held."""
    return tuple(normalise_scopes(await config.scopes.resolve(ctx)))


async def records_on_file(config: MemoryConfig, ctx: ScopeContext) -> tuple[tuple[str, ...], tuple[MemoryRecord, ...]]:
    """The actor's scopes (narrowest first) and every record held at one of them, the overridden ones
    included: what `memories_on_file` resolves, for a page that lists each record on its own."""
    scopes = await scopes_on_file(config, ctx)
    if not scopes:
        return (), ()
    applying = set(scopes)
    return scopes, tuple(r for r in await config.provider.list(scopes=scopes, ctx=ctx) if r.scope in applying)


async def memory_for_turn(
    config: MemoryConfig, ctx: ScopeContext, *, run_id: str | None, query: str | None = None
) -> TurnMemory:
    """Offer, render and report one turn's memory (publishes `memory.resolved`)."""
    turn, resolved = await prepare_turn(config, ctx, run_id=run_id, query=query)
    config.diagnostics.publish(resolved)
    return turn


async def prepare_turn(
    config: MemoryConfig,
    ctx: ScopeContext,
    *,
    run_id: str | None,
    query: str | None = None,
    writes: bool = True,
) -> tuple[TurnMemory, MemoryResolved]:
    """`memory_for_turn` with its `memory.resolved` handed back instead of published: for a caller
    that reports the turn only once it is the one that counts (a journaled run that won its race).
    Not `writes` (the person paused memory): the block does not invite a `remember` and no tool is
    offered, as when the provider cannot write."""
    digest, _ = await select_for_turn(config, ctx, query)
    writable = config.writable and writes
    block = config._recent.block(digest) if writable else None
    if block is None:
        block = build_memory_block(digest, writable=writable)
        if writable:
            config._recent.keep_block(digest, block)
    resolved = MemoryResolved(
        run_id=run_id,
        scopes=len(digest.scopes),
        offered=digest.offered,
        omitted=digest.omitted,
        pinned_omitted=digest.pinned_omitted,
        recalled=digest.recalled,
        prompt_chars=len(block),
    )
    return TurnMemory(digest=digest, block=block, tools=config.tools() if writable else ()), resolved


async def prepare_write(config: MemoryConfig, key: str, fact: str) -> None:
    """Before a write that will run inside a transaction: let the provider do ahead, outside it, what
    the write of this key and fact needs (embedding it), when the input is one it would write."""
    provider = config.provider
    if not isinstance(provider, PreparingMemoryProvider):
        return
    checked = check_memory_input(key, fact, max_fact_chars=config.max_fact_chars)
    if checked.error is None:
        await provider.prepare_write(key=checked.key, text=checked.fact)


async def write_memory(
    config: MemoryConfig,
    digest: MemoryDigest,
    *,
    key: str,
    fact: str,
    ctx: ScopeContext,
    run_id: str | None,
) -> WriteOutcome:
    """Carry out a `remember` call for the actor the run is for.

    The write goes to the actor's own scope only and is authorised against the DIGEST's recorded
    scopes, never a fresh resolution, so a membership changed mid-run cannot widen or narrow what a
    turn in flight may write. Every refusal is an outcome the model can read, never an exception.
    """
    admitted = await _admitted_write(config, digest, key=key, fact=fact, ctx=ctx)
    if isinstance(admitted, WriteOutcome):
        return admitted
    provider, scope, checked = admitted
    origin = MemoryOrigin(author="agent", thread_id=ctx.thread_id, run_id=run_id, actor_ref=ctx.actor.id)
    try:
        record = await provider.write(key=checked.key, text=checked.fact, scope=scope, origin=origin, ctx=ctx)
    except WriteRefusedError as refused:
        return WriteOutcome(ok=False, error=str(refused))
    config.diagnostics.publish(MemoryWritten(run_id=run_id, scope=scope, chars=len(checked.fact)))
    return WriteOutcome(ok=True, record=record)


class PendingHolder(Protocol):
    async def hold(
        self, person_id: str, *, key: str, text: str, thread_id: str | None, run_id: str | None
    ) -> PendingMemory: ...


async def hold_memory(
    config: MemoryConfig,
    digest: MemoryDigest,
    holder: PendingHolder,
    *,
    key: str,
    fact: str,
    ctx: ScopeContext,
    run_id: str | None,
) -> WriteOutcome:
    """A `remember` call whose note waits for the person's approval: held to every rule a write is held
    to (the same refusals, in the same words), then kept apart from the memories, where no prompt
    reaches it, until the person approves or discards it."""
    admitted = await _admitted_write(config, digest, key=key, fact=fact, ctx=ctx)
    if isinstance(admitted, WriteOutcome):
        return admitted
    _, _, checked = admitted
    held = await holder.hold(ctx.actor.id, key=checked.key, text=checked.fact, thread_id=ctx.thread_id, run_id=run_id)
    return WriteOutcome(ok=True, pending=held)


async def _admitted_write(
    config: MemoryConfig, digest: MemoryDigest, *, key: str, fact: str, ctx: ScopeContext
) -> tuple[WritableMemoryProvider, str, MemoryInput] | WriteOutcome:
    """The provider, scope and checked input of an agent's write, or the outcome refusing it."""
    checked = check_memory_input(key, fact, max_fact_chars=config.max_fact_chars)
    if checked.error is not None:
        return WriteOutcome(ok=False, error=checked.error)
    provider = config.provider
    if not isinstance(provider, WritableMemoryProvider):
        return WriteOutcome(ok=False, error="Memory is read-only here: nothing can be saved.")
    scope = own_scope(ctx.actor)
    verdict = memory_write_verdict(scope=scope, actor=ctx.actor, scopes=digest.scopes, author="agent")
    if not verdict.allowed:
        return WriteOutcome(ok=False, error=verdict.reason)
    lookalike = await lookalike_key_refusal(provider, key=checked.key, scope=scope, ctx=ctx)
    if lookalike is not None:
        return WriteOutcome(ok=False, error=lookalike)
    return provider, scope, checked


async def lookalike_key_refusal(provider: MemoryProvider, *, key: str, scope: str, ctx: ScopeContext) -> str | None:
    """Why `key` may not be written at `scope`: another key held there reads exactly like it, differing
    only in invisible characters (`store.domain.lookalikes`). The scope is read only for a key that
    could have such a twin: most keys cannot, and cost no read."""
    if not may_read_like_another(key):
        return None
    held = await provider.list(scopes=[scope], ctx=ctx)
    twin = same_looking_key(key, (record.key for record in held if record.scope == scope))
    return None if twin is None else lookalike_key_problem(key, twin, scope)


@runtime_checkable
class BulkForgettingProvider(Protocol):
    async def forget_all(self, *, ctx: ScopeContext) -> int:
        """Delete everything held at the actor's own scope at once; how many records went."""
        ...


async def forget_all_memories(config: MemoryConfig, ctx: ScopeContext) -> int:
    """Forget every memory held at the person's own scope; what their organisation or everyone holds
    stays (it is not theirs to delete). How many went. Providers that cannot do it in one statement
    are asked to forget each record in turn."""
    provider = config.provider
    if isinstance(provider, BulkForgettingProvider):
        return await provider.forget_all(ctx=ctx)
    own = own_scope(ctx.actor)
    mine = [r for r in await provider.list(scopes=[own], ctx=ctx) if r.scope == own]
    return sum([await provider.forget(id=r.id, ctx=ctx) for r in mine])


@dataclass(frozen=True, slots=True)
class ForgetOutcome:
    """What became of a request to forget one memory.

    `not_found` covers an unknown id, another person's memory and a record beaten by a narrower one
    alike, with one message, so the answer cannot be used to learn what is on file about others.
    `refused` is a memory the person can see but that is held at a wider scope.
    """

    status: Literal["forgotten", "refused", "not_found"]
    reason: str
    scope: str | None = None
    """Where a `refused` memory is held, for a page to say who manages it in words."""


NOT_ON_FILE = "There is no memory with that id on file for you."


async def forget_memory(config: MemoryConfig, ctx: ScopeContext, id: str) -> ForgetOutcome:
    """A person forgets one of the memories they can see: allowed at their own scope only, and
    needing nobody's permission there (`memory_forget_verdict` takes no elevation)."""
    visible = {entry.record.id: entry.record for entry in (await memories_on_file(config, ctx)).entries}
    record = visible.get(id)
    if record is None:
        return ForgetOutcome(status="not_found", reason=NOT_ON_FILE)
    verdict = memory_forget_verdict(scope=record.scope, actor=ctx.actor)
    if not verdict.allowed:
        return ForgetOutcome(status="refused", reason=verdict.reason)
    if not await config.provider.forget(id=id, ctx=ctx):
        return ForgetOutcome(status="not_found", reason=NOT_ON_FILE)
    return ForgetOutcome(status="forgotten", reason=verdict.reason)


@dataclass(frozen=True, slots=True)
class RestoreOutcome:
    """What became of putting back a memory the person forgot."""

    status: Literal["restored", "superseded", "refused"]
    reason: str = ""


async def restore_memory(
    config: MemoryConfig, ctx: ScopeContext, *, key: str, text: str, origin: MemoryOrigin
) -> RestoreOutcome:
    """Put a memory the person forgot back at their own scope, with its origin: unless its key has been
    written there again since (the newer value is kept), or a write there would be refused
    (`memory_restore_verdict`), or memory is read-only here. A new write, not an un-delete."""
    current = await memories_on_file(config, ctx)
    verdict = memory_restore_verdict(
        key=key, author=origin.author, actor=ctx.actor, on_file=current.entries, scopes=current.scopes
    )
    if verdict.status != "restore":
        return RestoreOutcome(verdict.status, verdict.reason)
    provider = config.provider
    if not isinstance(provider, WritableMemoryProvider):
        return RestoreOutcome("refused", "Memory is read-only here.")
    await provider.write(key=key, text=text, scope=own_scope(ctx.actor), origin=origin, ctx=ctx)
    return RestoreOutcome("restored")
