"""SQLite's search index (migration 0004, `store.persistence.search_index`): its postings and totals stay
exactly in step with the rows through every kind of write, and a search reads only the postings of
the turn's terms and their records — never a scan, never a row of another scope."""

from __future__ import annotations

import re
import shutil
import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.engine import make_url

from store import MemoryOrigin, MemoryRecord, ScopeContext
from store.domain.types import Actor
from store.in_memory import InMemoryMemoryProvider
from store.persistence import SqlMemoryProvider, open_engine
from store.persistence import driver as driver_module
from store.persistence.engine import natural_log, provide_ln
from store.persistence.search import query_words, relevance_statement
from store.persistence.search_index import index_totals
from store.persistence.terms import index_terms
from tests.builders import T0
from tests.integration.builders import ADA, make_record, scopes_of
from tests.integration.index_check import index_out_of_step

WORDS = ["invoice", "report", "depot", "route", "driver", "shift", "metric", "budget", "forecast", "pallet"]
PEOPLE = [Actor(f"p{n}", f"t{n % 3}") for n in range(12)]


def records(count: int, *, start: int = 0) -> list[MemoryRecord]:
    """`count` memories over 12 people, 3 organisations and global, each text nine of the words."""
    scopes = ["global", *(f"tenant:t{n}" for n in range(3)), *(f"actor:{p.id}" for p in PEOPLE)]
    return [
        MemoryRecord(
            id=f"mem_{n}",
            key=f"{WORDS[n % 10]}-{n}",
            text=" ".join(WORDS[(n * 7 + k * 3) % 10] for k in range(9)) + f" w{n}x",
            scope=scopes[n % len(scopes)],
            origin=MemoryOrigin("human"),
            updated_at=T0,
        )
        for n in range(start, start + count)
    ]


def _write(provider: SqlMemoryProvider, person: Actor, key: str, text: str) -> Callable[[], Awaitable[object]]:
    return lambda: provider.write(
        key=key, text=text, scope=f"actor:{person.id}", origin=MemoryOrigin("human"), ctx=ScopeContext(person)
    )


async def test_every_kind_of_write_keeps_the_postings_and_totals_exactly_in_step(sqlite_database_url: str) -> None:
    engine = open_engine(sqlite_database_url)
    provider = SqlMemoryProvider(engine)
    ada, bea = PEOPLE[0], PEOPLE[1]
    steps: list[tuple[str, Callable[[], Awaitable[object]]]] = [
        ("a bulk add", lambda: provider.add(records(60))),
        ("a new memory", _write(provider, ada, "route", "the depot route runs past the depot")),
        ("a rewrite", _write(provider, ada, "route", "the route changed: it avoids the depot now")),
        ("a rewrite to the same text", _write(provider, ada, "route", "the route changed: it avoids the depot now")),
        ("a memory with no words", _write(provider, ada, "😀", "🔥 — …")),
        ("a rewrite from no words to some", _write(provider, ada, "😀", "emoji emoji emoji")),
        ("another person's memory", _write(provider, bea, "route", "depot depot depot")),
        ("a pin", lambda: provider.pin("mem_3", True)),
        ("an add replacing stored records", lambda: provider.add(records(10, start=55))),
        ("an administrative delete", lambda: provider.retire("mem_7")),
        ("a forget", lambda: provider.forget(id="mem_12", ctx=ScopeContext(Actor("p8", "t2")))),
        ("forgetting all of a person's", lambda: provider.forget_all(ctx=ScopeContext(ada))),
        ("retiring a scope", lambda: provider.retire_scope("tenant:t1")),
    ]
    try:
        for name, step in steps:
            await step()
            assert await index_out_of_step(engine) == [], f"after {name}"
        async with engine.connect() as connection:
            totals = await index_totals(connection)
    finally:
        await engine.dispose()

    assert totals.records > 40, "the steps left an index to check"
    assert totals.postings > 400


async def test_write_and_forget_churn_keeps_the_index_in_step(sqlite_database_url: str) -> None:
    engine = open_engine(sqlite_database_url)
    provider = SqlMemoryProvider(engine)
    try:
        await provider.add(records(400))
        for n in range(300):
            person = PEOPLE[n % len(PEOPLE)]
            await _write(provider, person, f"churn-{n % 7}", f"cycle w{n}x {WORDS[n % 10]} {WORDS[n % 10]}")()
            if n % 3 == 0:
                found = await provider.at_scope_key(f"actor:{person.id}", f"churn-{(n + 3) % 7}")
                if found is not None:
                    assert await provider.forget(id=found.id, ctx=ScopeContext(person))
        assert await index_out_of_step(engine) == []
    finally:
        await engine.dispose()


def _compiled(scopes: Sequence[str], query: str, limit: int = 20) -> tuple[str, list[Any]]:
    statement, params = relevance_statement("sqlite", scopes, query_words(query), limit)
    done = statement.params(params).compile(
        dialect=sqlite_dialect.dialect(), compile_kwargs={"render_postcompile": True}
    )
    return done.string, [done.params[name] for name in done.positiontup or ()]


