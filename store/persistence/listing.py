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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import BindParameter, ColumnElement, Integer, Select, and_, bindparam, exists, func, not_, or_, select
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncConnection

from store.domain.finding import Order, needles
from store.domain.paging import (
    RecordsAsk,
    RecordsMatching,
    RecordsPage,
    found_beneath,
    jump_page,
    page_start,
)
from store.domain.precedence import resolve_digest
from store.domain.types import MemoryRecord
from store.persistence.driver import ReadConnection, run_statement
from store.persistence.keyed import KEY_SIZES
from store.persistence.memories import (
    LIVE,
    MEMORY_COLUMNS,
    key_in_code_points,
    memory,
    records_from_rows,
    records_of_rows,
)
from store.persistence.registry import runs, threads

__all__ = (
    "Passing",
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
_SELECT = select(*MEMORY_COLUMNS)
_IDS_AT_ONCE = 500
"""How many ids, or keys, one statement names: well under every driver's limit on parameters."""


async def records_page(connection: ReadConnection, ask: RecordsAsk) -> RecordsPage:
    """One page of the records on file (see the module docstring), in four kinds of statement: the
    records of keys held at several scopes, the counts per scope, then a page of each scope shown.
    Each statement is built once for its shape (`Passing`) and runs on the driver
    (`store.persistence.driver.run_statement`)."""
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
        statement, values = page_statement(ask, scope, passing, start, connection.dialect)
        shown[scope] = tuple(records_of_rows(connection, await run_statement(connection, statement, values)))
        starts[scope] = start
    return RecordsPage(held=held, matching=matching, shown=shown, starts=starts, contested=contested)


async def records_matching(connection: ReadConnection, ask: RecordsAsk) -> RecordsMatching:
    """Every record passing `ask`'s filters at the scopes it shows, with no page (see `RecordsMatching`):
    the person's own read in the list's order (a record a narrower one overrides left out, as it is not
    the one that applies), the others counted per scope in one statement, overridden or not."""
    if not ask.scopes:
        return RecordsMatching()
    contested = await _contested(connection, ask.scopes)
    applying = {e.key: e.record.id for e in resolve_digest(contested, scopes=ask.scopes, max_memories=None).entries}
    beaten = sorted(r.id for r in contested if applying.get(r.key, r.id) != r.id)
    passing = passing_conditions(ask, contested, beaten=beaten)
    shown = list(ask.scopes) if ask.scope is None else [ask.scope]
    own: list[MemoryRecord] = []
    if ask.own in shown:
        statement, values = matching_statement(ask, ask.own, passing, connection.dialect)
        own = records_of_rows(connection, await run_statement(connection, statement, values))
    wider = [scope for scope in shown if scope != ask.own]
    # every shared record that matches stays, those the person's own override included: the page lists them
    _, matching = await _counts(connection, wider, passing_conditions(ask, contested)) if wider else ({}, {})
    return RecordsMatching(own=tuple(own), shared=sum(matching.values()), contested=contested)


@dataclass(frozen=True, slots=True)
class Passing:
    """The filters of an ask (see the module docstring) as conditions on `agent_memory` with named
    parameters, built once for each `shape` (how many words, each with how many needles and how many
    ids found beneath it; who wrote it; whether its conversation is there), and the `values` those
    parameters take for this ask. A list of ids is padded, as `store.persistence.keyed` pads one, to
    one of few lengths, so few shapes are ever built."""

    shape: tuple[Any, ...]
    conditions: tuple[ColumnElement[bool], ...]
    values: Mapping[str, Any]


def passing_conditions(ask: RecordsAsk, contested: Sequence[MemoryRecord], *, beaten: Sequence[str] = ()) -> Passing:
    """The filters of `ask`; `contested`, every record of a key held at more than one scope, says which
    records are found by words beneath them. `beaten`, the ids of records left out as overridden."""
    values: dict[str, Any] = {}
    words: list[tuple[int, int]] = []
    if ask.words:
        entries = resolve_digest(contested, scopes=ask.scopes, max_memories=None).entries
        beneath = found_beneath(entries, ask.words)
        for i, word in enumerate(ask.words):
            found = needles(word)
            values.update((f"w{i}_{j}", _containing(needle)) for j, needle in enumerate(found))
            ids = _padded(sorted(beneath[word]))
            values.update((f"b{i}_{n}", id) for n, id in enumerate(ids))
            words.append((len(found), len(ids)))
    if ask.author:
        values.update(own=ask.own, actor_id=ask.actor_id)
    ids = _padded(sorted(beaten))
    values.update((f"x{n}", id) for n, id in enumerate(ids))
    shape = (tuple(words), ask.author, ask.origin, len(ids))
    return Passing(shape, _conditions(shape), values)


def _padded(ids: Sequence[str]) -> Sequence[str]:
    """`ids` padded with its last to the next of `KEY_SIZES`, or past the largest to a multiple of it:
    the same ids to an `IN`, in one of few lengths."""
    if not ids:
        return ids
    most = KEY_SIZES[-1]
    size = next((size for size in KEY_SIZES if size >= len(ids)), -(-len(ids) // most) * most)
    return [*ids, *[ids[-1]] * (size - len(ids))]


@lru_cache(maxsize=256)
def _conditions(shape: tuple[Any, ...]) -> tuple[ColumnElement[bool], ...]:
    words, author, origin, beaten = shape
    conditions: list[ColumnElement[bool]] = []
    for i, (found, ids) in enumerate(words):
        holds = or_(*(memory.c.folded_words.like(bindparam(f"w{i}_{j}"), escape=_LIKE_ESCAPE) for j in range(found)))
        beneath: list[BindParameter[Any]] = [bindparam(f"b{i}_{n}") for n in range(ids)]
        conditions.append(or_(holds, memory.c.id.in_(beneath)) if beneath else holds)
    if author:
        conditions.append(_written_by(author))
    if origin:
        resolves = and_(
            ~exists().where(threads.c.id == memory.c.origin_thread_id, threads.c.deleted_at.is_not(None)),
            or_(
                memory.c.origin_run_id.is_(None),
                ~exists().where(runs.c.run_id == memory.c.origin_run_id, runs.c.dropped_at.is_not(None)),
            ),
        )
        conditions.append(memory.c.origin_thread_id.is_not(None))
        conditions.append(resolves if origin == "present" else not_(resolves))
    if beaten:
        conditions.append(memory.c.id.not_in([bindparam(f"x{n}") for n in range(beaten)]))
    return tuple(conditions)


_made: dict[tuple[Any, ...], Select[Any]] = {}
"""The statements built, by what they are and their shape (see `Passing`)."""

_MADE_AT_MOST = 1024


def _statement(what: tuple[Any, ...], build: Callable[[], Select[Any]]) -> Select[Any]:
    """The statement `what` names, built by `build` the first time it is asked for."""
    statement = _made.get(what)
    if statement is None:
        if len(_made) >= _MADE_AT_MOST:
            _made.clear()
        statement = _made[what] = build()
    return statement


def matching_statement(
    ask: RecordsAsk, scope: str, passing: Passing, dialect: Dialect
) -> tuple[Select[Any], dict[str, Any]]:
    """Every one of `scope`'s passing records, in the asked order, and its parameters' values."""

    def build() -> Select[Any]:
        return _SELECT.where(memory.c.scope == bindparam("scope"), *passing.conditions).order_by(
            *_order(ask.order, dialect)
        )

    return _statement(("matching", passing.shape, ask.order, dialect.name), build), {**passing.values, "scope": scope}


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


async def _contested(connection: ReadConnection, scopes: Sequence[str]) -> tuple[MemoryRecord, ...]:
    """Every record of a key held at more than one of `scopes`: each such key has a record at a scope
    wider than the narrowest, and the wider scopes hold few, so those are read, then the narrowest
    scope's records of their keys; the keys held once are left out here."""
    at_wider, *_ = contested_statements(scopes)
    wider = records_of_rows(connection, await run_statement(connection, *at_wider))
    records = list(wider)
    for statement, values in contested_statements(scopes, wider)[1:]:
        records += records_of_rows(connection, await run_statement(connection, statement, values))
    held: dict[str, int] = {}
    for record in records:
        held[record.key] = held.get(record.key, 0) + 1
    return tuple(r for r in records if held[r.key] > 1)


def contested_statements(
    scopes: Sequence[str], wider: Sequence[MemoryRecord] | None = None
) -> list[tuple[Select[Any], dict[str, Any]]]:
    """What reads the records of the keys held at several scopes, and its parameters' values: every
    record at the wider scopes (all but the first; they hold few), then, once those are known
    (`wider`), the narrowest scope's records of their keys, named one by one so that each is a seek in
    the (scope, key) index whatever the planner guesses of the scope's size. A record of the narrowest
    scope that expired (`LIVE`) contests nothing: no prompt has it, so the wider value applies, and
    the page says so."""
    count = len(scopes) - 1
    at_wider = _statement(
        ("wider", count), lambda: _SELECT.where(memory.c.scope.in_([bindparam(f"s{n}") for n in range(count)]))
    )
    found = [(at_wider, {f"s{n}": scope for n, scope in enumerate(scopes[1:])})]
    keys = _padded(sorted({r.key for r in wider or ()}))
    if not keys:
        return found
    size = len(keys)
    narrowest = _statement(
        ("narrowest", size),
        lambda: _SELECT.where(
            memory.c.scope == bindparam("scope"), memory.c.key.in_([bindparam(f"k{n}") for n in range(size)]), LIVE
        ),
    )
    return [*found, (narrowest, {"scope": scopes[0], **{f"k{n}": key for n, key in enumerate(keys)}})]


def counts_statement(scopes: Sequence[str], passing: Passing) -> tuple[Select[Any], dict[str, Any]]:
    """Per scope: how many records it holds, and how many pass; and its parameters' values."""

    def build() -> Select[Any]:
        passes = func.count().filter(and_(*passing.conditions)) if passing.conditions else func.count()
        at = memory.c.scope.in_([bindparam(f"s{n}") for n in range(len(scopes))])
        return select(memory.c.scope, func.count(), passes).where(at).group_by(memory.c.scope)

    statement = _statement(("counts", passing.shape, len(scopes)), build)
    return statement, {**passing.values, **{f"s{n}": scope for n, scope in enumerate(scopes)}}


def page_statement(
    ask: RecordsAsk, scope: str, passing: Passing, start: int, dialect: Dialect
) -> tuple[Select[Any], dict[str, Any]]:
    """One page of `scope`'s passing records, in the asked order, from index `start`; and its
    parameters' values. The page's size is written into the statement, its start is bound."""

    def build() -> Select[Any]:
        matching, _ = matching_statement(ask, scope, passing, dialect)
        return matching.limit(ask.size).offset(bindparam("start", type_=Integer))

    statement = _statement(("page", passing.shape, ask.order, ask.size, dialect.name), build)
    return statement, {**passing.values, "scope": scope, "start": start}


def _written_by(author: str) -> ColumnElement[bool]:
    by_assistant = memory.c.origin_author == "agent"
    theirs = and_(
        memory.c.scope == bindparam("own"),
        or_(memory.c.origin_actor_ref.is_(None), memory.c.origin_actor_ref == bindparam("actor_id")),
    )
    if author == "assistant":
        return by_assistant
    if author == "you":
        return and_(not_(by_assistant), theirs)
    return and_(not_(by_assistant), not_(theirs))


def _containing(needle: str) -> str:
    escaped = needle.replace(_LIKE_ESCAPE, _LIKE_ESCAPE * 2).replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


async def _counts(
    connection: ReadConnection, scopes: Sequence[str], passing: Passing
) -> tuple[dict[str, int], dict[str, int]]:
    """How many records each scope holds, and how many of them pass, in one statement."""
    held: dict[str, int] = {}
    matching: dict[str, int] = {}
    for scope, count, passed in await run_statement(connection, *counts_statement(scopes, passing)):
        held[scope], matching[scope] = int(count), int(passed)
    return held, matching


async def _ahead(connection: ReadConnection, ask: RecordsAsk, scope: str, passing: Passing) -> int:
    """How many passing records at `scope` come before the date jump's instant in the list's order."""
    newest = ask.order == "newest"

    def build() -> Select[Any]:
        jump = bindparam("jump", type_=memory.c.updated_at.type)
        before = memory.c.updated_at >= jump if newest else memory.c.updated_at < jump
        at = memory.c.scope == bindparam("scope")
        return select(func.count()).select_from(memory).where(at, before, *passing.conditions)

    statement = _statement(("ahead", passing.shape, newest), build)
    rows = await run_statement(connection, statement, {**passing.values, "scope": scope, "jump": ask.jump})
    return int(rows[0][0])


def _order(order: Order, dialect: Dialect) -> list[ColumnElement[Any]]:
    in_code_points = dialect.name == "postgresql"
    key = key_in_code_points(dialect)
    id_ = memory.c.id.collate("C") if in_code_points else memory.c.id
    if order == "key":
        return [memory.c.sort_key.collate("C") if in_code_points else memory.c.sort_key, key, id_]
    when = memory.c.updated_at
    return [when.desc() if order == "newest" else when.asc(), key, id_]
