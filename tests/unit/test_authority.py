"""Who may write and who may forget: every branch, each with its reason."""

from __future__ import annotations

import pytest

from store import Actor, Author, DigestEntry, forget_all_reach, memory_forget_verdict, memory_write_verdict
from store.domain.authority import memory_restore_verdict
from tests.builders import SCOPES, make_record, override

ADA = Actor(id="ada", tenant_ref="berlin")


@pytest.mark.parametrize(
    ("scope", "author", "elevated", "allowed", "reason_says"),
    [
        # 1. a scope outside the resolved set is refused, whoever asks and however elevated
        ("tenant:hamburg", "human", True, False, "does not apply to ada"),
        ("actor:bob", "human", True, False, "does not apply to ada"),
        ("actor:bob", "agent", False, False, "does not apply to ada"),
        # 2. your own scope is yours, always
        ("actor:ada", "agent", False, True, "own scope"),
        ("actor:ada", "human", False, True, "own scope"),
        ("actor:ada", "agent", True, True, "own scope"),
        # 3. nothing but a human writes above its own scope, whatever elevation says
        ("tenant:berlin", "agent", True, False, "Only a person may write at tenant:berlin"),
        ("global", "agent", True, False, "Only a person may write at global"),
        ("global", "agent", False, False, "Only a person may write at global"),
        # 4. an elevated human may
        ("tenant:berlin", "human", True, True, "ada administers tenant:berlin"),
        ("global", "human", True, True, "ada administers global"),
        # 5. otherwise refused
        ("tenant:berlin", "human", False, False, "needs someone who administers it"),
        ("global", "human", False, False, "needs someone who administers it"),
    ],
)
def test_write_verdict(scope: str, author: Author, elevated: bool, allowed: bool, reason_says: str) -> None:
    verdict = memory_write_verdict(scope=scope, actor=ADA, scopes=SCOPES, author=author, elevated=elevated)

    assert verdict.allowed is allowed
    assert bool(verdict) is allowed
    assert reason_says in verdict.reason
    assert scope in verdict.reason


def test_the_promotion_rule_an_agent_writes_its_own_scope_and_a_person_republishes_it_wider() -> None:
    agent_wider = memory_write_verdict(scope="tenant:berlin", actor=ADA, scopes=SCOPES, author="agent", elevated=True)
    agent_own = memory_write_verdict(scope="actor:ada", actor=ADA, scopes=SCOPES, author="agent")
    admin_republishes = memory_write_verdict(
        scope="tenant:berlin", actor=ADA, scopes=SCOPES, author="human", elevated=True
    )

    assert (agent_wider.allowed, agent_own.allowed, admin_republishes.allowed) == (False, True, True)


def test_an_own_scope_missing_from_the_resolved_scopes_cannot_be_written() -> None:
    verdict = memory_write_verdict(scope="actor:ada", actor=ADA, scopes=("global",), author="agent")

    assert not verdict.allowed


@pytest.mark.parametrize(
    ("scope", "allowed", "reason_says"),
    [
        ("actor:ada", True, "own scope"),
        ("tenant:berlin", False, "managed by its administrators"),
        ("global", False, "managed by its administrators"),
        ("actor:bob", False, "actor:bob"),
    ],
)
def test_forget_verdict_allows_the_actors_own_scope_only(scope: str, allowed: bool, reason_says: str) -> None:
    verdict = memory_forget_verdict(scope=scope, actor=ADA)

    assert verdict.allowed is allowed
    assert reason_says in verdict.reason


def test_forgetting_takes_no_elevation_on_purpose() -> None:
    with pytest.raises(TypeError):
        memory_forget_verdict(scope="tenant:berlin", actor=ADA, elevated=True)  # type: ignore[call-arg]


def entry(key: str, scope: str, *overridden: str) -> DigestEntry:
    return DigestEntry(record=make_record(key, scope=scope), overrides=tuple(override(o, "wider") for o in overridden))


@pytest.mark.parametrize(
    ("on_file", "scopes", "author", "status", "reason_says"),
    [
        # nothing under the key: put back, as a write at one's own scope is
        ((), SCOPES, "agent", "restore", "own scope"),
        ((entry("other", "actor:ada"),), SCOPES, "human", "restore", "own scope"),
        # the key is held only wider: their own value may come back and override it again
        ((entry("k", "tenant:berlin"),), SCOPES, "agent", "restore", "own scope"),
        # written again at their own scope since: the newer value is kept
        ((entry("k", "actor:ada"),), SCOPES, "agent", "superseded", "written again since it was forgotten"),
        ((entry("k", "actor:ada", "tenant:berlin"),), SCOPES, "human", "superseded", "newer value was kept"),
        # their own value is overridden by a narrower one (a deployment's narrower scope): still theirs
        ((entry("k", "thread:t1", "actor:ada"),), ("thread:t1", *SCOPES), "agent", "superseded", "written again"),
        # their own scope no longer applies to them: refused, as the write would be
        ((), ("tenant:berlin", "global"), "agent", "refused", "does not apply to ada"),
    ],
)
def test_restore_verdict(
    on_file: tuple[DigestEntry, ...], scopes: tuple[str, ...], author: Author, status: str, reason_says: str
) -> None:
    verdict = memory_restore_verdict(key="k", author=author, actor=ADA, on_file=on_file, scopes=scopes)

    assert verdict.status == status
    assert reason_says in verdict.reason


@pytest.mark.parametrize(
    ("on_file", "goes", "stays"),
    [
        ((), 0, 0),
        ((entry("a", "actor:ada"), entry("b", "actor:ada")), 2, 0),
        ((entry("a", "tenant:berlin"), entry("b", "global")), 0, 2),
        # an own entry that overrides two wider values: it goes, and both wider values stay
        ((entry("a", "actor:ada", "tenant:berlin", "global"), entry("b", "global")), 1, 3),
        # another person's scope is never theirs to forget
        ((entry("a", "actor:bob"),), 0, 1),
    ],
)
def test_forget_all_reach(on_file: tuple[DigestEntry, ...], goes: int, stays: int) -> None:
    reach = forget_all_reach(ADA, on_file)

    assert (reach.goes, reach.stays) == (goes, stays)
