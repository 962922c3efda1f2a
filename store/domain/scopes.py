"""Which scopes apply to a turn, in order: the order is the whole of the ranking.

One resolver instance answers "which scopes does this actor have" for every path of the product —
the prompt, the read-back, the write verdicts and the preview. Two answers to that question would
eventually differ, and the difference would be a privacy bug.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

from store.domain.types import Actor, ScopeContext

__all__ = (
    "GLOBAL_SCOPE",
    "DefaultScopeResolver",
    "ScopeResolver",
    "normalise_scopes",
    "own_scope",
    "scope_kind",
    "scope_ranks",
)

GLOBAL_SCOPE = "global"


def own_scope(actor: Actor) -> str:
    """The scope that belongs to the actor alone: theirs to write and to forget, always."""
    return f"actor:{actor.id}"


def scope_kind(scope: str) -> str:
    """The part of a token before its first colon (`tenant` for `tenant:berlin`): safe to count by."""
    return scope.split(":", 1)[0]


@runtime_checkable
class ScopeResolver(Protocol):
    """Answers which scope tokens apply to a context, most specific first.

    Tokens are opaque: a deployment may mint its own (`depot:…`) and put it where its precedence
    belongs.
    """

    async def resolve(self, ctx: ScopeContext) -> Sequence[str]: ...


class DefaultScopeResolver:
    """`actor:<id>`, then `tenant:<tenant_ref>` when the actor has one, then `global`."""

    async def resolve(self, ctx: ScopeContext) -> Sequence[str]:
        actor = ctx.actor
        tenant = (f"tenant:{actor.tenant_ref}",) if actor.tenant_ref else ()
        return (own_scope(actor), *tenant, GLOBAL_SCOPE)


def normalise_scopes(tokens: Iterable[str]) -> tuple[str, ...]:
    """A resolver's answer as the product uses it: empty tokens dropped, a repeat keeps its first place."""
    seen: dict[str, None] = {}
    for token in tokens:
        if token:
            seen.setdefault(token, None)
    return tuple(seen)


def scope_ranks(scopes: Sequence[str]) -> dict[str, int]:
    """Each scope's rank, 0 the narrowest. A token listed twice keeps its first (narrower) rank."""
    ranks: dict[str, int] = {}
    for position, scope in enumerate(scopes):
        ranks.setdefault(scope, position)
    return ranks
