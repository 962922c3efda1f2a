"""A deployment's own scope resolver, admin gate and embedder, named in the settings as `module:attribute`
(an embedder may also be named by its address, or as one of the built-in ones)."""

from __future__ import annotations

import asyncio
import importlib
import inspect
from collections.abc import Sequence
from typing import Any, cast

from store.domain.administration import AdminGate, RoleGate
from store.domain.scopes import (
    DefaultScopeResolver,
    ScopeResolver,
    ScopeResolverError,
    own_scope,
    resolved_problem,
)
from store.domain.types import ScopeContext
from store.embedding import Embedder, HttpEmbedder, UniversalSentenceEncoderEmbedder
from web.settings import Settings, SettingsError

__all__ = ("CheckedResolver", "load_embedder", "load_gate", "load_resolver")


def _load(setting: str, dotted: str) -> Any:
    module_name, _, attribute = dotted.partition(":")
    if not module_name or not attribute:
        msg = f"{setting} must look like package.module:attribute, not {dotted!r}"
        raise SettingsError(msg)
    try:
        found = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as error:
        msg = f"{setting}={dotted} cannot be loaded: {error}"
        raise SettingsError(msg) from None
    return found() if isinstance(found, type) else found


def load_resolver(settings: Settings) -> ScopeResolver:
    """The one scope resolver every path uses."""
    if not settings.scope_resolver:
        return DefaultScopeResolver()
    resolver = _load("ONFILE_SCOPE_RESOLVER", settings.scope_resolver)
    if not isinstance(resolver, ScopeResolver) or not callable(resolver.resolve):
        msg = f"ONFILE_SCOPE_RESOLVER={settings.scope_resolver} has no async resolve(ctx) method"
        raise SettingsError(msg)
    return CheckedResolver(resolver, settings.scope_resolver, settings.scope_resolver_timeout.total_seconds())


class CheckedResolver:
    """A deployment's resolver, held to what every path relies on: when it raises, or answers what
    cannot be a person's scopes (`resolved_problem`), `ScopeResolverError` names the setting and why,
    instead of a page that silently shows nobody's memories or a bare 500; so does one that has not
    answered within `seconds` (`ONFILE_SCOPE_RESOLVER_TIMEOUT`), rather than holding the turn with it.
    Its `resolve` is meant to be async; one that answers at once (a plain `def`, or one wrapped by a
    decorator that hands back the coroutine) is taken as it answers, and no deadline can stop a plain
    `def` that blocks."""

    def __init__(self, resolver: ScopeResolver, named: str, seconds: float) -> None:
        self._resolver = resolver
        self._named = named
        self._seconds = seconds

    @property
    def wrapped(self) -> ScopeResolver:
        """The deployment's own resolver, as it was loaded."""
        return self._resolver

    async def resolve(self, ctx: ScopeContext) -> Sequence[str]:
        deadline = asyncio.timeout(self._seconds)
        try:
            async with deadline:
                answer: object = self._resolver.resolve(ctx)
                if inspect.isawaitable(answer):
                    answer = await answer
        except Exception as error:
            if deadline.expired():  # OnFile's deadline, not a timeout of the resolver's own
                msg = (
                    f"ONFILE_SCOPE_RESOLVER={self._named} did not answer for {own_scope(ctx.actor)} within "
                    f"{self._seconds:g} s (ONFILE_SCOPE_RESOLVER_TIMEOUT)"
                )
            else:
                msg = f"ONFILE_SCOPE_RESOLVER={self._named} failed for {own_scope(ctx.actor)}: {error!r}"
            raise ScopeResolverError(msg) from error
        problem = resolved_problem(answer, ctx.actor)
        if problem is not None:
            msg = f"ONFILE_SCOPE_RESOLVER={self._named} cannot be used for {own_scope(ctx.actor)}: {problem}"
            raise ScopeResolverError(msg)
        return cast("Sequence[str]", answer)


def load_gate(settings: Settings) -> AdminGate:
    if not settings.admin_gate:
        return RoleGate(settings.admin_role, settings.global_admin_role, settings.support_role)
    gate = _load("ONFILE_ADMIN_GATE", settings.admin_gate)
    if not isinstance(gate, AdminGate):
        msg = f"ONFILE_ADMIN_GATE={settings.admin_gate} lacks administers(actor, scope) or may_preview(actor)"
        raise SettingsError(msg)
    return gate


def load_embedder(settings: Settings) -> Embedder | None:
    """What memories are embedded with (None: words only). Loading the default model is deferred to
    its first use."""
    spec = settings.embedder.strip()
    if spec == "none":
        return None
    if spec == "use-multilingual":
        return UniversalSentenceEncoderEmbedder()
    if spec.startswith(("http://", "https://")):
        address, _, model = spec.partition("#")  # …/v1/embeddings#model-name asks for that model
        return HttpEmbedder(address, model=model)
    embedder = _load("ONFILE_EMBEDDER", spec)
    if not isinstance(embedder, Embedder):
        msg = f"ONFILE_EMBEDDER={spec} has no name and async embed(texts) method"
        raise SettingsError(msg)
    return embedder
