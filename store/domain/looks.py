"""Who on staff looked at a person, or acted on them: read from the audit trail's entries about them.

One act may be recorded several times, once at each scope whose overseers must see it (a preview at
`global`, at the person's organisation and at the viewer's own), never twice at one scope, and its
entries are written together: the person is shown it once. Pure:
the entries come in as data.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

__all__ = ("ACT_SPAN", "StaffAct", "TrailEntry", "staff_acts")

ACT_SPAN = timedelta(seconds=2)
"""The entries of one act are written together, in one transaction: within this of each other."""


@dataclass(frozen=True, slots=True)
class TrailEntry:
    """An audit entry about the person, as this rule needs it."""

    at: datetime
    who: str
    action: str
    scope: str
    after: Any


@dataclass(frozen=True, slots=True)
class StaffAct:
    """One act by someone other than the person: `organisation` is the organisation the one who acted
    did it for (None when the trail does not say: an act recorded at `global` only); `moved_from` and
    `moved_to` say where a move took the person (None: no organisation)."""

    at: datetime
    who: str
    kind: Literal["preview", "erase", "erase-refused", "move"]
    organisation: str | None
    moved_from: str | None = None
    moved_to: str | None = None


def staff_acts(person_id: str, entries: Iterable[TrailEntry]) -> tuple[StaffAct, ...]:
    """The staff acts about `person_id`, newest first, each once: previews of their prompt, their
    erasures and the attempts to erase them that were refused, and the moves an operator made. A
    move their own sign-in made is not a staff act, and neither is anything the person did themselves."""
    groups: list[list[TrailEntry]] = []
    for entry in sorted(entries, key=lambda e: e.at, reverse=True):
        if entry.action not in {"preview", "erase", "erase-refused", "move"} or entry.who == person_id:
            continue
        if entry.action == "move" and _after(entry).get("by") == "sign-in":
            continue
        last = groups[-1] if groups else None
        if last is not None and _same_act(last, entry):
            last.append(entry)
        else:
            groups.append([entry])
    return tuple(_act(group) for group in groups)


def _after(entry: TrailEntry) -> Mapping[str, Any]:
    return entry.after if isinstance(entry.after, Mapping) else {}


def _same_act(group: list[TrailEntry], entry: TrailEntry) -> bool:
    first = group[0]
    return (
        all(e.scope != entry.scope for e in group)
        and entry.who == first.who
        and entry.action == first.action
        and _after(entry) == _after(first)
        and first.at - entry.at <= ACT_SPAN
    )


def _tenants(group: list[TrailEntry]) -> list[str]:
    return [e.scope.removeprefix("tenant:") for e in group if e.scope.startswith("tenant:")]


def _acting_for(tenants: list[str], person_tenant: object) -> str | None:
    """The organisation a look was done for: it is recorded at the person's organisation and, when the
    one who looked is of another, at theirs too, which is the one it was for."""
    others = [t for t in tenants if t != person_tenant]
    return others[0] if others else _one(tenants)


def _one(tenants: list[str]) -> str | None:
    return tenants[0] if tenants else None


def _act(group: list[TrailEntry]) -> StaffAct:
    first = group[0]
    after = _after(first)
    tenants = _tenants(group)
    if first.action == "preview":
        looked_at = after.get("actor")
        person_tenant = looked_at.get("tenantRef") if isinstance(looked_at, Mapping) else None
        return StaffAct(first.at, first.who, "preview", _acting_for(tenants, person_tenant))
    if first.action == "erase-refused":  # `for`: the organisation the one who tried administers
        acting = after.get("for")
        return StaffAct(first.at, first.who, "erase-refused", acting if isinstance(acting, str) else _one(tenants))
    if first.action == "erase":
        return StaffAct(first.at, first.who, "erase", _one(tenants))
    moved_from, moved_to = after.get("from"), after.get("to")
    return StaffAct(first.at, first.who, "move", None, moved_from=moved_from, moved_to=moved_to)
