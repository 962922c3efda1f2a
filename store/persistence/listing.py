"""The personal page's records, read a page at a time: the search by words, the filters, the counts,
the order and the page are the database's work, so a page over ten thousand memories reads its
counts and fifty rows, not ten thousand.

What each filter asks of a row (the rules are `store.domain.finding`'s, `store.domain.paging`'s and,
for who wrote it, `web.kit.words.author_kind`'s; the page's tests hold them to the same answers):

- a search word: `folded_words` holds one of the word's needles (`LIKE '%needle%'`), or the row is
  one the rules found the word beneath (`found_beneath`, over the keys held at several scopes);
- `author`: `assistant` for a memory the assistant concluded; `you` for one a person wrote at the
  person's own scope, naming nobody else; `administrator` for any other a person wrote;
- `origin`: a memory from a conversation that is still there (`present`: its thread not deleted and,
  when it names one, its run not dropped) or no longer is (`gone`); one from no conversation is neither.

Orders: newest first (by `updated_at`), oldest first, or by `sort_key`; ties by the key as written,
then the id, in code points on either backend, as `store.domain.finding.in_page_order` sorts them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, exists, func, not_, or_, select
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncConnection

from store.domain.finding import needles
from store.domain.paging import RecordsAsk, RecordsMatching, RecordsPage, found_beneath, jump_page, page_start
from store.domain.precedence import resolve_digest
from store.domain.types import MemoryRecord
from store.persistence.memories import LIVE, MEMORY_COLUMNS, key_in_code_points, memory, records_from_rows
from store.persistence.registry import runs, threads

__all__ = (
    "contested_statements",
    "counts_statement",
    "matching_statement",
    "of_ids_statement",
    "page_statement",
    "passing_conditions",
    "records_holding",
    "records_matching",
    "records_of_ids",
    "records_page",
)

_LIKE_ESCAPE = "\\"
_IDS_AT_ONCE = 500
"""How many ids, or keys, one statement names: well under every driver's limit on parameters."""


async def records_page(connection: AsyncConnection, ask: RecordsAsk) -> RecordsPage:
    """One page of the records on file (see the module docstring), in four kinds of statement: the
    records of keys held at several scopes, the counts per scope, then a page of each scope shown."""
    if not ask.scopes:
        return RecordsPage(held={}, matching={}, shown={})
    contested = await _contested(connection, ask.scopes)
    passing = passing_conditions(ask, contested)
    held, matching = await _counts(connection, ask.scopes, passing)
    shown: dict[str, tuple[MemoryRecord, ...]] = {}
    starts: dict[str, int] = {}
    for scope in ask.scopes:
        if ask.scope not in (None, scope) or not matching.get(scope):
            continue
        page = ask.page if ask.scope == scope else 1
        if ask.scope == scope and ask.jump is not None:
            page = jump_page(await _ahead(connection, ask, scope, passing), ask.size)
        start = page_start(matching[scope], page, ask.size)
        rows = await connection.execute(page_statement(ask, scope, passing, start, connection.dialect))
        shown[scope] = tuple(records_from_rows(rows.all()))
        starts[scope] = start
    return RecordsPage(held=held, matching=matching, shown=shown, starts=starts, contested=contested)


async def records_matching(connection: AsyncConnection, ask: RecordsAsk) -> RecordsMatching:
    """Every record passing `ask`'s filters at the scopes it shows, with no page (see `RecordsMatching`):
    the person's own read in the list's order, the others counted per scope in one statement. A record
    a narrower one overrides is left out of both, as it is not the one that applies."""
    if not ask.scopes:
        return RecordsMatching()
    contested = await _contested(connection, ask.scopes)
    passing = passing_conditions(ask, contested)
    applying = {e.key: e.record.id for e in resolve_digest(contested, scopes=ask.scopes, max_memories=None).entries}
    beaten = sorted(r.id for r in contested if applying.get(r.key, r.id) != r.id)
    if beaten:
        passing.append(memory.c.id.not_in(beaten))
    shown = list(ask.scopes) if ask.scope is None else [ask.scope]
    own: list[MemoryRecord] = []
    if ask.own in shown:
        rows = await connection.execute(matching_statement(ask, ask.own, passing, connection.dialect))
        own = records_from_rows(rows.all())
    wider = [scope for scope in shown if scope != ask.own]
    _, matching = await _counts(connection, wider, passing) if wider else ({}, {})
    return RecordsMatching(own=tuple(own), shared=sum(matching.values()), contested=contested)


