"""SQLite's write-ahead log, checkpointed beside the writes instead of inside one of them.

In WAL mode a commit appends the pages it changed to the log, and a checkpoint copies them back into
the database file so that the log can start over. SQLite's default runs that checkpoint inside the
COMMIT of whichever write takes the log past 1,000 pages: one write in so many pays for copying the
whole log, and with the search index's postings in a B-tree (a page per distinct term of a record)
the log fills often and holds much. OnFile's connections instead:

- checkpoint on commit only once the log holds `SAFETY_NET_PAGES` (`PRAGMA wal_autocheckpoint`): a
  net under the background work below, should it never run, fail, or fall behind, so the log stays
  bounded whatever happens to it;
- and, every `CHECKPOINT_EVERY` commits of an engine's writes, run a PASSIVE checkpoint in the
  background: an asyncio task on a connection borrowed from the engine's pool, so the copying runs
  on that connection's aiosqlite thread while requests go on. At most one runs per engine, a request
  never waits for one, and a failure is logged, never raised.

A PASSIVE checkpoint waits for nobody and blocks nobody: it copies what no reader still needs, takes
SQLite's checkpoint lock (not the write lock), and answers "busy" at once when another connection
holds that lock — another worker's background checkpoint, a writer's safety net, an explicit
checkpoint. So several processes checkpointing one file are harmless to each other: one copies, the
others skip. The log starts over when a writer begins after a checkpoint copied all of it, so a
checkpoint that finds new frames behind it (writes that committed while it copied) copies again, a
few rounds at most, each shorter than the last. Writes back to back leave it no such moment: the log
then grows to the safety net, whose commit finds only what the last round left (a few hundred pages)
and lets the next writer start it over.

The checkpoint reaches the connection's thread as `store.persistence.engine.run_statements` does,
through aiosqlite's `_execute` and `_conn` (pinned below 0.23). Should the task be cancelled while its
statement runs there (a loop shutting down with no engine disposed), it waits for the thread to end
it before giving up: a thread that finds its loop closed cannot hand back a result, and dies.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.pool import Pool, PoolProxiedConnection, QueuePool
from sqlalchemy.util import await_, greenlet_spawn
from sqlalchemy.util.concurrency import in_greenlet

__all__ = ("CHECKPOINT_EVERY", "CHECKPOINT_ROUNDS", "SAFETY_NET_PAGES", "TASK_NAME", "BackgroundCheckpoints")

logger = logging.getLogger(__name__)

SAFETY_NET_PAGES = 10_000
"""The log's size, in pages, past which a commit checkpoints it itself (`PRAGMA wal_autocheckpoint`),
about 40 MB. Measured at a million memories with no background checkpoints, that commit pays about
9 ms per 1,000 pages it copies (17 ms at 1,000, 57 at 5,000, 88 at 10,000), ten times as rarely at
10,000 as at 1,000: the same copying per write or less (a page written twice is copied once). So a
large net costs little even should the background never run, and while it runs the net finds only
the few hundred pages written since its last round."""

CHECKPOINT_EVERY = 32
"""Commits of an engine's writes between its background checkpoints. Measured at a million memories
(some 13 pages a write): with 2 ms between writes, 32 kept the log under 900 to 1,800 pages
(8: 330 to 1,150; 64: 2,400 to 3,000; 128: 3,200 to 3,500), and no choice changed the writes'
throughput beyond the noise."""

CHECKPOINT_ROUNDS = 4
"""How many times one background checkpoint copies, while writes keep committing behind it. With 2 ms
between writes at a million memories, one round never let the log start over before the safety net
did; two to four kept it to 850 to 3,000 pages."""

TASK_NAME = "onfile-wal-checkpoint"

_PASSIVE = "PRAGMA wal_checkpoint(PASSIVE)"
_EXPECTED = ("database is locked", "database table is locked", "no active connection", "Connection closed")


class BackgroundCheckpoints:
    """One SQLite engine's background checkpoints (see the module's docstring). Disposing the engine
    waits for a running one, whose connection then closes with the pool it came from."""

    def __init__(self, sync_engine: Engine) -> None:
        self._engine = sync_engine
        self._commits = 0
        self._task: asyncio.Task[None] | None = None
        event.listen(sync_engine, "engine_disposed", self._on_disposed)

    def committed(self) -> None:
        """A write transaction of the engine's committed. Start a checkpoint when one is due, none is
        running, and the pool has a connection idle (a request must never wait for one the
        checkpoint took); otherwise a later commit starts it."""
        self._commits += 1
        if self._commits < CHECKPOINT_EVERY or self._running():
            return
        pool = self._engine.pool
        if not isinstance(pool, QueuePool) or pool.checkedin() == 0:
            return  # an in-memory database has no log; a busy pool has no connection to spare
        self._commits = 0
        task = asyncio.get_running_loop().create_task(self._checkpoint(pool), name=TASK_NAME)
        task.add_done_callback(self._finished)
        self._task = task

    async def settled(self) -> None:
        """Wait for the running checkpoint, if any, to end (it is never cancelled by this)."""
        task = self._task
        if task is not None and not task.done() and task.get_loop() is asyncio.get_running_loop():
            await asyncio.wait([task])

    def _running(self) -> bool:
        task = self._task
        # a task left behind by a loop that closed will never run again
        return task is not None and not task.done() and not task.get_loop().is_closed()

    def _finished(self, task: asyncio.Task[None]) -> None:
        if self._task is task:
            self._task = None

    async def _checkpoint(self, pool: Pool) -> None:
        if pool is not self._engine.pool:
            return  # the engine was disposed before this began
        try:
            pooled = await greenlet_spawn(pool.connect)
        except Exception as error:
            _log_failure(error)
            return
        try:
            await _copy_back(pooled)
        except asyncio.CancelledError:
            await _drain(pooled)
            raise
        except Exception as error:
            _log_failure(error)
        finally:
            await self._give_back(pooled, pool)

    async def _give_back(self, pooled: PoolProxiedConnection, pool: Pool) -> None:
        """Return the connection to its pool; if the engine was disposed meanwhile, that pool is no
        longer the engine's and nothing will close it, so close it now."""
        try:
            await greenlet_spawn(pooled.close)
            if pool is not self._engine.pool:
                await greenlet_spawn(pool.dispose)
        except Exception as error:
            _log_failure(error)

    def _on_disposed(self, _engine: Engine) -> None:
        """Engine disposal (SQLAlchemy runs it in a greenlet under `await engine.dispose()`): wait for
        a running checkpoint, so that no task runs on and no connection stays open past it."""
        self._commits = 0
        task = self._task
        if task is None or task.done():
            return
        try:
            same_loop = task.get_loop() is asyncio.get_running_loop()
        except RuntimeError:
            same_loop = False
        if same_loop and in_greenlet():
            await_(asyncio.wait([task]))
        else:
            logger.warning("engine disposed outside the event loop of its running WAL checkpoint: not waited for")


