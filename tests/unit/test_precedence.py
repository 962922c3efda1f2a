"""Precedence: per key the narrowest scope wins and every beaten value rides along, widest last."""

from __future__ import annotations

import pytest

from store import Override, resolve_digest
from tests.builders import SCOPES, make_record, override


def test_the_fiscal_year_conflict_keeps_both_values() -> None:
    mine = make_record("fiscal-year", "they report on the calendar year", "actor:ada")
    org_default = make_record("fiscal-year", "the fiscal year starts in October", "global", author="human")

    digest = resolve_digest([org_default, mine], scopes=SCOPES)

    (only,) = digest.entries
    assert only.record == mine
    assert only.overrides == (Override(scope="global", text="the fiscal year starts in October", author="human"),)


@pytest.mark.parametrize(
    ("present", "winner", "beaten"),
    [
        (("global",), "global", ()),
        (("tenant:berlin", "global"), "tenant:berlin", ("global",)),
        (("actor:ada", "global"), "actor:ada", ("global",)),
        (("global", "tenant:berlin", "actor:ada"), "actor:ada", ("tenant:berlin", "global")),
        (("tenant:berlin", "actor:ada"), "actor:ada", ("tenant:berlin",)),
    ],
)
def test_the_narrowest_scope_wins_and_the_beaten_ride_along_widest_last(
    present: tuple[str, ...], winner: str, beaten: tuple[str, ...]
) -> None:
    records = [make_record("units", f"value at {scope}", scope) for scope in present]

    (only,) = resolve_digest(records, scopes=SCOPES).entries

    assert only.scope == winner
    assert tuple(o.scope for o in only.overrides) == beaten
    assert tuple(o.text for o in only.overrides) == tuple(f"value at {scope}" for scope in beaten)


def test_records_outside_the_resolved_scopes_are_neither_winners_nor_overrides() -> None:
    foreign_tenant = make_record("pallet-labels", "customer number first", "tenant:hamburg", author="human")
    someone_else = make_record("pallet-labels", "bob's own habit", "actor:bob")
    ours = make_record("pallet-labels", "depot code first", "tenant:berlin", author="human")

    digest = resolve_digest([foreign_tenant, someone_else, ours], scopes=SCOPES)

    (only,) = digest.entries
    assert only.record == ours
    assert only.overrides == ()
    assert digest.omitted == 0


def test_a_key_held_only_outside_the_scopes_is_not_counted_as_omitted() -> None:
    digest = resolve_digest([make_record("k", "x", "tenant:hamburg")], scopes=SCOPES)

    assert digest.entries == ()
    assert digest.omitted == 0


def test_the_override_carries_the_beaten_author_so_the_block_can_tell_a_guess_from_a_policy() -> None:
    agent_guess = make_record("fiscal-year", "October", "tenant:berlin", author="agent")
    admin_policy = make_record("fiscal-year", "April", "global", author="human")
    mine = make_record("fiscal-year", "calendar year", "actor:ada", author="agent")

    (only,) = resolve_digest([admin_policy, agent_guess, mine], scopes=SCOPES).entries

    assert only.overrides == (override("tenant:berlin", "October", "agent"), override("global", "April", "human"))


def test_a_pin_belongs_to_the_question_not_to_the_record_that_answers_it() -> None:
    pinned_policy = make_record("fiscal-year", "October", "global", author="human", pinned=True)
    personal = make_record("fiscal-year", "calendar year", "actor:ada")

    (only,) = resolve_digest([pinned_policy, personal], scopes=SCOPES).entries

    assert only.record == personal
    assert not only.record.pinned
    assert only.pinned


def test_a_custom_scope_ranks_where_the_resolver_puts_it() -> None:
    scopes = ("actor:ada", "depot:spandau", "tenant:berlin", "global")
    depot = make_record("shift-start", "06:00", "depot:spandau", author="human")
    tenant = make_record("shift-start", "08:00", "tenant:berlin", author="human")

    (only,) = resolve_digest([tenant, depot], scopes=scopes).entries

    assert only.scope == "depot:spandau"
    assert only.overrides == (override("tenant:berlin", "08:00"),)


def test_two_records_at_one_scope_resolve_to_the_newest_whatever_the_input_order() -> None:
    older = make_record("tone", "long answers", "actor:ada", age_days=3, id="mem_b")
    newer = make_record("tone", "short answers", "actor:ada", age_days=1, id="mem_a")

    for records in ([older, newer], [newer, older]):
        (only,) = resolve_digest(records, scopes=SCOPES).entries
        assert only.record == newer
        assert only.overrides == (override("actor:ada", "long answers", "agent"),)


def test_the_resolved_scopes_are_recorded_without_repeats_or_empty_tokens() -> None:
    digest = resolve_digest([], scopes=("actor:ada", "", "global", "actor:ada"))

    assert digest.scopes == ("actor:ada", "global")


def test_a_repeated_scope_keeps_its_first_and_narrower_rank() -> None:
    narrow = make_record("k", "narrow", "tenant:berlin")
    wide = make_record("k", "wide", "global")

    (only,) = resolve_digest([wide, narrow], scopes=("tenant:berlin", "global", "tenant:berlin")).entries

    assert only.record == narrow
