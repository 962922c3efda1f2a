"""A deployment's own scope resolver, admin gate and embedder, named in the settings as `module:attribute`
(an embedder may also be named by its address, or as one of the built-in ones)."""

from __future__ import annotations

import importlib
from typing import Any

from store.domain.administration import AdminGate, RoleGate
from store.domain.scopes import DefaultScopeResolver, ScopeResolver
from store.embedding import Embedder, HttpEmbedder, UniversalSentenceEncoderEmbedder
from web.settings import Settings, SettingsError

__all__ = ("load_embedder", "load_gate", "load_resolver")


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
    if not isinstance(resolver, ScopeResolver):
        msg = f"ONFILE_SCOPE_RESOLVER={settings.scope_resolver} has no async resolve(ctx) method"
        raise SettingsError(msg)
    return resolver


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