async def _copy_back(pooled: PoolProxiedConnection) -> None:
    """PASSIVE checkpoints on `pooled`'s aiosqlite thread, in one round trip, until one finds the
    log as the previous one left it (all copied, nothing committed since: the next writer starts it
    over), another connection holds the checkpoint lock, or the rounds run out. Each reports the log
    as it was when it began, so only the next can tell whether commits came in meanwhile; one that
    finds nothing new to copy does no I/O."""
    driver: Any = pooled.driver_connection

    def rounds() -> tuple[int, int, int, int]:
        done, before = 0, None
        while done < CHECKPOINT_ROUNDS:
            done += 1
            busy, log, copied = driver._conn.execute(_PASSIVE).fetchone()
            if busy or log == copied == before:
                break
            before = log
        return done, busy, log, copied

    outcome = await driver._execute(rounds)
    logger.debug("WAL checkpoint: %d rounds, busy %d, %d of %d frames copied", *outcome)


async def _drain(pooled: PoolProxiedConnection) -> None:
    """The task was cancelled (its loop is shutting down) while the checkpoint ran on aiosqlite's
    thread, which goes on with it. Wait for the thread to finish it while the loop still runs: were
    the loop closed first, the thread could not hand back its result and would die, and so would its
    connection."""
    driver: Any = pooled.driver_connection
    with contextlib.suppress(Exception):
        await driver._execute(lambda: None)


def _log_failure(error: Exception) -> None:
    """Busy, locked, or a connection closed under it (the engine was disposed): expected now and
    then, at debug. Anything else at warning. Either way the safety net still bounds the log."""
    expected = isinstance(error, sqlite3.OperationalError | ValueError) and str(error).startswith(_EXPECTED)
    logger.log(logging.DEBUG if expected else logging.WARNING, "background WAL checkpoint failed: %r", error)
