"""The elevated area's rules: the default role gate, the pin budget, and why a preview left entries out."""

from __future__ import annotations

import pytest

from store import Actor, resolve_digest
from store.domain.administration import (
    UNPIN_OR_RAISE,
    AdminGate,
    RoleGate,
    entries_left_out,
    may_preview_person,
    pin_budget,
    preview_audit_scopes,
    promotion_targets,
)
from tests.builders import SCOPES, make_record

GATE = RoleGate()


@pytest.mark.parametrize(
    ("actor", "scope", "administers"),
    [
        (Actor("lena", "berlin", ("onfile-admin",)), "tenant:berlin", True),
        (Actor("lena", "berlin", ("onfile-admin",)), "tenant:hamburg", False),  # another tenant's admin
        (Actor("lena", "berlin", ("onfile-admin",)), "global", False),
        (Actor("lena", "berlin", ("onfile-admin",)), "actor:ada", False),
        (Actor("gil", "berlin", ("onfile-global-admin",)), "global", True),
        (Actor("gil", "berlin", ("onfile-global-admin",)), "tenant:berlin", False),  # global is not every tenant
        (Actor("ada", "berlin", ()), "tenant:berlin", False),
        (Actor("nomad", None, ("onfile-admin",)), "tenant:None", False),
        (Actor("sam", "berlin", ("onfile-support",)), "tenant:berlin", False),
    ],
)
async def test_the_role_gate(actor: Actor, scope: str, administers: bool) -> None:
    assert await GATE.administers(actor, scope) is administers
    assert isinstance(GATE, AdminGate)


@pytest.mark.parametrize(("roles", "may"), [(("onfile-support",), True), (("onfile-admin",), False), ((), False)])
async def test_only_support_may_preview(roles: tuple[str, ...], may: bool) -> None:
    assert await GATE.may_preview(Actor("x", "berlin", roles)) is may


async def test_role_names_are_configurable() -> None:
    gate = RoleGate(admin_role="berlin-admins")

    assert await gate.administers(Actor("x", "berlin", ("berlin-admins",)), "tenant:berlin")


@pytest.mark.parametrize(
    ("actor", "administered", "targets"),
    [
        (Actor("lena", "berlin"), ("tenant:berlin",), ("tenant:berlin",)),
        (Actor("gil", "berlin"), ("tenant:berlin", "global"), ("tenant:berlin", "global")),  # narrowest first, kept
        (Actor("lena", "berlin"), ("actor:lena", "tenant:berlin"), ("tenant:berlin",)),  # never their own scope
        (Actor("lena", "berlin"), ("actor:lena",), ()),  # a gate that hands them only their own: nowhere
        (Actor("lena", "berlin"), ("actor:ada", "global"), ("actor:ada", "global")),  # someone else's is not theirs
        (Actor("ada", "berlin"), (), ()),  # administers nothing
    ],
    ids=["tenant-admin", "two-scopes", "own-scope-left-out", "only-own", "another-persons-scope", "nothing"],
)
def test_a_person_may_publish_their_notes_where_they_administer_except_their_own_scope(
    actor: Actor, administered: tuple[str, ...], targets: tuple[str, ...]
) -> None:
    assert promotion_targets(actor, administered) == targets


def test_the_pin_budget_counts_pinned_keys_at_the_scope_and_warns_past_the_ceiling() -> None:
    records = [make_record(f"k{i}", scope="tenant:berlin", pinned=True) for i in range(3)]
    records += [make_record("loose", scope="tenant:berlin"), make_record("elsewhere", scope="global", pinned=True)]

    now = pin_budget(records, scope="tenant:berlin", max_memories=3)
    after = pin_budget(records, scope="tenant:berlin", max_memories=3, pinning="loose")
    again = pin_budget(records, scope="tenant:berlin", max_memories=3, pinning="k0")

    assert (now.pinned_keys, now.over, now.warning) == (3, False, None)
    assert (after.pinned_keys, after.over) == (4, True)
    assert after.warning == (
        "4 keys are always on at tenant:berlin, but a prompt carries at most 3 memories: 1 always-on fact would "
        "stop reaching prompts. " + UNPIN_OR_RAISE
    )
    assert after.warning_for("for everyone in your organisation") == (
        "4 keys are always on for everyone in your organisation, but a prompt carries at most 3 memories: 1 "
        "always-on fact would stop reaching prompts. " + UNPIN_OR_RAISE
    )
    assert now.warning_for("anywhere") is None
    assert again.pinned_keys == 3
    assert "2 always-on facts" in (pin_budget(records, scope="tenant:berlin", max_memories=1).warning or "")


