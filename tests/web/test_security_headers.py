"""Every answer carries the security headers, not only the pages a handler renders: an address that
names nothing (404, as a page and as JSON), a method an address does not take (405), a failure
(500), the database out of reach (503), a refused form, a body too large and a static file."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import httpx
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from tests.web.builders import ADA
from tests.web.conftest import AGENT_TOKEN, LoginAs
from web.kit.security import security_headers
from web.services import Services
from web.settings import Settings

Call = Callable[[AsyncTestClient[Litestar]], Awaitable[httpx.Response]]
TOO_LARGE = b"x" * (11 * 1024 * 1024)


async def unknown_page(client: AsyncTestClient[Litestar]) -> httpx.Response:
    return await client.get("/nope")


async def unknown_json(client: AsyncTestClient[Litestar]) -> httpx.Response:
    return await client.get("/agent/nope")


async def unknown_under_the_schema(client: AsyncTestClient[Litestar]) -> httpx.Response:
    return await client.get("/schema/nope")


async def form_target_as_a_page(client: AsyncTestClient[Litestar]) -> httpx.Response:
    return await client.get("/logout")


async def wrong_method_on_json(client: AsyncTestClient[Litestar]) -> httpx.Response:
    return await client.put("/agent/memories", headers={"Authorization": f"Bearer {AGENT_TOKEN}"})


async def static_file(client: AsyncTestClient[Litestar]) -> httpx.Response:
    return await client.get("/static/onfile.css")


async def form_too_large(client: AsyncTestClient[Litestar]) -> httpx.Response:
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    return await client.post("/memories/forget-all", content=TOO_LARGE, headers=form)


async def body_too_large(client: AsyncTestClient[Litestar]) -> httpx.Response:
    sent = {"Authorization": f"Bearer {AGENT_TOKEN}", "Content-Type": "application/json"}
    return await client.post("/agent/runs/run_1/remember", content=TOO_LARGE, headers=sent)


@pytest.mark.parametrize(
    ("call", "status"),
    [
        pytest.param(unknown_page, 404, id="404-page"),
        pytest.param(unknown_json, 404, id="404-json"),
        pytest.param(unknown_under_the_schema, 404, id="404-schema"),
        pytest.param(form_target_as_a_page, 405, id="405-page"),
        pytest.param(wrong_method_on_json, 405, id="405-json"),
        pytest.param(static_file, 200, id="static"),
        pytest.param(form_too_large, 413, id="413-form"),
        pytest.param(body_too_large, 413, id="413-json"),
    ],
)
async def test_an_answer_no_handler_renders_carries_the_security_headers(
    client: AsyncTestClient[Litestar], settings: Settings, call: Call, status: int
) -> None:
    answer = await call(client)

    assert answer.status_code == status
    assert_secured(answer, settings)


@pytest.mark.parametrize(
    ("failure", "status"),
    [
        pytest.param(RuntimeError("a bug"), 500, id="500"),
        pytest.param(ConnectionRefusedError(111, "Connect call failed"), 503, id="503"),
    ],
)
async def test_a_failure_carries_the_security_headers(
    client: AsyncTestClient[Litestar],
    services: Services,
    settings: Settings,
    login_as: LoginAs,
    monkeypatch: pytest.MonkeyPatch,
    failure: Exception,
    status: int,
) -> None:
    await login_as(ADA)

    async def failing(*_: object, **__: object) -> None:
        raise failure

    monkeypatch.setattr(services.sessions, "get", failing)
    answer = await client.get("/")

    assert answer.status_code == status
    assert_secured(answer, settings)


async def test_a_refused_form_carries_the_security_headers(
    client: AsyncTestClient[Litestar], settings: Settings, login_as: LoginAs
) -> None:
    await login_as(ADA)

    answer = await client.post("/memories/forget-all", data={"csrf_token": "0" * 64})

    assert answer.status_code == 403
    assert_secured(answer, settings)


def assert_secured(answer: httpx.Response, settings: Settings) -> None:
    for name, value in security_headers(settings).items():
        assert answer.headers.get(name) == value, (name, answer.status_code, dict(answer.headers))