def _path(database_url: str) -> Path:
    return Path(make_url(database_url).database or "")


@pytest.mark.parametrize("analyzed", [False, True], ids=["as migrated", "after ANALYZE"])
async def test_a_search_seeks_the_postings_by_term_and_the_records_by_key_never_scanning_either(
    sqlite_database_url: str, analyzed: bool
) -> None:
    engine = open_engine(sqlite_database_url)
    try:
        await SqlMemoryProvider(engine).add(records(600))
    finally:
        await engine.dispose()
    sql, params = _compiled(["actor:p0", "tenant:t0", "global"], "invoice depot w17x and budget")
    with closing(sqlite3.connect(_path(sqlite_database_url))) as connection:
        if analyzed:  # the planner then knows how many rows each table holds: the plan must not change
            connection.execute("ANALYZE")
        plan = [row[3] for row in connection.execute(f"EXPLAIN QUERY PLAN {sql}", params)]

    postings = [step for step in plan if re.search(r"\b(holder|posting|memory_terms)\b", step)]
    records_read = [step for step in plan if re.search(r"\b(memory|agent_memory)\b", step)]
    assert postings == ["SEARCH holder USING PRIMARY KEY (term=?)", "SEARCH posting USING PRIMARY KEY (term=?)"]
    assert records_read[0] == "SEARCH memory USING INTEGER PRIMARY KEY (rowid=?)", "each holder's record, by key"
    # Then the second and third clauses: the keys pinned at the turn's scopes, through the scope index,
    # and each returned key's records, sought by (scope, key) — never a pass over the records of the
    # scopes to test each against the keys.
    assert len(records_read) == 3
    assert re.fullmatch(r"SEARCH agent_memory USING (COVERING )?INDEX \w+ \(scope=\?\)", records_read[1])
    assert re.fullmatch(r"SEARCH agent_memory USING (COVERING )?INDEX \w+ \(scope=\? AND key=\?\)", records_read[2])


def _instructions(database: Path, sql: str, params: list[Any]) -> int:
    """How many virtual-machine instructions SQLite runs for `sql` (its triggers' included): every row
    it visits costs some, however it was found, so this counts the work done, not the time taken."""
    count = 0

    def tick() -> int:
        nonlocal count
        count += 1
        return 0

    with closing(sqlite3.connect(database, isolation_level=None)) as connection:
        connection.set_progress_handler(tick, 1)
        connection.execute(sql, params).fetchall()
    return count


def _ada_and_others(others: int, *, more_of_adas: bool = False) -> list[MemoryRecord]:
    """30 memories at Ada's scopes (60 with `more_of_adas`) and `others` at 50 other people's, all
    holding the same words."""
    mine = 60 if more_of_adas else 30
    ada = [make_record(f"k{n}", f"invoice depot {WORDS[n % 10]} and more", scopes_of(ADA)[n % 3]) for n in range(mine)]
    return ada + [
        make_record(f"k{n}", f"invoice depot {WORDS[n % 10]} and more", f"actor:other{n % 50}") for n in range(others)
    ]


STORES = {"others x10": _ada_and_others(300), "others x100": _ada_and_others(3000)}


async def _store(folder: Path, template: Path, name: str, stored: list[MemoryRecord]) -> Path:
    path = folder / f"{name}.sqlite3"
    shutil.copyfile(template, path)
    engine = open_engine(f"sqlite+aiosqlite:///{path}")
    try:
        await SqlMemoryProvider(engine).add(stored)
    finally:
        await engine.dispose()
    return path


async def test_a_search_does_the_same_work_however_much_other_scopes_hold_of_the_same_words(
    tmp_path: Path, sqlite_template: Path
) -> None:
    """Ada's turn in a store where other people hold the same words 10 and 100 times over costs the
    same instructions; a store where Ada herself holds more costs more (the count measures work)."""
    stores = {**STORES, "more of Ada's": _ada_and_others(300, more_of_adas=True)}
    search = _compiled(scopes_of(ADA), "invoice and depot budget, anything else?")
    counts = {}
    for name, stored in stores.items():
        counts[name] = _instructions(await _store(tmp_path, sqlite_template, name, stored), *search)

    assert counts["others x10"] == counts["others x100"]
    assert counts["more of Ada's"] > counts["others x10"]


_WRITE = """INSERT INTO agent_memory (id, scope, key, text, origin_author, pinned, created_at, updated_at, search_terms)
    VALUES ('mem_new', 'actor:ada', 'new', 'invoice depot', 'human', 0, '2026-01-01', '2026-01-01', ?)"""


