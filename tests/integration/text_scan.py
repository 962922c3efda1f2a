"""Look for a piece of text in every table and index of a database, as forgetting must be checked."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

__all__ = ("places_holding",)


async def places_holding(engine: AsyncEngine, needle: str | bytes) -> list[str]:
    """Every table (the search index's included; blobs read as bytes) whose rows contain `needle`,
    by name. A text is looked for in blobs by its UTF-8 bytes; bytes are looked for in blobs only."""
    raw = needle.encode() if isinstance(needle, str) else needle
    found: list[str] = []
    async with engine.connect() as connection:
        if connection.dialect.name == "sqlite":
            names = [
                row[0]
                for row in (await connection.execute(text("SELECT name FROM sqlite_master WHERE type = 'table'"))).all()
            ]
        else:
            names = [
                row[0]
                for row in (
                    await connection.execute(
                        text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
                    )
                ).all()
            ]
        for name in names:
            rows = (await connection.execute(text(f'SELECT * FROM "{name}"'))).all()  # noqa: S608 - catalog names
            for row in rows:
                for value in row:
                    if (isinstance(value, bytes) and raw in value) or (
                        isinstance(needle, str)
                        and value is not None
                        and not isinstance(value, bytes)
                        and needle in str(value)
                    ):
                        found.append(name)
    return sorted(set(found))
