"""The default scope resolver and the helpers around scope tokens."""

from __future__ import annotations

import pytest

from store import Actor, DefaultScopeResolver, ScopeContext, ScopeResolver, normalise_scopes, own_scope, scope_kind
from store.domain.scopes import resolved_problem


@pytest.mark.parametrize(
    ("actor", "scopes"),
    [
        (Actor(id="u1", tenant_ref="berlin"), ("actor:u1", "tenant:berlin", "global")),
        (Actor(id="u1"), ("actor:u1", "global")),
        (Actor(id="u1", tenant_ref=""), ("actor:u1", "global")),
    ],
)
async def test_the_default_resolver_is_actor_then_tenant_then_global(actor: Actor, scopes: tuple[str, ...]) -> None:
    resolver = DefaultScopeResolver()

    assert tuple(await resolver.resolve(ScopeContext(actor=actor))) == scopes
    assert isinstance(resolver, ScopeResolver)


def test_own_scope_is_the_actor_token() -> None:
    assert own_scope(Actor(id="u1", tenant_ref="berlin")) == "actor:u1"


@pytest.mark.parametrize(
    ("scope", "kind"), [("actor:u1", "actor"), ("tenant:a:b", "tenant"), ("global", "global"), ("depot:x", "depot")]
)
def test_scope_kind_is_the_part_before_the_first_colon(scope: str, kind: str) -> None:
    assert scope_kind(scope) == kind


def test_normalised_scopes_drop_empty_tokens_and_repeats_keeping_the_first_place() -> None:
    assert normalise_scopes(["actor:u1", "", "global", "actor:u1", "depot:x"]) == ("actor:u1", "global", "depot:x")


ADA = Actor(id="ada", tenant_ref="berlin")


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        (("actor:ada", "tenant:berlin", "global"), None),
        (["actor:ada"], None),
        (["depot:spandau", "actor:ada", ""], None),
        ("actor:ada", "it answered 'actor:ada' (str), not a list of scope tokens"),
        (b"actor:ada", "it answered b'actor:ada' (bytes), not a list of scope tokens"),
        (None, "it answered None (NoneType), not a list of scope tokens"),
        ({"actor:ada"}, "it answered {'actor:ada'} (set), not a list of scope tokens"),
        ([42, "actor:ada"], "it answered 42 (int) among its tokens; a scope token is a string"),
        (["actor:ada", "x" * 80], None),
        ([["actor:ada"]], "it answered ['actor:ada'] (list) among its tokens; a scope token is a string"),
        ([], "it left out actor:ada, the person's own scope"),
        (["actor:ada", "actor:max"], "it answered 'actor:max', an actor scope that is not actor:ada"),
        (["actor:ada", "actor:"], "it answered 'actor:', an actor scope that is not actor:ada"),
        (["actor:ada", "depot:\x00"], "it answered 'depot:\\x00' among its tokens, which holds a control character"),
        (["actor:ada", "depot:\x1bx"], "it answered 'depot:\\x1bx' among its tokens, which holds a control"),
        (["actor:ada", "depot:\ud800"], "it answered 'depot:\\ud800' among its tokens, which holds a control"),
        (["actor:ada", "team:" + "x" * 400], "it answered a token 405 characters long; a scope token is at most 400"),
        (["actor:ada", "team:" + "x" * 395], None),
        (["actor:ada", "actors:north", "actor"], None),
        (["depot:spandau", "global"], "it left out actor:ada, the person's own scope"),
        (["actor:Ada", "global"], "it answered 'actor:Ada', an actor scope that is not actor:ada"),
        ("x" * 100, f"it answered '{'x' * 56}... (str), not a list of scope tokens"),
    ],
)
def test_what_a_resolver_answers_must_be_a_list_of_tokens_holding_the_persons_own(
    answer: object, problem: str | None
) -> None:
    said = resolved_problem(answer, ADA)

    assert said == problem or (problem is not None and said is not None and said.startswith(problem))
