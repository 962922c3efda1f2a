"""A server process's application sets the objects it started with aside from the garbage collector's
full passes once its services are open; an application built any other way (a test's, a script's)
leaves the collector as it found it."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from litestar.testing import AsyncTestClient

from web.app import create_app
from web.settings import Settings


@pytest.fixture
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    try:
        yield
    finally:
        gc.unfreeze()


@pytest.mark.usefixtures("unfrozen")
async def test_a_serving_application_sets_its_startup_objects_aside_and_still_serves(settings: Settings) -> None:
    app = create_app(settings, serving=True)
    assert gc.get_freeze_count() == 0

    async with AsyncTestClient(app=app, base_url="http://127.0.0.1:8000") as client:
        assert gc.get_freeze_count() > 10_000  # modules, routes, settings, services: set aside once started
        answer = await client.get("/healthz")

    assert answer.status_code == 200


@pytest.mark.usefixtures("unfrozen")
async def test_any_other_application_leaves_the_collector_alone(settings: Settings) -> None:
    async with AsyncTestClient(app=create_app(settings), base_url="http://127.0.0.1:8000") as client:
        assert (await client.get("/healthz")).status_code == 200

    assert gc.get_freeze_count() == 0
