"""The rules behind a session's roles: what the provider's claims make of a person, when a session asks
again, and what a recheck changed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from store import Actor
from web.kit.identity.roles import (
    UnusableOrganisationError,
    actor_from_claims,
    recheck_due,
    role_change,
    roles_from_claims,
)

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
EVERY = timedelta(minutes=5)


@pytest.mark.parametrize(
    ("claims", "roles"),
    [
        ({}, ()),
        ({"roles": ["onfile-admin", "staff"]}, ("onfile-admin", "staff")),
        ({"roles": "onfile-admin  staff"}, ("onfile-admin", "staff")),
        ({"groups": ["onfile-support"]}, ("onfile-support",)),
        ({"roles": ["staff"], "groups": ["onfile-admin", "staff"]}, ("staff", "onfile-admin")),
        ({"roles": ["staff", "staff"]}, ("staff",)),
        ({"roles": {"onfile-admin": True}}, ()),
        ({"roles": 7}, ()),
        ({"roles": [7, "x"]}, ("7", "x")),
    ],
)
def test_roles_come_from_the_roles_claim_then_groups_each_once(claims: dict[str, Any], roles: tuple[str, ...]) -> None:
    assert roles_from_claims(claims, "roles") == roles


def test_the_roles_claim_is_the_one_the_settings_name() -> None:
    claims = {"roles": ["ignored"], "app_roles": ["onfile-admin"]}

    assert roles_from_claims(claims, "app_roles") == ("onfile-admin",)


@pytest.mark.parametrize(
    ("claims", "actor"),
    [
        ({"sub": "ada", "tenant": "berlin", "roles": ["staff"]}, Actor("ada", "berlin", ("staff",))),
        ({"sub": "ada"}, Actor("ada", None, ())),
        ({"sub": "ada", "tenant": ""}, Actor("ada", None, ())),
        ({"sub": 42, "tenant": 7}, Actor("42", "7", ())),
        ({"sub": "ada", "tenant": ["berlin"]}, Actor("ada", "berlin", ())),
        ({"sub": "ada", "tenant": []}, Actor("ada", None, ())),
    ],
)
def test_the_actor_is_sub_with_the_organisation_and_roles_claimed(claims: dict[str, Any], actor: Actor) -> None:
    assert actor_from_claims(claims, tenant_claim="tenant", roles_claim="roles") == actor


@pytest.mark.parametrize(
    "organisation", [["berlin", "hamburg"], {"name": "berlin"}, True, "berlin\nx", " berlin", "x" * 201, 1.5]
)
def test_an_organisation_claim_that_cannot_name_one_organisation_is_refused(organisation: object) -> None:
    with pytest.raises(UnusableOrganisationError, match=r"^org claim"):
        actor_from_claims({"sub": "ada", "org": organisation}, tenant_claim="org", roles_claim="roles")


@pytest.mark.parametrize(
    ("checked_at", "due"),
    [
        (None, True),
        (NOW, False),
        (NOW - timedelta(minutes=4, seconds=59), False),
        (NOW - EVERY, True),
        (NOW - timedelta(hours=3), True),
        (NOW + timedelta(minutes=1), False),
        (NOW + EVERY, False),
        (NOW + EVERY + timedelta(seconds=1), True),
    ],
)
def test_a_recheck_is_due_once_the_interval_has_passed_since_the_last(checked_at: datetime | None, due: bool) -> None:
    assert recheck_due(checked_at, NOW, EVERY) is due


def test_a_role_change_says_what_was_granted_revoked_and_moved() -> None:
    before = Actor("lena", "berlin", ("staff", "onfile-admin"))
    after = Actor("lena", "hamburg", ("staff", "onfile-support"))

    change = role_change(before, after)

    assert (change.granted, change.revoked) == (("onfile-support",), ("onfile-admin",))
    assert change.changed
    assert str(change) == "+onfile-support, -onfile-admin, organisation berlin -> hamburg"


def test_the_same_roles_in_another_order_are_no_change() -> None:
    change = role_change(Actor("lena", "berlin", ("a", "b")), Actor("lena", "berlin", ("b", "a")))

    assert not change.changed
    assert str(change) == "unchanged"
