"""The personal page's statements are built once for each shape of ask and given its values: asks of
one shape share a statement, and long lists of ids (found beneath a search word, or overridden)
still answer as the rules do, on SQLite and PostgreSQL alike."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncEngine

from store import Actor, MemoryOrigin, MemoryRecord
from store.persistence import SqlMemoryProvider
from store.persistence.listing import counts_statement, page_statement, passing_conditions
from tests.integration.test_records_page import as_compared
from web.me.listing import MemoryQuery, records_ask, select_entries, selection_of
from web.me.on_file import OnFile

ADA = Actor(id="ada", tenant_ref="berlin")
SCOPES = ("actor:ada", "tenant:berlin", "global")
START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
KEYS = 300
"""More keys held at two scopes than one padded list of ids holds (256)."""


def held_twice() -> list[MemoryRecord]:
    """Each key noted by Ada and published for Berlin in other words: Ada's overrides Berlin's, and a
    search for "fleet" finds Ada's beneath her own text."""
    records = []
    for n in range(KEYS):
        when = START + timedelta(minutes=n)
        agent, human = MemoryOrigin(author="agent"), MemoryOrigin(author="human", actor_ref="lena")
        records.append(MemoryRecord(f"own_{n:03d}", f"depot-{n:03d}", f"van number {n}", "actor:ada", agent, when))
        records.append(MemoryRecord(f"org_{n:03d}", f"depot-{n:03d}", f"fleet truck {n}", "tenant:berlin", human, when))
    return records


async def test_many_keys_found_beneath_and_overridden_answer_as_the_rules_do(engine: AsyncEngine) -> None:
    records = held_twice()
    provider = SqlMemoryProvider(engine)
    await provider.add(records)
    for params in ({"q": "fleet"}, {"q": "fleet", "group": "you", "page": "6"}, {"group": "organisation"}):
        query = MemoryQuery.from_params(params)
        by_rules = select_entries(OnFile(SCOPES, tuple(records)), ADA, query, resolving=frozenset())
        understood, ask = records_ask(SCOPES, ADA, query)

        by_database = selection_of(await provider.records_page(ask), ask, ADA, understood)
        matching = await provider.records_matching(ask)

        assert by_database.total == by_rules.total, params
        assert as_compared(by_database) == as_compared(by_rules), params
        assert len(matching.own) == (0 if params.get("group") == "organisation" else KEYS), params
        # every one of Berlin's is overridden by Ada's: listed in Berlin's group when shown, and staying
        assert matching.shared == sum(len(g.matching) for g in by_rules.visible if g.scope != "actor:ada"), params
        assert matching.shared == (0 if params.get("group") == "you" else KEYS), params


def test_asks_of_one_shape_share_a_statement_and_differ_in_their_values(engine: AsyncEngine) -> None:
    _, route = records_ask(SCOPES, ADA, MemoryQuery.from_params({"q": "route case"}))
    _, depot = records_ask(SCOPES, ADA, MemoryQuery.from_params({"q": "depot van"}))
    _, alone = records_ask(SCOPES, ADA, MemoryQuery.from_params({"q": "depot"}))
    dialect = engine.dialect
    first, first_values = page_statement(route, "actor:ada", passing_conditions(route, ()), 0, dialect)
    second, second_values = page_statement(depot, "actor:ada", passing_conditions(depot, ()), 50, dialect)
    other, _ = page_statement(alone, "actor:ada", passing_conditions(alone, ()), 0, dialect)

    assert first is second
    assert other is not first
    assert (first_values["w0_0"], first_values["start"]) == ("% route%", 0)
    assert (second_values["w0_0"], second_values["start"]) == ("% depot%", 50)
    counted, values = counts_statement(SCOPES, passing_conditions(route, ()))
    assert counted is counts_statement(SCOPES, passing_conditions(depot, ()))[0]
    assert [values[f"s{n}"] for n in range(3)] == list(SCOPES)
