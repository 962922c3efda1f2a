"""Generated worlds for the isolation properties: organisations, depots, people and their records.

A world is a handful of people drawn from a small pool of ids and organisations (look-alikes
included: `p1` beside `p12` and `P1`, `berlin` beside `berlin2`), each with roles that may make them
an administrator, a global administrator, support staff or a member of a depot — a scope the
deployment mints, resolved by `DepotResolver` between the person and their organisation. Records sit
at the pool's scopes, including those of people and organisations nobody in the world belongs to,
with keys from a small pool so that conflicts (and so beaten records) are common.

Every record's text carries a marker no other record's text contains (`m007x`), so a leak is found by
looking for a foreign marker anywhere in an answer — JSON, block or HTML — whatever shape the answer has.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from store import Actor, MemoryOrigin, MemoryRecord, ScopeContext
from store.domain.scopes import GLOBAL_SCOPE

__all__ = (
    "ADMIN_ROLE",
    "GLOBAL_ADMIN_ROLE",
    "LONG_RUN",
    "PERSON_IDS",
    "SCOPE_POOL",
    "SUPPORT_ROLE",
    "DepotResolver",
    "World",
    "examples",
    "markers_in",
    "property_settings",
    "worlds",
)

LONG_RUN = os.environ.get("ONFILE_LONG_TESTS") == "1"
"""`ONFILE_LONG_TESTS=1` multiplies every property's examples by ten and lets hypothesis explore new
ones; without it each property runs its fixed, derandomised set (the CI budget)."""


def examples(count: int) -> int:
    return count * 10 if LONG_RUN else count


def property_settings(count: int) -> settings:
    """`count` examples (ten times as many under `ONFILE_LONG_TESTS=1`), no deadline (a test client's
    first request warms caches), a fixed seed unless exploring, and no example database to replay."""
    return settings(
        max_examples=examples(count),
        deadline=None,
        derandomize=not LONG_RUN,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


ADMIN_ROLE = "onfile-admin"
GLOBAL_ADMIN_ROLE = "onfile-global-admin"
SUPPORT_ROLE = "onfile-support"
PERSON_IDS = ("p1", "p2", "p12", "P1", "p3")
TENANTS = ("berlin", "hamburg", "berlin2")
DEPOTS = ("depot:spandau", "depot:tegel")
KEYS = ("units", "tone", "fiscal-year", "depot-code", "shift")
SCOPE_POOL = (
    *(f"actor:{p}" for p in (*PERSON_IDS, "p4")),
    *(f"tenant:{t}" for t in (*TENANTS, "lyon")),
    *DEPOTS,
    "depot:spandau2",
    GLOBAL_SCOPE,
    "Global",
    "tenant:",
)
"""Every scope a generated record may sit at: the people's and organisations' own, ones nobody in a
world belongs to, and look-alikes no resolver ever answers."""

_MARKER = re.compile(r"m\d{3}x")
_T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)


class DepotResolver:
    """A deployment's resolver that mints a scope: the person, then each depot named in their roles
    (a role spelt like the scope, `depot:spandau`), then their organisation, then global."""

    async def resolve(self, ctx: ScopeContext) -> Sequence[str]:
        return scopes_of(ctx.actor)


def scopes_of(actor: Actor) -> tuple[str, ...]:
    depots = tuple(sorted(r for r in actor.roles if r in DEPOTS))
    tenant = (f"tenant:{actor.tenant_ref}",) if actor.tenant_ref else ()
    return (f"actor:{actor.id}", *depots, *tenant, GLOBAL_SCOPE)


def markers_in(text: str) -> set[str]:
    """The record markers an answer shows."""
    return set(_MARKER.findall(text))


@dataclass(frozen=True)
class World:
    people: tuple[Actor, ...]
    records: tuple[MemoryRecord, ...]
    turn_text: str
    max_memories: int

    def scopes_of(self, actor: Actor) -> tuple[str, ...]:
        return scopes_of(actor)

    def marker(self, record: MemoryRecord) -> str:
        found = _MARKER.search(record.text)
        assert found is not None
        return found.group()

    def markers_at(self, scopes: Iterable[str]) -> set[str]:
        """The markers of every record held at one of `scopes`."""
        wanted = set(scopes)
        return {self.marker(r) for r in self.records if r.scope in wanted}

    def winners(self, actor: Actor) -> dict[str, MemoryRecord]:
        """Per key, the record the person is answered from: the narrowest of their scopes, then the newest."""
        ranks = {scope: rank for rank, scope in enumerate(self.scopes_of(actor))}
        best: dict[str, MemoryRecord] = {}
        for record in self.records:
            if record.scope not in ranks:
                continue
            held = best.get(record.key)
            order = (ranks[record.scope], -record.updated_at.timestamp(), record.id)
            if held is None or order < (ranks[held.scope], -held.updated_at.timestamp(), held.id):
                best[record.key] = record
        return best

    def foreign(self, actor: Actor) -> list[MemoryRecord]:
        """Records at scopes the person does not resolve to."""
        scopes = set(self.scopes_of(actor))
        return [r for r in self.records if r.scope not in scopes]

    def beaten(self, actor: Actor) -> list[MemoryRecord]:
        """Records the person's scopes hold that lose to a narrower one at the same key."""
        scopes = set(self.scopes_of(actor))
        winners = {r.id for r in self.winners(actor).values()}
        return [r for r in self.records if r.scope in scopes and r.id not in winners]


