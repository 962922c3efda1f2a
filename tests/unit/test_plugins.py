"""A deployment's own resolver and gate, named in the settings, load at start-up or fail clearly."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from store import Actor, DefaultScopeResolver, ScopeContext
from store.domain.administration import RoleGate
from store.embedding import HttpEmbedder, UniversalSentenceEncoderEmbedder
from web.plugins import load_embedder, load_gate, load_resolver
from web.settings import Settings, SettingsError


class DepotResolver:
    async def resolve(self, ctx: ScopeContext) -> Sequence[str]:
        return (f"actor:{ctx.actor.id}", "depot:spandau", "global")


class SyncResolver:
    def resolve(self, ctx: ScopeContext) -> Sequence[str]:
        return (f"actor:{ctx.actor.id}", "global")


class EveryoneAdministers:
    async def administers(self, actor: Actor, scope: str) -> bool:
        return True

    async def may_preview(self, actor: Actor) -> bool:
        return True


SHARED_GATE = EveryoneAdministers()


async def test_a_resolver_that_answers_at_once_is_taken_as_it_answers() -> None:
    resolver = load_resolver(Settings(scope_resolver="tests.unit.test_plugins:SyncResolver"))

    assert tuple(await resolver.resolve(ScopeContext(Actor("ada")))) == ("actor:ada", "global")


async def test_a_resolver_class_is_loaded_and_instantiated() -> None:
    resolver = load_resolver(Settings(scope_resolver="tests.unit.test_plugins:DepotResolver"))

    assert tuple(await resolver.resolve(ScopeContext(Actor("ada")))) == ("actor:ada", "depot:spandau", "global")


def test_an_instance_is_used_as_it_is() -> None:
    assert load_gate(Settings(admin_gate="tests.unit.test_plugins:SHARED_GATE")) is SHARED_GATE


async def test_the_defaults_are_the_role_gate_with_the_configured_names_and_the_default_resolver() -> None:
    gate = load_gate(Settings(admin_role="berlin-admins"))

    assert isinstance(gate, RoleGate)
    assert await gate.administers(Actor("x", "berlin", ("berlin-admins",)), "tenant:berlin")
    assert isinstance(load_resolver(Settings()), DefaultScopeResolver)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (Settings(scope_resolver="no_colon_here"), "must look like package.module:attribute"),
        (Settings(scope_resolver="tests.unit.nowhere:Thing"), "cannot be loaded"),
        (Settings(scope_resolver="tests.unit.test_plugins:Missing"), "cannot be loaded"),
        (Settings(scope_resolver="tests.unit.test_plugins:EveryoneAdministers"), "has no async resolve"),
        (Settings(admin_gate="tests.unit.test_plugins:DepotResolver"), "lacks administers"),
    ],
)
def test_a_bad_plugin_fails_at_start_up_naming_the_setting(settings: Settings, message: str) -> None:
    loader = load_gate if settings.admin_gate else load_resolver
    with pytest.raises(SettingsError, match=message):
        loader(settings)


class TinyEmbedder:
    name = "tiny"

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.ones((len(texts), 2), dtype=np.float32)


@pytest.mark.parametrize(
    ("spec", "kind"),
    [
        ("use-multilingual", UniversalSentenceEncoderEmbedder),
        ("https://embeddings.example/v1/embeddings", HttpEmbedder),
        ("tests.unit.test_plugins:TinyEmbedder", TinyEmbedder),
    ],
)
def test_the_embedder_is_chosen_by_one_setting(spec: str, kind: type) -> None:
    assert isinstance(load_embedder(Settings(embedder=spec)), kind)


def test_no_embedder_means_words_only() -> None:
    assert load_embedder(Settings(embedder="none")) is None


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("wordllama", "ONFILE_EMBEDDER must be use-multilingual, none"),
        ("ftp://embeddings.example", "ONFILE_EMBEDDER must be"),
    ],
)
def test_an_embedder_that_names_nothing_known_is_refused_at_start_up(spec: str, message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        Settings(embedder=spec)


def test_an_embedder_plugin_without_embed_is_refused_naming_the_setting() -> None:
    with pytest.raises(SettingsError, match=r"ONFILE_EMBEDDER=tests\.unit\.test_plugins:DepotResolver has no name"):
        load_embedder(Settings(embedder="tests.unit.test_plugins:DepotResolver"))


def test_an_embedding_service_address_may_name_its_model_after_a_hash() -> None:
    embedder = load_embedder(Settings(embedder="http://127.0.0.1:9/v1/embeddings#multilingual-e5"))

    assert isinstance(embedder, HttpEmbedder)
    assert embedder.name == "http:http://127.0.0.1:9/v1/embeddings#multilingual-e5"
