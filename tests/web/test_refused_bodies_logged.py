"""A request body that is refused — too large, nested too deeply, not JSON, not sent as JSON, not the
route's type — is one warning line naming the route and why: nothing failed but the request, so there
is no stack trace, and nothing else is logged for it."""

from __future__ import annotations

import logging

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from tests.web.conftest import AGENT_TOKEN, LoginAs
from tests.web.test_strict_bodies import LENA

AS_JSON = {"Authorization": f"Bearer {AGENT_TOKEN}", "Content-Type": "application/json"}
REMEMBER = "/agent/runs/run_1/remember"
TOO_LARGE = b"x" * (11 * 1024 * 1024)
DEEP = b'{"callId": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"


@pytest.mark.parametrize(
    ("path", "body", "headers", "status", "reason"),
    [
        pytest.param(REMEMBER, TOO_LARGE, AS_JSON, 413, "larger than OnFile accepts", id="too-large"),
        pytest.param(REMEMBER, DEEP, AS_JSON, 400, "callId: Expected `str`, got `array`", id="too-deep"),
        pytest.param(REMEMBER, b"hello", AS_JSON, 400, "its body is not JSON", id="not-json"),
        pytest.param(REMEMBER, b"", AS_JSON, 400, "its body is empty", id="empty"),
        pytest.param(
            REMEMBER,
            b'{"callId": "c", "key": "k", "fact": "f"}',
            {**AS_JSON, "Content-Type": "text/plain"},
            415,
            "this one came as text/plain",
            id="not-sent-as-json",
        ),
        pytest.param(
            REMEMBER,
            b'{"callId": "c", "key": 1, "fact": "f"}',
            AS_JSON,
            400,
            "key: Expected `str`, got `int`",
            id="wrong-type",
        ),
        pytest.param(
            REMEMBER,
            b'{"callId": "c", "key": "k", "fact": "f", "x\\nWARNING forged line": 1}',
            AS_JSON,
            400,
            "Unknown field `x\\nWARNING forged line`",
            id="a-line-break-in-a-name",
        ),
        pytest.param(
            "/memories/forget-all",
            TOO_LARGE,
            {"Content-Type": "application/x-www-form-urlencoded"},
            413,
            "larger than OnFile accepts",
            id="form-too-large",
        ),
    ],
)
async def test_a_refused_body_is_one_warning_line_naming_the_route_and_why(
    client: AsyncTestClient[Litestar],
    caplog: pytest.LogCaptureFixture,
    path: str,
    body: bytes,
    headers: dict[str, str],
    status: int,
    reason: str,
) -> None:
    with caplog.at_level(logging.INFO):
        answer = await client.post(path, content=body, headers=headers)

    assert answer.status_code == status
    [line] = logged_by_the_application(caplog)
    route = "/agent/runs/{run_id}/remember" if path == REMEMBER else path
    assert line.levelno == logging.WARNING
    assert f"POST {route}" in line.getMessage()
    assert reason in line.getMessage()
    assert "\n" not in line.getMessage()
    assert_no_trace(line)


async def test_a_body_refused_on_a_session_route_names_its_route_too(
    client: AsyncTestClient[Litestar], caplog: pytest.LogCaptureFixture, login_as: LoginAs
) -> None:
    csrf = await login_as(LENA)
    body = {"scope": "tenant:berlin", "key": "k", "text": "t", "pinned": "true"}

    with caplog.at_level(logging.INFO):
        answer = await client.put("/admin/memories/mem_1", json=body, headers={"X-CSRF-Token": csrf})

    assert answer.status_code == 400
    [line] = logged_by_the_application(caplog)
    assert "PUT /admin/memories/{memory_id}: The request is not valid: Unknown field `scope`" in line.getMessage()
    assert_no_trace(line)


def logged_by_the_application(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """What the application logged at INFO and above, as it serves (`LoggingConfig`'s level): the test
    client's own request lines are not the application's."""
    return [record for record in caplog.records if record.name != "httpx"]


def assert_no_trace(line: logging.LogRecord) -> None:
    assert line.exc_info is None
    assert line.exc_text is None
    assert line.stack_info is None
    assert "Traceback" not in line.getMessage()
