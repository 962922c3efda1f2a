"""Every operation of the OpenAPI document, fuzzed by schemathesis in-process: valid and invalid
bodies, paths and queries, authenticated as an agent runtime and as a person who administers Berlin
and the global scope and may preview prompts. No request makes a server error, and every answer
matches what the document says of it (its schema and its content type)."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from litestar import Litestar
from schemathesis.checks import not_a_server_error
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from store import Actor
from tests.properties.world import LONG_RUN
from tests.web.builders import make_record, seed
from tests.web.conftest import AGENT_TOKEN, SECRET
from web.kit.identity.oidc import Person
from web.kit.identity.sessions import SESSION_COOKIE, csrf_token, start_session
from web.services import Services

LENA = Actor("lena", "berlin", ("onfile-admin", "onfile-global-admin", "onfile-support"))
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]
FUZZ = settings(
    max_examples=1000 if LONG_RUN else 60,
    deadline=None,
    derandomize=not LONG_RUN,
    database=None,
    suppress_health_check=list(HealthCheck),
)


@pytest.fixture
async def credentials(services: Services) -> dict[str, Any]:
    await seed(
        services,
        make_record("mem_lena_units", "units", "kilometres", "actor:lena", actor_ref="lena"),
        make_record("mem_berlin_units", "units", "miles", "tenant:berlin", author="human", actor_ref="gil"),
        make_record("mem_hamburg_tone", "tone", "formal", "tenant:hamburg", author="human", actor_ref="jonas"),
    )
    session_id = await start_session(services, Person(LENA, "Lena", "lena@example.com", ""), None)
    return {
        "headers": {"Authorization": f"Bearer {AGENT_TOKEN}", "X-CSRF-Token": csrf_token(SECRET, session_id)},
        "cookies": {SESSION_COOKIE: session_id},
    }


@pytest.fixture
def web_schema(app: Litestar, credentials: dict[str, Any]) -> schemathesis.BaseSchema:
    return schemathesis.openapi.from_asgi("/schema/openapi.json", app)


def test_no_request_makes_a_server_error_and_every_answer_matches_the_document(
    web_schema: schemathesis.BaseSchema, credentials: dict[str, Any]
) -> None:
    # Driven through hypothesis directly, one operation after another: schemathesis' own pytest
    # integration does not run on pytest 9.
    operations = []
    for result in web_schema.get_all_operations():
        assert isinstance(result, Ok), result.err()
        operations.append(result.ok())
    assert len(operations) >= 10, [o.label for o in operations]
    for operation in operations:

        @FUZZ
        @given(case=operation.as_strategy())
        def call(case: schemathesis.Case[Any]) -> None:
            case.call_and_validate(headers=credentials["headers"], cookies=credentials["cookies"], checks=CHECKS)

        call()
