"""A second baseline for the load benchmark: the agent digest endpoint written by hand, doing the I/O a
turn needs and nothing else.

The bare endpoint (`bench.load_bare`) measures what Litestar and uvicorn alone cost; a digest cannot
cost that little, since it must also read its body, search, write and answer 13 KB. This application
does exactly those with the plainest code that works, on the same database and server settings, so
that the difference between it and OnFile is what OnFile's own work costs (rules, block, registry,
metrics, log line, the races it guards against), and the difference between it and the bare endpoint
is what the work any digest must do costs on this machine.

- `POST /agent/runs/{run_id}/digest`, the same body and token as OnFile's: check the bearer token,
  decode the body, run OnFile's own search statement on the turn's words and scopes (the statement
  alone, straight on the driver), answer the rows as entries with a block made of one line per row and
  the remember tool, and insert that answer into the run journal (one statement, committed), unless
  the run is journaled already, in which case the stored answer is sent.
- No registry, no people, no audit, no precedence, no ceiling rules, no race handling beyond the
  journal's primary key, no metrics, no logging.

It reads `ONFILE_DATABASE_URL` and `ONFILE_AGENT_TOKENS` as OnFile does, and is served as
`bench.load_bare` is (the application object for one worker, an import string for several):

    python -m bench.load_floor --port 8002 [--workers N]
"""

from __future__ import annotations

import asyncio
import hmac
import json
import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import aiosqlite
import asyncpg
from litestar import Litestar, Request, Response, post
from sqlalchemy import make_url

from bench.load_bare import serve_baseline
from store.domain.remember import REMEMBER_TOOL
from store.domain.scopes import own_scope
from store.domain.types import Actor
from store.persistence.driver import driver_statement
from store.persistence.memories import MEMORY_COLUMNS
from store.persistence.search import query_words, relevance_statement

__all__ = ("floor_app", "main")

POSITION = "memory:digest"
_COLUMNS = tuple(column.name for column in MEMORY_COLUMNS)
CEILING = 20
POOL_SIZE = 8
_SQLITE_STORED = "SELECT payload FROM run_journal WHERE run_id = ? AND position = ?"
_SQLITE_INSERT = (
    "INSERT INTO run_journal (run_id, position, payload, created_at, actor_id) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT DO NOTHING"
)
_PG_STORED = "SELECT payload::text FROM run_journal WHERE run_id = $1 AND position = $2"
_PG_INSERT = (
    "INSERT INTO run_journal (run_id, position, payload, created_at, actor_id) VALUES ($1, $2, $3::json, $4, $5) "
    "ON CONFLICT DO NOTHING"
)


