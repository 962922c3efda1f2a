"""Revision 0006: rows stored when a word was a `\\w+` run get the terms of ICU's words, and back."""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from store.persistence.engine import is_sqlite
from store.persistence.migrate import downgrade_engine, upgrade_engine
from store.persistence.provider import SqlMemoryProvider
from store.persistence.terms import index_terms, term
from tests.integration.builders import ctx
from tests.integration.index_check import index_out_of_step

ROWS = [
    ("mem_zh", "global", "units", "他们用公里报告距离"),
    ("mem_ja", "actor:ada", "label", "日本語のラベル"),
    ("mem_th", "tenant:berlin", "hours", "คลังสินค้าเปิดหกโมงเช้า"),
    ("mem_en", "global", "fiscal-year", "the fiscal year starts in October"),
]


def _terms_before_icu(scope: str, key: str, text: str) -> str:
    """What revision 0005's code stored: a word was a run of letters, digits and underscores."""
    words = re.findall(r"\w+", unicodedata.normalize("NFKC", key).casefold())
    words += re.findall(r"\w+", unicodedata.normalize("NFKC", text).casefold())
    return " ".join(term(scope, word) for word in words)


async def _store_as_revision_0005_did(engine: AsyncEngine) -> None:
    async with engine.begin() as connection:
        for id, scope, key, text in ROWS:
            await connection.execute(
                sa.text(
                    "INSERT INTO agent_memory"
                    " (id, scope, key, text, origin_author, pinned, created_at, updated_at, search_terms)"
                    " VALUES (:id, :scope, :key, :text, 'human', false, :at, :at, :terms)"
                ),
                {
                    "id": id,
                    "scope": scope,
                    "key": key,
                    "text": text,
                    "at": datetime(2026, 1, 1, tzinfo=UTC),
                    "terms": _terms_before_icu(scope, key, text),
                },
            )


async def _stored_terms(engine: AsyncEngine) -> dict[str, str]:
    async with engine.connect() as connection:
        rows = await connection.execute(sa.text("SELECT id, search_terms FROM agent_memory"))
        return {str(row[0]): str(row[1]) for row in rows.all()}


async def _found(engine: AsyncEngine, query: str) -> list[str]:
    scopes = ["actor:ada", "tenant:berlin", "global"]
    return [r.id for r in await SqlMemoryProvider(engine).search(scopes=scopes, query=query, limit=5, ctx=ctx())]


async def test_upgrading_to_0006_gives_rows_stored_before_the_terms_of_icus_words(engine: AsyncEngine) -> None:
    await downgrade_engine(engine, "0005")
    await _store_as_revision_0005_did(engine)
    stored = await _stored_terms(engine)
    assert stored["mem_zh"] == term("global", "units") + " " + term("global", "他们用公里报告距离"), "one run, one word"

    await upgrade_engine(engine, "0006")

    assert await _stored_terms(engine) == {id: index_terms(scope, key, text) for id, scope, key, text in ROWS}
    assert (await _stored_terms(engine))["mem_en"] == stored["mem_en"], "Latin text is cut as before"
    if is_sqlite(engine):
        assert await index_out_of_step(engine) == []


async def test_after_the_upgrade_rows_stored_before_are_found_by_one_of_their_words(engine: AsyncEngine) -> None:
    await downgrade_engine(engine, "0005")
    await _store_as_revision_0005_did(engine)

    await upgrade_engine(engine)

    assert await _found(engine, "距离是多少？") == ["mem_zh"]
    assert await _found(engine, "ラベル") == ["mem_ja"]
    assert await _found(engine, "คลังสินค้าเปิดกี่โมง") == ["mem_th"]
    assert await _found(engine, "October") == ["mem_en"]


async def test_downgrading_from_0006_restores_the_terms_revision_0005_searches_with(engine: AsyncEngine) -> None:
    await downgrade_engine(engine, "0005")
    await _store_as_revision_0005_did(engine)
    before = await _stored_terms(engine)
    await upgrade_engine(engine, "0006")

    await downgrade_engine(engine, "0005")

    assert await _stored_terms(engine) == before
    if is_sqlite(engine):
        assert await index_out_of_step(engine) == []