_ROLES = (ADMIN_ROLE, GLOBAL_ADMIN_ROLE, SUPPORT_ROLE, *DEPOTS, "staff")
_TENANT_CHOICES = (None, *TENANTS)
_SLOTS = len(SCOPE_POOL) * len(KEYS)

# Worlds are drawn as a few lists of integers, each unpacked into a person or a record: as
# expressive as nested strategies, and several times cheaper to generate, which is what lets the
# properties run thousands of examples within the CI budget.
_people_codes = st.lists(
    st.integers(0, len(PERSON_IDS) * len(_TENANT_CHOICES) * 2 ** len(_ROLES) - 1),
    min_size=1,
    max_size=4,
    unique_by=lambda code: code % len(PERSON_IDS),
)
_record_codes = st.lists(st.integers(0, _SLOTS * 4 * 500 - 1), max_size=30, unique_by=lambda code: code % _SLOTS)


def _person(code: int) -> Actor:
    code, id_index = divmod(code, len(PERSON_IDS))
    roles_mask, tenant_index = divmod(code, len(_TENANT_CHOICES))
    roles = tuple(role for bit, role in enumerate(_ROLES) if roles_mask >> bit & 1)
    return Actor(id=PERSON_IDS[id_index], tenant_ref=_TENANT_CHOICES[tenant_index], roles=roles)


def _record(serial: int, code: int) -> MemoryRecord:
    code, slot = divmod(code, _SLOTS)
    minutes, flags = divmod(code, 4)
    scope, key = SCOPE_POOL[slot // len(KEYS)], KEYS[slot % len(KEYS)]
    origin = MemoryOrigin(
        author="human" if flags & 1 else "agent",
        thread_id=f"thr_{serial % 3}",
        run_id=f"run_{serial}",
        actor_ref=scope.partition(":")[2] or "admin",
    )
    return MemoryRecord(
        id=f"mem_w{serial:03d}",
        key=key,
        text=f"fact m{serial:03d}x about {key}",
        scope=scope,
        origin=origin,
        updated_at=_T0 + timedelta(minutes=minutes),
        pinned=bool(flags & 2),
    )


@st.composite
def worlds(draw: st.DrawFn) -> World:
    people = tuple(_person(code) for code in draw(_people_codes))
    records = tuple(_record(serial, code) for serial, code in enumerate(draw(_record_codes)))
    # The turn names some records' markers, foreign ones included: a search that ranked before it
    # filtered would bring them back.
    named = draw(st.lists(st.integers(0, max(len(records) - 1, 0)), max_size=6)) if records else []
    words = [f"m{serial:03d}x" for serial in named] + [KEYS[n] for n in draw(st.lists(st.integers(0, 4), max_size=2))]
    return World(people=people, records=records, turn_text=" ".join(words), max_memories=draw(st.integers(1, 25)))
