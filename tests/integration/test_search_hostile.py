"""A person's raw turn text is the search query: nothing in it may raise, reach a query language,
or bring back a record from outside the scopes."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from store.domain.relevance import query_words, record_words
from store.domain.scopes import GLOBAL_SCOPE
from store.in_memory import InMemoryMemoryProvider
from store.persistence.engine import open_engine
from store.persistence.provider import SqlMemoryProvider
from store.persistence.terms import term
from tests.integration.builders import ADA, Provider, ctx, keys_in_order, make_record, scope_keys, scopes_of, seed

ADA_SCOPES = scopes_of(ADA)

CORPUS = [
    make_record("pallet-labels", "pallet labels carry the depot code first", "tenant:berlin"),
    make_record("manifest-required", "never dispatch without printed manifests", "tenant:berlin", pinned=True),
    make_record("fiscal-year", "they report on the calendar year", "actor:ada", author="agent"),
    make_record("fiscal-year", "the fiscal year starts in October", GLOBAL_SCOPE),
    make_record("units", "report distances in kilometres", GLOBAL_SCOPE),
    make_record("greeting", "say こんにちは and Grüß Gott", "actor:ada"),
    # Another tenant and another person, holding every word a hostile query might try to reach.
    make_record("pallet-labels", "pallet labels start with the customer number", "tenant:hamburg"),
    make_record("secret", "NEAR AND OR NOT near and or not key text scope_token こんにちは", "tenant:hamburg"),
    make_record("secret", "pallet manifest fiscal year units 日本語 😀", "actor:bea", author="agent"),
]

HOSTILE = [
    '"',
    '""',
    "'",
    "''",
    '"pallet',
    "pallet\"'",
    "NEAR(pallet labels)",
    "NEAR(pallet labels, 2)",
    "pallet AND labels",
    "pallet OR",
    "OR",
    "AND NOT",
    "-pallet",
    "pallet*",
    "*",
    "^pallet",
    "key:pallet",
    "{key text scope_token}: pallet",
    "scope_token : pallet",
    "pallet + labels",
    "(pallet",
    "pallet)) OR ((1=1",
    "'; DROP TABLE agent_memory; --",
    "\\",
    "\\'",
    "a & b | !c <-> d:*",
    "pallet:* & !manifest",
    "😀🔥👩‍👩‍👧",
    "日本語のラベル",
    "こんにちは",
    "паллет метки",
    "العربية מה",
    "\x00pallet\x00",
    "\u200b\u200d\ufeff",
    "%_%",
    "pallet" * 2000,
    " ".join(f"w{n}" for n in range(1000)),
    # The index's own terms for another tenant's and another person's words, typed as text: searched
    # with, they are words again, turned into terms at Ada's scopes, and reach nothing of theirs.
    term("tenant:hamburg", "pallet"),
    f'"{term("actor:bea", "manifest")}" OR "{term("tenant:hamburg", "customer")}"',
    f"{term('tenant:hamburg', 'pallet')} | {term('actor:bea', 'pallet')} & !x",
    "tenant:hamburg actor:bea",
]


def _assert_in_scope(found: object) -> None:
    assert isinstance(found, tuple | list)
    outside = [(r.scope, r.key) for r in found if r.scope not in ADA_SCOPES]
    assert outside == [], f"records outside the scopes came back: {outside}"


@pytest.mark.parametrize("query", HOSTILE)
async def test_a_hostile_query_never_raises_nor_leaks(provider: Provider, query: str) -> None:
    await seed(provider, CORPUS)

    found = await provider.search(scopes=ADA_SCOPES, query=query, limit=3, ctx=ctx())

    _assert_in_scope(found)
    assert ("tenant:berlin", "manifest-required") in scope_keys(found), "the pinned record always comes back"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.text())
async def test_any_text_never_raises_nor_leaks(provider: Provider, query: str) -> None:
    await seed(provider, CORPUS)

    found = await provider.search(scopes=ADA_SCOPES, query=query, limit=3, ctx=ctx())

    _assert_in_scope(found)


VOCABULARY = [
    "pallet", "labels", "manifest", "fiscal", "year", "units", "kilometres", "report", "calendar",
    "NEAR", "AND", "OR", "NOT", "key", "text", '"', "'", "*", "-", ":", "(", ")", "^", "{", "}", "&", "|", "!",
    "こんにちは", "😀", "Gott", "x",
]  # fmt: skip


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.sampled_from(VOCABULARY), max_size=8), separator=st.sampled_from([" ", "", "\t"]))
async def test_a_query_made_of_real_words_and_operators_selects_what_the_reference_selects(
    provider: Provider, parts: list[str], separator: str
) -> None:
    await seed(provider, CORPUS)
    reference = InMemoryMemoryProvider(CORPUS)
    query = separator.join(parts)

    found = await provider.search(scopes=ADA_SCOPES, query=query, limit=50, ctx=ctx())
    expected = await reference.search(scopes=ADA_SCOPES, query=query, limit=50, ctx=ctx())

    _assert_in_scope(found)
    assert scope_keys(found) == scope_keys(expected)


@pytest.fixture
async def sqlite_provider(sqlite_database_url: str) -> AsyncIterator[SqlMemoryProvider]:
    engine = open_engine(sqlite_database_url)
    try:
        yield SqlMemoryProvider(engine)
    finally:
        await engine.dispose()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=8), limit=st.integers(0, 4))
async def test_sqlite_ranks_exactly_as_the_reference_bm25(
    sqlite_provider: SqlMemoryProvider, parts: list[str], limit: int
) -> None:
    """FTS5's bm25() over per-scope terms is the reference's BM25, to the bit: the same order."""
    await seed(sqlite_provider, CORPUS)
    reference = InMemoryMemoryProvider(CORPUS)
    query = " ".join(parts)

    found = await sqlite_provider.search(scopes=ADA_SCOPES, query=query, limit=limit, ctx=ctx())
    expected = await reference.search(scopes=ADA_SCOPES, query=query, limit=limit, ctx=ctx())

    assert [(r.scope, r.key) for r in found] == [(r.scope, r.key) for r in expected]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=8), limit=st.integers(0, 4))
async def test_every_backend_keeps_the_limit_of_matching_keys_and_the_pinned(
    provider: Provider, parts: list[str], limit: int
) -> None:
    """Whatever the ranking (PostgreSQL's ts_rank weighs words unlike bm25), the shape is the same:
    min(limit, matching keys) keys that hold a word, every record of each, and every pinned key."""
    await seed(provider, CORPUS)
    query = " ".join(parts)

    found = await provider.search(scopes=ADA_SCOPES, query=query, limit=limit, ctx=ctx())

    asked = set(query_words(query))
    assume(asked)  # no words at all is a list read (tested elsewhere)
    visible = [r for r in CORPUS if r.scope in ADA_SCOPES]
    matching = {r.key for r in visible if asked & set(record_words(r.key, r.text))}
    pinned = {r.key for r in visible if r.pinned}
    order = keys_in_order(found)
    top = order[: min(limit, len(matching))]
    assert set(top) <= matching
    assert len(top) == min(limit, len(matching))
    assert set(order[len(top) :]) <= pinned <= set(order)
    assert scope_keys(found) == {(r.scope, r.key) for r in visible if r.key in set(order)}
