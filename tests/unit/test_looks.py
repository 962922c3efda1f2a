"""Who looked: the staff acts about a person, each once, from the audit trail's entries about them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from store.domain.looks import StaffAct, TrailEntry, staff_acts

T = datetime(2026, 12, 1, 9, tzinfo=UTC)
ADA = {"actor": {"id": "ada", "tenantRef": "berlin", "roles": []}}


def preview(at: datetime, scope: str, who: str = "sam", after: object = ADA) -> TrailEntry:
    return TrailEntry(at, who, "preview", scope, after)


def test_a_preview_recorded_at_several_scopes_is_one_look_for_the_persons_organisation() -> None:
    entries = [preview(T, "global"), preview(T + timedelta(milliseconds=3), "tenant:berlin")]

    assert staff_acts("ada", entries) == (StaffAct(T + timedelta(milliseconds=3), "sam", "preview", "berlin"),)


def test_a_preview_by_support_of_another_organisation_names_theirs() -> None:
    entries = [preview(T, "global"), preview(T, "tenant:berlin"), preview(T, "tenant:hamburg")]

    assert [a.organisation for a in staff_acts("ada", entries)] == ["hamburg"]


def test_looks_apart_in_time_or_by_other_people_are_separate_and_newest_first() -> None:
    later = T + timedelta(minutes=5)
    entries = [preview(T, "tenant:berlin"), preview(later, "tenant:berlin"), preview(later, "global", who="tom")]

    assert [(a.who, a.at) for a in staff_acts("ada", entries)] == [("sam", later), ("tom", later), ("sam", T)]


def test_two_looks_in_the_same_second_are_two_looks() -> None:
    moment = T + timedelta(milliseconds=5)
    entries = [
        preview(T, "global"),
        preview(T, "tenant:berlin"),
        preview(moment, "global"),
        preview(moment, "tenant:berlin"),
    ]

    assert [a.at for a in staff_acts("ada", entries)] == [moment, T]


def test_a_preview_known_only_at_global_names_no_organisation() -> None:
    assert [a.organisation for a in staff_acts("ada", [preview(T, "global", after=None)])] == [None]


def test_an_erasure_names_the_organisation_it_was_recorded_at() -> None:
    erased = TrailEntry(T, "lena", "erase", "tenant:berlin", {"person": "ada"})
    everywhere = TrailEntry(T - timedelta(days=1), "gina", "erase", "global", {"person": "ada"})

    assert staff_acts("ada", [erased, everywhere]) == (
        StaffAct(T, "lena", "erase", "berlin"),
        StaffAct(T - timedelta(days=1), "gina", "erase", None),
    )


def test_a_refused_erasure_attempt_is_shown_as_one() -> None:
    tried = TrailEntry(T, "jonas", "erase-refused", "tenant:berlin", {"person": "ada"})

    assert staff_acts("ada", [tried]) == (StaffAct(T, "jonas", "erase-refused", "berlin"),)


def test_an_attempt_from_another_organisation_is_shown_once_as_done_for_that_organisation() -> None:
    tried = {"person": "ada", "tenantRef": "berlin", "for": "hamburg"}
    recorded = [TrailEntry(T, "jonas", "erase-refused", scope, tried) for scope in ("global", "tenant:berlin")]

    assert staff_acts("ada", recorded) == (StaffAct(T, "jonas", "erase-refused", "hamburg"),)


def test_an_operators_move_is_shown_and_a_sign_in_move_or_ones_own_act_is_not() -> None:
    moved = {"person": "ada", "from": "berlin", "to": None, "by": "operator"}
    by_sign_in = {"person": "ada", "from": None, "to": "berlin", "by": "sign-in"}
    entries = [
        TrailEntry(T, "ops", "move", "tenant:berlin", moved),
        TrailEntry(T, "ops", "move", "global", moved),
        TrailEntry(T - timedelta(days=2), "ada", "move", "tenant:berlin", by_sign_in),
        TrailEntry(T - timedelta(days=3), "someone", "move", "tenant:berlin", by_sign_in),
        TrailEntry(T - timedelta(days=4), "ada", "preview", "global", ADA),
        TrailEntry(T - timedelta(days=5), "lena", "write", "tenant:berlin", None),
    ]

    assert staff_acts("ada", entries) == (StaffAct(T, "ops", "move", None, moved_from="berlin", moved_to=None),)
