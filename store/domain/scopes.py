"""Which scopes apply to a turn, in order: the order is the whole of the ranking.

One resolver instance answers "which scopes does this actor have" for every path of the product —
the prompt, the read-back, the write verdicts and the preview. Two answers to that question would
eventually differ, and the difference would be a privacy bug.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

from store.domain.identifiers import MAX_ID_CHARS
from store.domain.types import Actor, ScopeContext

__all__ = (
    "GLOBAL_SCOPE",
    "MAX_TOKEN_CHARS",
    "DefaultScopeResolver",
    "ScopeResolver",
    "ScopeResolverError",
    "normalise_scopes",
    "own_scope",
    "resolved_problem",
    "scope_kind",
    "scope_ranks",
)

GLOBAL_SCOPE = "global"
MAX_TOKEN_CHARS = 2 * MAX_ID_CHARS
"""The longest scope token a resolver may answer: a kind and an id (`tenant:<organisation>`)."""
_NOT_TEXT = frozenset({"Cc", "Cs"})
"""Control characters and halves of surrogate pairs: nothing a token, shown or stored, may hold."""


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


class ScopeResolverError(RuntimeError):
    """A deployment's resolver failed, or answered something that cannot be a person's scopes: nothing
    that depends on their scopes can be answered, so nothing is."""


def resolved_problem(answer: object, actor: Actor) -> str | None:
    """Why `answer`, a resolver's answer for `actor`, cannot be their scopes (one sentence), or None.

    It must be a list (or tuple) of strings, and hold the person's own scope: without it everything
    they own would vanish from their page and their prompt, and they could neither see nor forget it.
    It may hold no one else's (another `actor:` token): those are that person's alone."""
    if isinstance(answer, str | bytes) or not isinstance(answer, Sequence):
        return f"it answered {_shown(answer)} ({type(answer).__name__}), not a list of scope tokens"
    own = own_scope(actor)
    for token in answer:
        if not isinstance(token, str):
            return f"it answered {_shown(token)} ({type(token).__name__}) among its tokens; a scope token is a string"
        if len(token) > MAX_TOKEN_CHARS:
            return f"it answered a token {len(token):,} characters long; a scope token is at most {MAX_TOKEN_CHARS}"
        if any(unicodedata.category(character) in _NOT_TEXT for character in token):
            return f"it answered {_shown(token)} among its tokens, which holds a control character or half of one"
        if token.startswith("actor:") and token != own:
            return (
                f"it answered {_shown(token)}, an actor scope that is not {own}: a person's own scope is theirs alone"
            )
    if own not in answer:
        return (
            f"it left out {own}, the person's own scope: without it they could neither see nor forget what is "
            "on file about them"
        )
    return None


def _shown(value: object) -> str:
    said = repr(value)
    return said if len(said) <= 60 else f"{said[:57]}..."


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