def test_left_out_entries_are_explained_by_budget_or_relevance() -> None:
    records = [make_record(k) for k in ("a", "b", "c", "d")]
    everything = resolve_digest(records, scopes=SCOPES, max_memories=None)
    searched = resolve_digest([records[0], records[1], records[2]], scopes=SCOPES, max_memories=2, ranked=True)
    listed = resolve_digest(records, scopes=SCOPES, max_memories=3)

    by_search = {o.entry.key: o.reason for o in entries_left_out(everything, searched, ["a", "b", "c"])}
    by_list = {o.entry.key: o.reason for o in entries_left_out(everything, listed, None)}

    assert by_search == {"c": "budget", "d": "relevance"}
    assert by_list == {"d": "budget"}
    assert "not find it relevant" in entries_left_out(everything, searched, ["a"])[-1].explanation
    assert "block was full" in entries_left_out(everything, listed, None)[0].explanation


def test_an_expired_entry_is_left_out_as_expired_whatever_the_search_or_the_ceiling() -> None:
    records = [make_record(k) for k in ("a", "b", "c", "d")]
    everything = resolve_digest(records, scopes=SCOPES, max_memories=None)
    searched = resolve_digest([records[0]], scopes=SCOPES, max_memories=1, ranked=True)
    expired = {records[2].id, records[3].id}

    by_search = entries_left_out(everything, searched, ["a", "b", "c"], expired_ids=expired)

    assert {o.entry.key: o.reason for o in by_search} == {"b": "budget", "c": "expired", "d": "expired"}
    assert by_search[-1].explanation.startswith("It expired:")


SUPPORT_BERLIN = Actor("sam", "berlin", ("onfile-support",))


@pytest.mark.parametrize(
    ("viewer", "person", "all_organisations", "may"),
    [
        (SUPPORT_BERLIN, Actor("ada", "berlin"), False, True),
        (SUPPORT_BERLIN, Actor("carl", "hamburg"), False, False),
        (SUPPORT_BERLIN, Actor("nobody"), False, False),
        (Actor("sam", None, ("onfile-support",)), Actor("nobody"), False, False),
        (Actor("sam", None, ("onfile-support",)), Actor("ada", "berlin"), False, False),
        (SUPPORT_BERLIN, Actor("carl", "hamburg"), True, True),
        (Actor("sam", None, ("onfile-support",)), Actor("nobody"), True, True),
    ],
)
def test_support_previews_only_people_of_its_own_organisation_unless_told_every_one(
    viewer: Actor, person: Actor, all_organisations: bool, may: bool
) -> None:
    assert may_preview_person(viewer, person, all_organisations=all_organisations) is may


@pytest.mark.parametrize(
    ("viewer", "person", "scopes"),
    [
        (SUPPORT_BERLIN, Actor("ada", "berlin"), ("global", "tenant:berlin")),
        (Actor("sam"), Actor("ada"), ("global",)),
        (Actor("sam"), Actor("ada", "nowhere", ("onfile-admin",)), ("global", "tenant:nowhere")),
        (SUPPORT_BERLIN, Actor("carl", "hamburg"), ("global", "tenant:hamburg", "tenant:berlin")),
        (SUPPORT_BERLIN, Actor("nobody"), ("global", "tenant:berlin")),
    ],
)
def test_a_preview_is_recorded_where_someone_who_oversees_it_reads_never_at_the_persons_own_scope(
    viewer: Actor, person: Actor, scopes: tuple[str, ...]
) -> None:
    assert preview_audit_scopes(viewer, person) == scopes
