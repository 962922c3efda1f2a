"""Shared fixtures: databases (SQLite always; PostgreSQL from a throwaway server) and providers.

Every database is built by the migrations, as production builds it. One PostgreSQL server runs per
test session; each test gets a fresh database copied from a migrated template, and SQLite tests a
copy of a migrated file. Where PostgreSQL's binaries are missing, its tests skip — except under
`CI=true`, where a PostgreSQL test that did not run is a failure.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
from collections.abc import AsyncIterator, Generator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from store.in_memory import InMemoryMemoryProvider
from store.persistence.engine import open_engine
from store.persistence.migrate import upgrade
from store.persistence.provider import SqlMemoryProvider
from tests.postgres_server import PostgresServer, missing_binaries

IN_CI = os.environ.get("CI") == "true"
_TEMPLATE = "onfile_template"
_database_numbers = itertools.count(1)

BACKENDS = [pytest.param("sqlite", id="sqlite"), pytest.param("postgres", id="postgres", marks=pytest.mark.postgres)]
PROVIDERS = [pytest.param("in_memory", id="in_memory"), *BACKENDS]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Under CI=true a skipped PostgreSQL test fails: CI must never pass without running them."""
    report = yield
    if IN_CI and report.skipped and item.get_closest_marker("postgres") is not None:
        report.outcome = "failed"
        report.longrepr = f"PostgreSQL test skipped under CI=true: {report.longrepr}"
    return report


@dataclass
class Clock:
    """A clock the test moves by hand."""

    now: datetime = field(default_factory=lambda: datetime(2026, 12, 1, 9, 0, tzinfo=UTC))

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    reason = missing_binaries()
    if reason is not None:
        if IN_CI:
            pytest.fail(f"{reason}; under CI=true the PostgreSQL tests must run")
        pytest.skip(reason)
    server = PostgresServer().start()
    try:
        url = server.create_database(_TEMPLATE)
        asyncio.run(upgrade(url))
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "onfile.sqlite3"
    asyncio.run(upgrade(f"sqlite+aiosqlite:///{path}"))
    return path


def _fresh_database(request: pytest.FixtureRequest, tmp_path: Path, backend: str) -> Iterator[str]:
    if backend == "sqlite":
        path = tmp_path / "onfile.sqlite3"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        yield f"sqlite+aiosqlite:///{path}"
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    name = f"onfile_test_{next(_database_numbers)}"
    url = server.create_database(name, template=_TEMPLATE)
    try:
        yield url
    finally:
        server.drop_database(name)


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A freshly migrated, empty database on each backend."""
    yield from _fresh_database(request, tmp_path, request.param)


@pytest.fixture
def sqlite_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A freshly migrated, empty SQLite database, for what only SQLite has."""
    yield from _fresh_database(request, tmp_path, "sqlite")


@pytest.fixture
def postgres_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A freshly migrated, empty PostgreSQL database (mark the test `postgres`)."""
    yield from _fresh_database(request, tmp_path, "postgres")


async def _engine_on(url: str) -> AsyncIterator[AsyncEngine]:
    engine = open_engine(url)
    try:
        yield engine
    finally:
        await engine.dispose()


@pytest.fixture
async def engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    async for made in _engine_on(database_url):
        yield made


@pytest.fixture
async def sqlite_engine(sqlite_database_url: str) -> AsyncIterator[AsyncEngine]:
    """An engine on a freshly migrated SQLite file: its short reads and lookups by key run inline."""
    async for made in _engine_on(sqlite_database_url):
        yield made


@pytest.fixture(params=PROVIDERS)
def provider_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str | None]:
    """None for the in-memory provider, otherwise a fresh database on the SQL provider's backend."""
    if request.param == "in_memory":
        yield None
        return
    yield from _fresh_database(request, tmp_path, request.param)


@pytest.fixture
async def provider(
    provider_database_url: str | None, clock: Clock
) -> AsyncIterator[InMemoryMemoryProvider | SqlMemoryProvider]:
    """The reference provider and the SQL provider on each backend, all on the test's clock."""
    if provider_database_url is None:
        yield InMemoryMemoryProvider(clock=clock)
        return
    engine = open_engine(provider_database_url)
    try:
        yield SqlMemoryProvider(engine, clock=clock)
    finally:
        await engine.dispose()