async def test_a_write_and_a_forget_do_the_same_work_however_large_the_store(
    tmp_path: Path, sqlite_template: Path
) -> None:
    """The triggers' work, counted in instructions as above: a new memory's postings and totals, and
    a forget finding its postings again, cost the same in a store ten times larger."""
    counts: dict[str, tuple[int, int]] = {}
    for name, stored in STORES.items():
        path = await _store(tmp_path, sqlite_template, name, stored)
        written = _instructions(path, _WRITE, [index_terms("actor:ada", "new", "invoice depot invoice")])
        forgotten = _instructions(path, "DELETE FROM agent_memory WHERE id = 'mem_new'", [])
        counts[name] = (written, forgotten)

    assert counts["others x10"] == counts["others x100"]


QUERIES = ["invoice report", "pallet pallet depot", "forecast w17x budget", "driver and the shift", "nothing"]


async def test_a_sqlite_without_ln_ranks_with_onfile_s_own_exactly_as_the_reference(
    sqlite_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(driver_module, "_inline_readers", lambda _engine: None)  # every search on a pooled connection
    engine = open_engine(sqlite_database_url)
    calls = []

    def counted_log(value: object) -> float | None:
        calls.append(value)
        return natural_log(value)

    @event.listens_for(engine.sync_engine, "connect")
    def _replace_ln(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.create_function("ln", 1, counted_log, deterministic=True)

    stored = records(300)
    reference = InMemoryMemoryProvider(stored)
    provider = SqlMemoryProvider(engine)
    try:
        await provider.add(stored)
        for person in PEOPLE[:4]:
            scopes = [f"actor:{person.id}", f"tenant:{person.tenant_ref}", "global"]
            for query in QUERIES:
                found = await provider.search(scopes=scopes, query=query, limit=5, ctx=ScopeContext(person))
                expected = await reference.search(scopes=scopes, query=query, limit=5, ctx=ScopeContext(person))
                assert [r.id for r in found] == [r.id for r in expected], (person.id, query)
    finally:
        await engine.dispose()

    assert calls, "the search took its logarithms from the registered function"


async def test_a_search_run_inline_is_given_onfile_s_ln_where_sqlite_lacks_one(
    sqlite_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[object] = []

    def lacking(dbapi_connection: Any, cursor: Any) -> bool:
        asked.append(dbapi_connection)
        dbapi_connection.create_function("ln", 1, natural_log, deterministic=True)
        return True

    monkeypatch.setattr(driver_module, "provide_ln", lacking)
    engine = open_engine(sqlite_database_url)
    stored = records(40)
    provider = SqlMemoryProvider(engine)
    person = PEOPLE[0]
    scopes = [f"actor:{person.id}", f"tenant:{person.tenant_ref}", "global"]
    try:
        await provider.add(stored)
        # a ranked turn of a person with few memories: its first read and its search run inline
        found = await provider.recall(scopes=scopes, query="invoice report", limit=3, ctx=ScopeContext(person))
    finally:
        await engine.dispose()
    expected = await InMemoryMemoryProvider(stored).recall(
        scopes=scopes, query="invoice report", limit=3, ctx=ScopeContext(person)
    )

    assert found.ranked
    assert [r.id for r in found.records] == [r.id for r in expected.records]
    assert any(isinstance(connection, sqlite3.Connection) for connection in asked), "the inline reader was given ln"


@pytest.mark.parametrize(
    "value", [0.5, 1.0, 1.5, 2.0, 3.5 / 1.5, 7.0, 1e-300, 1e300, 12345.678, 3, 0.0, -1.0, None, "x"]
)
def test_onfile_s_ln_is_sqlite_s_to_the_bit(value: object) -> None:
    with closing(sqlite3.connect(":memory:")) as connection:
        (builtin,) = connection.execute("SELECT ln(?)", (value,)).fetchone()

    assert natural_log(value) == builtin
    if builtin is not None:
        assert float(natural_log(value) or 0).hex() == float(builtin).hex()


class WithoutMath:
    """A DB-API connection (and its cursor) whose SQLite answers `ln()` as a build without math
    functions does, or fails otherwise with `failure`."""

    def __init__(self, failure: str = "no such function: ln") -> None:
        self.failure = failure
        self.registered: dict[str, tuple[int, object, bool]] = {}

    def execute(self, _sql: str) -> None:
        raise sqlite3.OperationalError(self.failure)

    def create_function(self, name: str, arity: int, function: object, *, deterministic: bool) -> None:
        self.registered[name] = (arity, function, deterministic)


def test_ln_is_provided_only_where_sqlite_lacks_it() -> None:
    with closing(sqlite3.connect(":memory:")) as connection:
        assert provide_ln(connection, connection.cursor()) is False
    lacking = WithoutMath()

    assert provide_ln(lacking, lacking) is True
    assert lacking.registered == {"ln": (1, natural_log, True)}


def test_any_other_failure_of_the_probe_is_not_taken_for_a_missing_ln() -> None:
    broken = WithoutMath("disk I/O error")

    with pytest.raises(sqlite3.OperationalError, match="disk I/O error"):
        provide_ln(broken, broken)
    assert broken.registered == {}
