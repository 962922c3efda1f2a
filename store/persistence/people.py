"""People OnFile has seen, at login or in an agent call, with the tenant and roles they had then, and
the name their last login gave. The support preview offers them, so support staff pick a real person
instead of typing one; the pages name people by these names."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, delete, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine

from store.domain.finding import sought_person
from store.domain.types import Actor
from store.persistence.driver import point_rows, run_statement
from store.persistence.engine import reading, writing
from store.persistence.keyed import KeyedStatement, key_chunks
from store.persistence.tables import KnownPersonRow, PersonPreferenceRow, table_of
from store.persistence.types import utc_now

__all__ = ("KnownPeople",)

people = table_of(KnownPersonRow)
preferences = table_of(PersonPreferenceRow)
_ACTOR_COLUMNS = select(people.c.id, people.c.tenant_ref, people.c.roles)
_ACTOR_BY_ID = _ACTOR_COLUMNS.where(people.c.id == bindparam("id"))
_SEEN_AND_PAUSED = select(
    *(
        select(column).where(people.c.id == bindparam("id")).scalar_subquery()
        for column in _ACTOR_COLUMNS.selected_columns
    ),
    select(preferences.c.memory_paused).where(preferences.c.person_id == bindparam("id")).scalar_subquery(),
)
"""The person as last seen (all None when never seen) and their pause (`store.persistence.controls`), in one row."""
_NAMES = KeyedStatement(
    lambda ids: select(people.c.id, people.c.name).where(people.c.id.in_(ids), people.c.name.is_not(None))
)
"""The known names of a list of people, by id."""


def _note_statement(insert: Any, *, moving: bool) -> Any:
    """The upsert noting a person. Unless `moving`, a person already known in another organisation
    is left exactly as they were: only their sign-in (or an administrator) moves them."""
    columns = ("id", "tenant_ref", "roles", "last_seen_at", "name")
    statement = insert(people).values({name: bindparam(name) for name in columns})
    return statement.on_conflict_do_update(
        index_elements=[people.c.id],
        set_={
            "tenant_ref": statement.excluded.tenant_ref,
            "roles": statement.excluded.roles,
            "last_seen_at": statement.excluded.last_seen_at,
            # An agent call knows no name: it keeps the one the person's last login gave.
            "name": func.coalesce(statement.excluded.name, people.c.name),
        },
        where=None if moving else people.c.tenant_ref.is_not_distinct_from(statement.excluded.tenant_ref),
    )


# Built once, every value a named parameter: a new run notes its person, and building the upsert
# costs more than running it.
_NOTE = {
    (dialect, moving): _note_statement(insert, moving=moving)
    for dialect, insert in (("postgresql", postgresql.insert), ("sqlite", sqlite.insert))
    for moving in (False, True)
}


class KnownPeople:
    def __init__(self, engine: AsyncEngine, *, clock: Callable[[], datetime] = utc_now) -> None:
        self._engine = engine
        self._clock = clock

    async def note(self, actor: Actor, *, signed_in: bool = False, name: str | None = None) -> None:
        """Remember `actor` as seen now, with their current roles, and with `name` when one is given (at
        login); without one (an agent call) the name they had stays. Their organisation is recorded when
        they are first seen, and changes only when they `signed_in` with another one (their identity
        provider says so): an agent call naming another organisation changes nothing."""
        values = {
            "id": actor.id,
            "tenant_ref": actor.tenant_ref,
            "roles": list(actor.roles),
            "last_seen_at": self._clock(),
            "name": name,
        }
        async with writing(self._engine) as connection:
            statement = _NOTE[connection.dialect.name, signed_in]
            await run_statement(connection, statement, values, deferrable=True)

    async def forget(self, actor_id: str) -> bool:
        """No longer offer `actor_id`, and forget their name (their erasure)."""
        async with writing(self._engine) as connection:
            result = await connection.execute(delete(people).where(people.c.id == actor_id))
        return result.rowcount > 0

    async def recent(self, limit: int = 200) -> list[Actor]:
        """The people seen most recently first."""
        statement = _ACTOR_COLUMNS.order_by(people.c.last_seen_at.desc(), people.c.id).limit(limit)
        return await self._actors(statement)

    async def of_organisations(
        self, tenant_refs: Sequence[str], *, everyone: bool = False, sought: str | None = None, limit: int = 200
    ) -> list[tuple[Actor, str | None]]:
        """The people seen whose organisation is one of `tenant_refs` (`everyone`: whatever their
        organisation, or none), each with their name when it is known, most recently seen first, at
        most `limit` of them; `sought` keeps those it finds by id or name
        (`store.domain.finding.sought_person`). The organisations are filtered in the query, before the
        limit, so someone not seen lately is found like anyone else; a search reads the organisations'
        ids and names and keeps the people it finds, then the limit applies."""
        if not everyone and not tenant_refs:
            return []
        statement = select(people.c.id, people.c.tenant_ref, people.c.roles, people.c.name)
        if not everyone:
            statement = statement.where(people.c.tenant_ref.in_(tenant_refs))
        statement = statement.order_by(people.c.last_seen_at.desc(), people.c.id)
        if sought is None:
            statement = statement.limit(max(limit, 0))
        async with reading(self._engine) as connection:
            rows = (await connection.execute(statement)).all()
        found = [
            (Actor(id=id, tenant_ref=tenant, roles=tuple(roles or ())), name)
            for id, tenant, roles, name in rows
            if sought is None or sought_person(sought, id, name)
        ]
        return found[: max(limit, 0)]

    async def find(self, person: str) -> Actor | None:
        """The person seen with the id `person`, as last seen, if they were: a lookup by key, which
        a new run makes before anything else (`point_rows`: on a SQLite file, inline)."""
        rows = await point_rows(self._engine, _ACTOR_BY_ID, {"id": person})
        if not rows:
            return None
        [(id, tenant, roles)] = rows
        listed = json.loads(roles) if isinstance(roles, str) else roles  # the driver's own value: JSON text
        return Actor(id=id, tenant_ref=tenant, roles=tuple(listed or ()))

    async def find_with_pause(self, person: str) -> tuple[Actor | None, bool]:
        """`find`, and whether the person paused memory, in one lookup by key: what a new run asks
        before anything else."""
        [(id, tenant, roles, paused)] = await point_rows(self._engine, _SEEN_AND_PAUSED, {"id": person})
        if id is None:
            return None, bool(paused)
        listed = json.loads(roles) if isinstance(roles, str) else roles
        return Actor(id=id, tenant_ref=tenant, roles=tuple(listed or ())), bool(paused)

    async def names_of(self, ids: Iterable[str]) -> dict[str, str]:
        """The names of those of `ids` whose name is known, by id: everyone a page names, asked at once
        (`store.persistence.keyed`: on a SQLite file, inline)."""
        wanted = sorted(set(ids))
        found: dict[str, str] = {}
        for chunk in key_chunks(wanted):
            found.update((id, name) for id, name in await _NAMES.rows(self._engine, chunk))
        return found

    async def _actors(self, statement: Any) -> list[Actor]:
        async with reading(self._engine) as connection:
            rows = (await connection.execute(statement)).all()
        return [Actor(id=id, tenant_ref=tenant, roles=tuple(roles or ())) for id, tenant, roles in rows]
