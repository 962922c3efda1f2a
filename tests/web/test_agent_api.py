"""The agent runtime API over HTTP: tokens, the once-per-run digest, remember once per call, threads."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor, MemoryOrigin, MemoryRecord
from store.persistence import Origin
from tests.builders import T0
from tests.web.conftest import AGENT_TOKEN, AGENT_TOKEN_OLD, LoginAs
from web.agent.api import RememberOut
from web.app import create_app
from web.kit.wire import DigestOut
from web.services import Services, open_services
from web.settings import Settings

AUTH = {"Authorization": f"Bearer {AGENT_TOKEN}"}
ADA = {"id": "ada", "tenantRef": "berlin", "roles": ["staff"]}


def policy(key: str, text: str, scope: str = "tenant:berlin", *, pinned: bool = False) -> MemoryRecord:
    return MemoryRecord(
        f"mem_{key}", key, text, scope, MemoryOrigin(author="human", actor_ref="lena"), T0, pinned=pinned
    )


async def digest(client: AsyncTestClient[Litestar], run: str, body: dict[str, Any]) -> Any:
    return await client.post(f"/agent/runs/{run}/digest", json=body, headers=AUTH)


async def test_the_digest_carries_entries_block_and_the_remember_tool(
    client: AsyncTestClient[Litestar], services: Services
) -> None:
    await services.provider.add([policy("units", "kilometres"), policy("manifest", "print it", pinned=True)])

    response = await digest(client, "run_1", {"actor": ADA, "threadId": "thr_1", "text": ""})

    assert response.status_code == 200
    body = response.json()
    assert body["memory"] == "on"
    assert body["scopes"] == ["actor:ada", "tenant:berlin", "global"]
    assert [e["key"] for e in body["entries"]] == ["manifest", "units"]
    assert body["entries"][0]["origin"] == {
        "author": "human",
        "threadId": None,
        "runId": None,
        "actorRef": "lena",
        "promotedFrom": None,
    }
    assert (body["omitted"], body["pinnedOmitted"], body["recalled"], body["writable"]) == (0, 0, False, True)
    assert "- [tenant:berlin] units: kilometres" in body["block"]
    assert [t["name"] for t in body["tools"]] == ["remember"]


async def test_a_replay_is_byte_identical_even_after_the_memories_changed(
    client: AsyncTestClient[Litestar], services: Services
) -> None:
    await services.provider.add([policy("units", "kilometres")])
    first = await digest(client, "run_1", {"actor": ADA, "threadId": "thr_1", "text": "units"})
    await services.provider.add([policy("units", "miles"), policy("extra", "new")])

    again = await digest(client, "run_1", {"actor": {**ADA, "tenantRef": "hamburg"}, "threadId": "thr_1", "text": "x"})

    assert again.status_code == 200
    assert again.content == first.content


async def test_a_later_call_for_another_actor_is_409(client: AsyncTestClient[Litestar]) -> None:
    await digest(client, "run_1", {"actor": ADA, "threadId": "thr_1"})

    response = await digest(client, "run_1", {"actor": {"id": "bob"}, "threadId": "thr_1"})

    assert response.status_code == 409
    assert "resolved for actor ada, not bob" in response.json()["error"]


async def test_remember_runs_once_per_call_and_mistakes_are_results(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await digest(client, "run_1", {"actor": ADA, "threadId": "thr_1"})
    call = {"callId": "call_1", "key": "tone", "fact": "short answers"}

    first = await client.post("/agent/runs/run_1/remember", json=call, headers=AUTH)
    retry = await client.post("/agent/runs/run_1/remember", json=call, headers=AUTH)
    reused = await client.post("/agent/runs/run_1/remember", json={**call, "fact": "changed"}, headers=AUTH)
    too_long = await client.post(
        "/agent/runs/run_1/remember", json={"callId": "call_2", "key": "k", "fact": "x" * 300}, headers=AUTH
    )
    two_lines = await client.post(
        "/agent/runs/run_1/remember", json={"callId": "call_3", "key": "k", "fact": "a\nb"}, headers=AUTH
    )

    assert first.status_code == 200
    assert first.json()["ok"] is True
    assert first.json()["record"]["scope"] == "actor:ada"
    assert first.json()["record"]["origin"] == {
        "author": "agent",
        "threadId": "thr_1",
        "runId": "run_1",
        "actorRef": "ada",
        "promotedFrom": None,
    }
    assert retry.content == first.content
    assert reused.status_code == 409
    assert reused.json() == {
        "error": "Call call_1 of run run_1 was already carried out with another key or fact; nothing was written. "
        "Give each remember call its own callId."
    }
    assert too_long.json() == {
        "ok": False,
        "error": "The fact is 300 characters long; the limit is 240. State it in one shorter sentence.",
    }
    assert two_lines.status_code == 200
    assert "single line" in two_lines.json()["error"]
    await login_as(replace_actor())
    on_file = (await client.get("/agent/memories")).json()
    assert [(e["key"], e["text"]) for e in on_file] == [("tone", "short answers")]


def replace_actor() -> Any:

    return Actor(id="ada", tenant_ref="berlin")


async def test_remember_for_a_run_with_no_digest_is_409(client: AsyncTestClient[Litestar]) -> None:
    response = await client.post(
        "/agent/runs/run_x/remember", json={"callId": "c", "key": "k", "fact": "v"}, headers=AUTH
    )

    assert response.status_code == 409
    assert "no memory digest yet" in response.json()["error"]


async def test_thread_deletion_and_dropped_runs_keep_memories_and_make_origins_dangle(
    client: AsyncTestClient[Litestar], services: Services
) -> None:
    await digest(client, "run_1", {"actor": ADA, "threadId": "thr_1"})
    await digest(client, "run_2", {"actor": ADA, "threadId": "thr_2"})
    await client.post("/agent/runs/run_1/remember", json={"callId": "c", "key": "a", "fact": "1"}, headers=AUTH)

    deleted = await client.delete("/agent/threads/thr_1", headers=AUTH)
    dropped = await client.post("/agent/threads/thr_2/dropped-runs", json={"runIds": ["run_2"]}, headers=AUTH)

    assert (deleted.status_code, deleted.json()) == (200, {"threadId": "thr_1", "memoriesKept": True})
    assert dropped.status_code == 200
    resolving = await services.registry.origins_resolve([Origin("thr_1", "run_1"), Origin("thr_2", "run_2")])
    assert resolving == frozenset()
    assert len(await services.provider.list(scopes=["actor:ada"], ctx=None)) == 1  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer wrong"},
        {"Authorization": f"Basic {AGENT_TOKEN}"},
        {"Authorization": "Bearer"},
    ],
)
async def test_agent_routes_refuse_a_missing_or_wrong_token(
    client: AsyncTestClient[Litestar], headers: dict[str, str]
) -> None:
    for method, path, body in [
        ("POST", "/agent/runs/r/digest", {"actor": ADA}),
        ("POST", "/agent/runs/r/remember", {"callId": "c", "key": "k", "fact": "v"}),
        ("DELETE", "/agent/threads/t", None),
        ("POST", "/agent/threads/t/dropped-runs", {"runIds": ["r"]}),
    ]:
        response = await client.request(method, path, json=body, headers=headers)
        assert response.status_code == 401, path
        assert response.headers["www-authenticate"].startswith("Bearer")


async def test_both_rotated_tokens_work_and_a_session_cookie_alone_does_not(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    old = await client.post(
        "/agent/runs/r1/digest", json={"actor": ADA}, headers={"Authorization": f"Bearer {AGENT_TOKEN_OLD}"}
    )
    current = await client.post("/agent/runs/r2/digest", json={"actor": ADA}, headers=AUTH)
    await login_as(replace_actor())
    cookie_only = await client.post("/agent/runs/r3/digest", json={"actor": ADA})

    assert (old.status_code, current.status_code, cookie_only.status_code) == (200, 200, 401)


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"actor": {}},
        {"actor": {"id": ""}},
        {"actor": {"id": "x" * 201}},
        {"actor": ADA, "surprise": 1},
        {"actor": ADA, "text": 7},
    ],
)
async def test_a_malformed_digest_request_is_a_clear_400(
    client: AsyncTestClient[Litestar], body: dict[str, Any]
) -> None:
    response = await digest(client, "run_1", body)

    assert response.status_code == 400


async def test_a_null_text_or_thread_is_as_leaving_it_out(
    client: AsyncTestClient[Litestar], services: Services
) -> None:
    await services.provider.add([policy("units", "kilometres")])

    given_null = await digest(client, "run_1", {"actor": {**ADA, "roles": None}, "threadId": None, "text": None})
    left_out = await digest(client, "run_2", {"actor": ADA})

    assert given_null.status_code == left_out.status_code == 200
    assert given_null.json()["block"] == left_out.json()["block"]


async def test_with_memory_off_nothing_is_resolved_written_or_journaled(settings: Settings) -> None:
    off_settings = replace(settings, memory_enabled=False)
    services = await open_services(off_settings, migrate=True)
    app = create_app(off_settings, services=services)
    async with AsyncTestClient(app=app, base_url="http://127.0.0.1:8000") as client:
        off = await digest(client, "run_1", {"actor": ADA, "threadId": "t"})
        remember = await client.post(
            "/agent/runs/run_1/remember", json={"callId": "c", "key": "k", "fact": "v"}, headers=AUTH
        )

    assert off.json()["memory"] == "off"
    assert (off.json()["block"], off.json()["tools"]) == ("", [])
    assert remember.json()["ok"] is False
    assert "switched off" in remember.json()["error"]
    assert await services.journal.checkpoints("run_1") == {}
    await services.close()


async def test_an_application_refuses_services_opened_with_other_settings(
    settings: Settings, services: Services
) -> None:
    with pytest.raises(ValueError, match="other settings"):
        create_app(replace(settings, max_memories=5), services=services)


async def test_metrics_count_resolutions_and_writes_without_keys_or_facts(
    client: AsyncTestClient[Litestar], services: Services
) -> None:
    await services.provider.add([policy(f"p{i}", "always", pinned=True) for i in range(22)])
    await digest(client, "run_1", {"actor": ADA, "threadId": "t"})
    await digest(client, "run_1", {"actor": ADA, "threadId": "t"})  # a replay is not a resolution
    await client.post(
        "/agent/runs/run_1/remember", json={"callId": "c", "key": "secret-key", "fact": "secret fact"}, headers=AUTH
    )

    text = (await client.get("/metrics")).text

    assert "onfile_memory_resolved_total 1\n" in text
    assert "onfile_memory_pinned_omitted_total 2\n" in text
    assert 'onfile_memory_written_total{scope_kind="actor"} 1\n' in text
    assert "secret" not in text
    assert "ada" not in text


async def test_the_openapi_document_describes_the_agent_routes_with_examples(client: AsyncTestClient[Litestar]) -> None:
    document = (await client.get("/schema/openapi.json")).json()

    paths = document["paths"]
    for path in (
        "/agent/runs/{run_id}/digest",
        "/agent/runs/{run_id}/remember",
        "/agent/threads/{thread_id}",
        "/agent/memories",
    ):
        assert path in paths, path
    digest_op = paths["/agent/runs/{run_id}/digest"]["post"]
    assert digest_op["requestBody"]["content"]["application/json"]["schema"]["examples"][0]["actor"]["id"] == "u1"
    assert document["components"]["securitySchemes"]["agentToken"]["scheme"] == "bearer"


async def test_the_openapi_document_states_exactly_what_the_agent_routes_accept_and_answer(
    client: AsyncTestClient[Litestar],
) -> None:
    document = (await client.get("/schema/openapi.json")).json()
    schemas = document["components"]["schemas"]
    agent_operations = [
        (path, method, operation)
        for path, item in document["paths"].items()
        if path.startswith(("/agent/runs", "/agent/threads"))
        for method, operation in item.items()
    ]

    for name in ("DigestIn", "ActorIn", "RememberIn", "DroppedRunsIn", "SharedMemoryIn", "TextIn", "PinIn"):
        assert schemas[name]["additionalProperties"] is False, name
    roles, nothing = schemas["ActorIn"]["properties"]["roles"]["anyOf"]
    assert nothing == {"type": "null"}
    assert roles["items"] == {
        "type": "string",
        "minLength": 1,
        "maxLength": 200,
        "description": schemas["ActorIn"]["properties"]["id"]["description"],
    }
    assert "No '/'" in schemas["DroppedRunsIn"]["properties"]["runIds"]["items"]["description"]
    assert len(agent_operations) == 4
    for path, method, operation in agent_operations:
        responses = operation["responses"]
        assert {"200", "400", "401", "503"} <= set(responses), (path, method)
        assert ("413" in responses) == ("requestBody" in operation), (path, method)
        for status, response in responses.items():
            content = response["content"]["application/json"]
            if status != "200":
                assert content["schema"] == {"$ref": "#/components/schemas/ProblemOut"}, (path, method, status)
                for example in content["examples"].values():
                    assert list(example["value"]) == ["error"]
    invalid = {(path, method): first_example(operation, "400")["error"] for path, method, operation in agent_operations}
    assert invalid == {
        ("/agent/runs/{run_id}/digest", "post"): StartsWith("The request is not valid: actor.id "),
        ("/agent/runs/{run_id}/remember", "post"): StartsWith("The request is not valid: callId "),
        ("/agent/threads/{thread_id}", "delete"): StartsWith("threadId "),
        ("/agent/threads/{thread_id}/dropped-runs", "post"): StartsWith("The request is not valid: runIds "),
    }, "each route's 400 is shown with a mistake of its own"
    digest_example = agent_operations_answer(document, "/agent/runs/{run_id}/digest")
    assert msgspec.convert(digest_example, DigestOut).memory == "on"
    remember_example = agent_operations_answer(document, "/agent/runs/{run_id}/remember")
    assert msgspec.convert(remember_example, RememberOut).ok is True


async def test_every_answer_the_document_lists_has_a_real_example_and_an_outage_is_listed(
    client: AsyncTestClient[Litestar],
) -> None:
    """A runtime generating a client, or a developer reading the document, meets every answer with an
    example written for it — never one made up from the schema — and the 503 every call can get."""
    document = (await client.get("/schema/openapi.json")).json()

    assert "examples" not in document["components"]["schemas"]["ProblemOut"]["properties"]["error"]
    assert "examples" not in document["components"]["schemas"]["ProblemOut"]
    for path, item in document["paths"].items():
        for method, operation in item.items():
            assert "503" in operation["responses"], (path, method)
            for status, response in operation["responses"].items():
                for content in response["content"].values():
                    assert content.get("examples"), (path, method, status)
    readback = first_example(document["paths"]["/agent/memories"]["get"], "200")
    assert readback[0]["origin"]["resolves"] is True
    digest = first_example(document["paths"]["/agent/runs/{run_id}/digest"]["post"], "200")
    assert (len(digest["entries"]), digest["omitted"], digest["recalled"]) == (1, 0, False), "one memory fits"


def first_example(operation: dict[str, Any], status: str) -> Any:
    examples = operation["responses"][status]["content"]["application/json"]["examples"]
    return next(iter(examples.values()))["value"]


class StartsWith(str):
    """Equal to any text beginning with it."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and other.startswith(self)

    __hash__ = str.__hash__


def agent_operations_answer(document: dict[str, Any], path: str) -> Any:
    examples = document["paths"][path]["post"]["responses"]["200"]["content"]["application/json"]["examples"]
    return next(iter(examples.values()))["value"]


async def test_a_body_that_does_not_match_its_schema_is_refused_naming_the_field(
    client: AsyncTestClient[Litestar],
) -> None:
    too_long = await client.post("/agent/runs/run_1/digest", json={"actor": {"id": "u" * 201}}, headers=AUTH)
    wrong_type = await client.post("/agent/runs/run_1/digest", json={"actor": {"id": "u"}, "text": 5}, headers=AUTH)

    assert too_long.status_code == wrong_type.status_code == 400
    assert too_long.json() == {"error": "The request is not valid: actor.id: Expected `str` of length <= 200"}
    assert wrong_type.json() == {"error": "The request is not valid: text: Expected `str | null`, got `int`"}