def matching_statement(
    ask: RecordsAsk, scope: str, passing: Sequence[ColumnElement[bool]], dialect: Dialect
) -> Select[Any]:
    """Every one of `scope`'s passing records, in the asked order."""
    return select(*MEMORY_COLUMNS).where(memory.c.scope == scope, *passing).order_by(*_order(ask, dialect))


async def records_of_ids(connection: AsyncConnection, scopes: Sequence[str], ids: Sequence[str]) -> list[MemoryRecord]:
    """The records `ids` held at one of `scopes`, and every record of their keys at `scopes`: what
    resolving those keys' entries needs, and nothing of the other keys. An id held elsewhere, or
    nowhere, brings nothing."""
    distinct = sorted(set(ids))
    if not scopes or not distinct:
        return []
    found: dict[str, MemoryRecord] = {}
    for start in range(0, len(distinct), _IDS_AT_ONCE):
        rows = await connection.execute(of_ids_statement(scopes, distinct[start : start + _IDS_AT_ONCE]))
        found.update((r.id, r) for r in records_from_rows(rows.all()))
    return list(found.values())


async def records_holding(
    connection: AsyncConnection, scopes: Sequence[str], keys: Sequence[str]
) -> list[MemoryRecord]:
    """Every record at `scopes` of one of `keys`, expired ones included, in no particular order."""
    distinct = sorted(set(keys))
    found: list[MemoryRecord] = []
    for start in range(0, len(distinct) if scopes else 0, _IDS_AT_ONCE):
        chunk = distinct[start : start + _IDS_AT_ONCE]
        rows = await connection.execute(
            select(*MEMORY_COLUMNS).where(memory.c.scope.in_(scopes), memory.c.key.in_(chunk))
        )
        found += records_from_rows(rows.all())
    return found


def of_ids_statement(scopes: Sequence[str], ids: Sequence[str]) -> Select[Any]:
    """The records at `scopes` of the keys the records `ids` hold there: each key a seek in the
    (scope, key) index."""
    keys = select(memory.c.key).where(memory.c.id.in_(ids), memory.c.scope.in_(scopes))
    return select(*MEMORY_COLUMNS).where(memory.c.scope.in_(scopes), memory.c.key.in_(keys))


async def _contested(connection: AsyncConnection, scopes: Sequence[str]) -> tuple[MemoryRecord, ...]:
    """Every record of a key held at more than one of `scopes`: each such key has a record at a scope
    wider than the narrowest, and the wider scopes hold few, so those are read, then the narrowest
    scope's records of their keys; the keys held once are left out here."""
    at_wider, *_ = contested_statements(scopes)
    wider = records_from_rows((await connection.execute(at_wider)).all())
    records = list(wider)
    for narrowest in contested_statements(scopes, wider)[1:]:
        records += records_from_rows((await connection.execute(narrowest)).all())
    held: dict[str, int] = {}
    for record in records:
        held[record.key] = held.get(record.key, 0) + 1
    return tuple(r for r in records if held[r.key] > 1)


def contested_statements(scopes: Sequence[str], wider: Sequence[MemoryRecord] | None = None) -> list[Select[Any]]:
    """What reads the records of the keys held at several scopes: every record at the wider scopes (all
    but the first; they hold few), then, once those are known (`wider`), the narrowest scope's records
    of their keys, named one by one so that each is a seek in the (scope, key) index whatever the
    planner guesses of the scope's size. A record of the narrowest scope that expired (`LIVE`) contests
    nothing: no prompt has it, so the wider value applies, and the page says so."""
    at_wider = select(*MEMORY_COLUMNS).where(memory.c.scope.in_(scopes[1:]))
    keys = sorted({r.key for r in wider or ()})
    if not keys:
        return [at_wider]
    narrowest = select(*MEMORY_COLUMNS).where(memory.c.scope == scopes[0], memory.c.key.in_(keys), LIVE)
    return [at_wider, narrowest]