class _Database:
    """A few aiosqlite connections (writes one at a time, as SQLite allows), or an asyncpg pool."""

    def __init__(self, url: str) -> None:
        self._url = make_url(url)
        self.is_sqlite = self._url.get_backend_name() == "sqlite"
        self._idle: asyncio.Queue[aiosqlite.Connection] = asyncio.Queue()
        self._write_lock = asyncio.Lock()
        self._dialect = self._url.get_dialect()()
        self._pools: list[asyncpg.Pool] = []

    async def open(self) -> None:
        if self.is_sqlite:
            for _ in range(POOL_SIZE):
                connection = await aiosqlite.connect(str(self._url.database), isolation_level=None)
                await connection.execute("PRAGMA busy_timeout = 5000")
                await connection.execute("PRAGMA synchronous = NORMAL")
                self._idle.put_nowait(connection)
        else:
            dsn = self._url.set(drivername="postgresql").render_as_string(hide_password=False)
            # planned for each turn's scopes and terms, as OnFile plans its search: a generic plan is slower
            custom = {"plan_cache_mode": "force_custom_plan"}
            pool = await asyncpg.create_pool(dsn, min_size=POOL_SIZE, max_size=POOL_SIZE, server_settings=custom)
            self._pools.append(pool)

    async def close(self) -> None:
        while not self._idle.empty():
            await self._idle.get_nowait().close()
        for pool in self._pools:
            await pool.close()

    @property
    def _pool(self) -> asyncpg.Pool:
        [pool] = self._pools
        return pool

    @asynccontextmanager
    async def _sqlite(self) -> AsyncIterator[aiosqlite.Connection]:
        connection = await self._idle.get()
        try:
            yield connection
        finally:
            self._idle.put_nowait(connection)

    async def stored(self, run_id: str) -> str | None:
        if self.is_sqlite:
            async with self._sqlite() as connection:
                rows = list(await connection.execute_fetchall(_SQLITE_STORED, (run_id, POSITION)))
            return str(rows[0][0]) if rows else None
        found = await self._pool.fetchval(_PG_STORED, run_id, POSITION)
        return None if found is None else str(found)

    async def search(self, scopes: Sequence[str], words: Sequence[str]) -> Sequence[Sequence[Any]]:
        statement, values = relevance_statement(self._dialect.name, scopes, words, CEILING)
        prepared = driver_statement(self._dialect, statement)
        parameters = prepared.parameters(values)
        if self.is_sqlite:
            async with self._sqlite() as connection:
                return list(await connection.execute_fetchall(prepared.sql, parameters))
        return list(await self._pool.fetch(prepared.sql, *parameters))

    async def insert(self, run_id: str, payload: str, actor_id: str) -> None:
        now = datetime.now(UTC).replace(tzinfo=None)
        if self.is_sqlite:
            async with self._write_lock, self._sqlite() as connection:
                await connection.execute(_SQLITE_INSERT, (run_id, POSITION, payload, now.isoformat(" "), actor_id))
            return
        await self._pool.execute(_PG_INSERT, run_id, POSITION, payload, now, actor_id)


def _answer(rows: Sequence[Sequence[Any]], scopes: Sequence[str]) -> str:
    """The search's rows as entries, a block of one line per row, and the remember tool: about the
    size of OnFile's answer for the same turn, none of its rules."""
    entries = [dict(zip(_COLUMNS, row, strict=True)) for row in rows]
    block = "\n".join(["<memory>", *(f"- [{e['scope']}] {e['key']}: {e['text']}" for e in entries), "</memory>"])
    answer = {"scopes": list(scopes), "entries": entries, "block": block, "tools": [REMEMBER_TOOL]}
    return json.dumps(answer, default=str)


def floor_app() -> Litestar:
    database = _Database(os.environ["ONFILE_DATABASE_URL"])
    tokens = [token.strip().encode() for token in os.environ["ONFILE_AGENT_TOKENS"].split(",") if token.strip()]

    @post("/agent/runs/{run_id:str}/digest", status_code=200)
    async def digest(run_id: str, request: Request[Any, Any, Any]) -> Response[bytes]:
        given = request.headers.get("authorization", "").removeprefix("Bearer ").encode()
        if not any(hmac.compare_digest(given, token) for token in tokens):
            return Response(b'{"error": "unauthorised"}', status_code=401, media_type="application/json")
        body = await request.json()
        stored = await database.stored(run_id)
        if stored is None:
            person = body["actor"]
            actor = Actor(person["id"], person.get("tenantRef"), tuple(person.get("roles", ())))
            tenant = [f"tenant:{actor.tenant_ref}"] if actor.tenant_ref else []
            scopes = [own_scope(actor), *tenant, "global"]
            rows = await database.search(scopes, query_words(body["text"]))
            stored = _answer(rows, scopes)
            await database.insert(run_id, stored, actor.id)
        return Response(stored.encode(), media_type="application/json")

    return Litestar(route_handlers=[digest], on_startup=[database.open], on_shutdown=[database.close])


def main() -> None:
    serve_baseline("bench.load_floor", floor_app, __doc__ or "")


if __name__ == "__main__":
    main()
