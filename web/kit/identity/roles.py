"""What the identity provider's claims make of a person, and when a session asks it again: pure rules,
data in and decisions out, with no I/O and no clock of their own (time is a parameter)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from store import Actor
from store.domain.identifiers import id_problem

__all__ = (
    "RoleChange",
    "UnusableOrganisationError",
    "actor_from_claims",
    "recheck_due",
    "role_change",
    "roles_from_claims",
)


def roles_from_claims(claims: Mapping[str, Any], roles_claim: str) -> tuple[str, ...]:
    """The roles in `roles_claim`, then in `groups`, each once, in the order first named. A claim may be
    a list or one space-separated string; anything else in it names no role."""
    roles: list[str] = []
    for claim in (roles_claim, "groups"):
        value = claims.get(claim)
        if isinstance(value, str):
            value = value.split()
        if isinstance(value, list):
            roles.extend(str(v) for v in value if str(v) not in roles)
    return tuple(roles)


class UnusableOrganisationError(ValueError):
    """The organisation claim holds what cannot name one organisation: several values, an object, or
    text that is not an id (`store.domain.identifiers`)."""

    def __init__(self, claim: str, value: object) -> None:
        self.claim = claim
        super().__init__(f"{claim} claim {value!r}")


def actor_from_claims(claims: Mapping[str, Any], *, tenant_claim: str, roles_claim: str) -> Actor:
    """The person the claims describe: `sub` is their id, `tenant_claim` their organisation (none when
    absent or empty). A provider may send the organisation as a list of one (a multivalued attribute);
    anything that cannot name one organisation as an agent would name it is `UnusableOrganisationError`,
    never an organisation made of its printed form."""
    return Actor(
        id=str(claims["sub"]),
        tenant_ref=_organisation(claims.get(tenant_claim), tenant_claim),
        roles=roles_from_claims(claims, roles_claim),
    )


def _organisation(value: object, claim: str) -> str | None:
    one = value[0] if isinstance(value, list) and len(value) == 1 else value
    if one is None or one == "" or one == []:
        return None
    if isinstance(one, bool) or not isinstance(one, str | int):
        raise UnusableOrganisationError(claim, value)
    text = str(one)
    if id_problem("The organisation", text) is not None:
        raise UnusableOrganisationError(claim, value)
    return text


def recheck_due(checked_at: datetime | None, now: datetime, every: timedelta) -> bool:
    """Whether to ask the provider again: never asked (`checked_at` None), or asked `every` ago or
    longer, whatever it answered then. A check dated more than `every` ahead of `now` is due too: a
    host's clock was wrong, and trusting it would postpone the next check for as long."""
    if checked_at is None:
        return True
    return not now - every < checked_at <= now + every


@dataclass(frozen=True, slots=True)
class RoleChange:
    """What a recheck changed: the roles granted and revoked, and the organisation before and after."""

    granted: tuple[str, ...]
    revoked: tuple[str, ...]
    tenant_before: str | None
    tenant_after: str | None

    @property
    def changed(self) -> bool:
        return bool(self.granted or self.revoked) or self.tenant_before != self.tenant_after

    def __str__(self) -> str:
        parts = [f"+{role}" for role in self.granted] + [f"-{role}" for role in self.revoked]
        if self.tenant_before != self.tenant_after:
            parts.append(f"organisation {self.tenant_before} -> {self.tenant_after}")
        return ", ".join(parts) or "unchanged"


def role_change(before: Actor, after: Actor) -> RoleChange:
    return RoleChange(
        granted=tuple(role for role in after.roles if role not in before.roles),
        revoked=tuple(role for role in before.roles if role not in after.roles),
        tenant_before=before.tenant_ref,
        tenant_after=after.tenant_ref,
    )
