"""SQLite's search index against a recomputation from `agent_memory.search_terms`, as it must stay."""

from __future__ import annotations

from collections import Counter

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

__all__ = ("index_out_of_step",)


async def index_out_of_step(engine: AsyncEngine) -> list[str]:
    """What differs between the index and what the rows say it must hold — every (term, record,
    count) posting, the record count and the word count — recomputed here in Python, independently
    of the triggers' SQL. Empty when they are in step."""
    async with engine.connect() as connection:
        rows = (await connection.execute(text("SELECT seq, search_terms FROM agent_memory"))).all()
        postings = (await connection.execute(text("SELECT term, seq, tf FROM memory_terms"))).all()
        corpus = (await connection.execute(text("SELECT id, records, words FROM memory_corpus"))).all()
    expected = {(term, seq, tf) for seq, terms in rows for term, tf in Counter(terms.split()).items()}
    held = {(term, seq, tf) for term, seq, tf in postings}
    differences = [f"missing posting {p}" for p in sorted(expected - held)]
    differences += [f"stray posting {p}" for p in sorted(held - expected)]
    words = sum(len(terms.split()) for _, terms in rows)
    if corpus != [(1, len(rows), words)]:
        differences.append(f"corpus {corpus}, the rows say {[(1, len(rows), words)]}")
    return differences