def counts_statement(scopes: Sequence[str], passing: Sequence[ColumnElement[bool]]) -> Select[Any]:
    """Per scope: how many records it holds, and how many pass."""
    passes = func.count().filter(and_(*passing)) if passing else func.count()
    return select(memory.c.scope, func.count(), passes).where(memory.c.scope.in_(scopes)).group_by(memory.c.scope)


def page_statement(
    ask: RecordsAsk, scope: str, passing: Sequence[ColumnElement[bool]], start: int, dialect: Dialect
) -> Select[Any]:
    """One page of `scope`'s passing records, in the asked order, from index `start`."""
    return matching_statement(ask, scope, passing, dialect).limit(ask.size).offset(start)


def passing_conditions(ask: RecordsAsk, contested: Sequence[MemoryRecord]) -> list[ColumnElement[bool]]:
    """The filters, as conditions on `agent_memory`; `contested`, every record of a key held at more
    than one scope, says which records are found by words beneath them."""
    conditions: list[ColumnElement[bool]] = []
    if ask.words:
        entries = resolve_digest(contested, scopes=ask.scopes, max_memories=None).entries
        beneath = found_beneath(entries, ask.words)
        for word in ask.words:
            holds = or_(*(memory.c.folded_words.like(_containing(n), escape=_LIKE_ESCAPE) for n in needles(word)))
            conditions.append(or_(holds, memory.c.id.in_(sorted(beneath[word]))) if beneath[word] else holds)
    if ask.author:
        conditions.append(_written_by(ask))
    if ask.origin:
        resolves = and_(
            ~exists().where(threads.c.id == memory.c.origin_thread_id, threads.c.deleted_at.is_not(None)),
            or_(
                memory.c.origin_run_id.is_(None),
                ~exists().where(runs.c.run_id == memory.c.origin_run_id, runs.c.dropped_at.is_not(None)),
            ),
        )
        conditions.append(memory.c.origin_thread_id.is_not(None))
        conditions.append(resolves if ask.origin == "present" else not_(resolves))
    return conditions


def _written_by(ask: RecordsAsk) -> ColumnElement[bool]:
    by_assistant = memory.c.origin_author == "agent"
    theirs = and_(
        memory.c.scope == ask.own,
        or_(memory.c.origin_actor_ref.is_(None), memory.c.origin_actor_ref == ask.actor_id),
    )
    if ask.author == "assistant":
        return by_assistant
    if ask.author == "you":
        return and_(not_(by_assistant), theirs)
    return and_(not_(by_assistant), not_(theirs))


def _containing(needle: str) -> str:
    escaped = needle.replace(_LIKE_ESCAPE, _LIKE_ESCAPE * 2).replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


async def _counts(
    connection: AsyncConnection, scopes: Sequence[str], passing: Sequence[ColumnElement[bool]]
) -> tuple[dict[str, int], dict[str, int]]:
    """How many records each scope holds, and how many of them pass, in one statement."""
    rows = await connection.execute(counts_statement(scopes, passing))
    held: dict[str, int] = {}
    matching: dict[str, int] = {}
    for scope, count, passed in rows.all():
        held[scope], matching[scope] = count, passed
    return held, matching


async def _ahead(
    connection: AsyncConnection, ask: RecordsAsk, scope: str, passing: Sequence[ColumnElement[bool]]
) -> int:
    """How many passing records at `scope` come before the date jump's instant in the list's order."""
    before = memory.c.updated_at >= ask.jump if ask.order == "newest" else memory.c.updated_at < ask.jump
    counted = select(func.count()).select_from(memory).where(memory.c.scope == scope, before, *passing)
    return int((await connection.execute(counted)).scalar_one())


def _order(ask: RecordsAsk, dialect: Dialect) -> list[ColumnElement[Any]]:
    in_code_points = dialect.name == "postgresql"
    key = key_in_code_points(dialect)
    id_ = memory.c.id.collate("C") if in_code_points else memory.c.id
    if ask.order == "key":
        return [memory.c.sort_key.collate("C") if in_code_points else memory.c.sort_key, key, id_]
    when = memory.c.updated_at
    return [when.desc() if ask.order == "newest" else when.asc(), key, id_]
