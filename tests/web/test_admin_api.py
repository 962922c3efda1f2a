"""The elevated area's JSON endpoints: the same acts and checks as the pages, in the OpenAPI document,
behind the session and the CSRF header."""

from __future__ import annotations

from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import MemoryOrigin, ScopeContext
from store.admin import NOT_ADMINISTERED
from tests.web.admin_builders import ADA, GIL, JONAS, LENA, SAM, shared
from tests.web.conftest import LoginAs
from web.services import Services

OWN_PAGE = "Your own notes are kept on your own page."
UNSAFE_ROUTES = [
    ("POST", "/admin/memories", {"scope": "tenant:berlin", "key": "k", "text": "v"}),
    ("PUT", "/admin/memories/mem_tone", {"text": "v"}),
    ("DELETE", "/admin/memories/mem_tone", None),
    ("POST", "/admin/memories/mem_tone/pin", {"pinned": True}),
    ("POST", "/support/preview", {"actor": {"id": "ada"}, "text": ""}),
    ("POST", "/admin/facts", {"scope": "tenant:berlin", "key": "k", "text": "v"}),
    ("POST", "/admin/facts/mem_tone/edit", {"text": "v"}),
    ("POST", "/admin/facts/mem_tone/delete", {}),
    ("POST", "/admin/facts/mem_tone/pin", {"pinned": "true"}),
    ("POST", "/support/preview/show", {"actor_id": "ada"}),
    ("POST", "/memories/mem_tone/promote", {"scope": "tenant:berlin"}),
]


async def call(
    client: AsyncTestClient[Litestar], method: str, path: str, body: Any = None, token: str | None = None
) -> Any:
    headers = {"X-CSRF-Token": token} if token else {}
    return await client.request(method, path, json=body, headers=headers)


@pytest.mark.parametrize(("method", "path", "body"), UNSAFE_ROUTES)
async def test_every_new_unsafe_route_refuses_a_request_without_the_csrf_token(
    client: AsyncTestClient[Litestar],
    services: Services,
    login_as: LoginAs,
    method: str,
    path: str,
    body: dict[str, Any] | None,
) -> None:
    await services.provider.add([shared("tone", "formal", id="mem_tone")])
    await login_as(SAM if path.startswith("/support") else LENA)

    as_json = await client.request(method, path, json=body)
    as_form = await client.request(method, path, data={k: str(v) for k, v in (body or {}).items()})
    forged = await client.request(method, path, json=body, headers={"X-CSRF-Token": "forged"})

    assert as_json.status_code == as_form.status_code == forged.status_code == 403
    assert "nothing was changed" in as_json.text
    record = await services.provider.get("mem_tone")
    assert record is not None
    assert (record.text, record.pinned) == ("formal", False)
    assert len(await services.admin.audit_entries(LENA)) == 0


async def test_without_a_session_the_json_endpoints_answer_401(client: AsyncTestClient[Litestar]) -> None:
    for method, path, body in UNSAFE_ROUTES[:5]:
        response = await call(client, method, path, body)
        assert (response.status_code, response.json()) == (401, {"error": "Log in to the dashboard first."}), path


async def test_publishing_answers_201_with_the_record(client: AsyncTestClient[Litestar], login_as: LoginAs) -> None:
    token = await login_as(LENA)

    response = await call(
        client, "POST", "/admin/memories", {"scope": "tenant:berlin", "key": "tone", "text": "formal"}, token
    )

    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"record"}, "no budget when nothing was pinned"
    record = body["record"]
    assert (record["key"], record["text"], record["scope"], record["pinned"]) == (
        "tone",
        "formal",
        "tenant:berlin",
        False,
    )
    assert record["origin"] == {
        "author": "human",
        "threadId": None,
        "runId": None,
        "actorRef": "lena",
        "promotedFrom": None,
    }


async def test_a_person_publishing_at_their_own_scope_is_refused_and_nothing_reaches_the_trail(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    token = await login_as(ADA)
    body = {"scope": "actor:ada", "key": "adakey", "text": "ada private", "pinned": True}

    response = await call(client, "POST", "/admin/memories", body, token)

    assert response.status_code == 403
    assert await services.provider.at_scope_key("actor:ada", "adakey") is None
    assert await services.audit.at_scopes(["actor:ada", "tenant:berlin", "global"]) == []


@pytest.mark.parametrize(
    ("actor", "scope", "reason"),
    [
        (ADA, "tenant:berlin", "Writing at tenant:berlin needs someone who administers it; ada does not."),
        (JONAS, "tenant:berlin", "The scope tenant:berlin does not apply to jonas, so nothing can be written there."),
        (GIL, "tenant:hamburg", "The scope tenant:hamburg does not apply to gil, so nothing can be written there."),
        (GIL, "tenant:berlin", "Writing at tenant:berlin needs someone who administers it; gil does not."),
        (LENA, "actor:ada", "The scope actor:ada does not apply to lena, so nothing can be written there."),
        (ADA, "actor:ada", f"Writing at actor:ada here needs someone who administers it; ada does not. {OWN_PAGE}"),
        (LENA, "actor:lena", f"Writing at actor:lena here needs someone who administers it; lena does not. {OWN_PAGE}"),
    ],
    ids=[
        "no-elevation",
        "another-tenants-admin",
        "global-admin-elsewhere",
        "global-admin-own-tenant",
        "someone-else",
        "own-scope",
        "an-administrators-own-scope",
    ],
)
async def test_a_refused_publish_is_403_with_the_verdicts_reason(
    client: AsyncTestClient[Litestar], login_as: LoginAs, actor: Any, scope: str, reason: str
) -> None:
    token = await login_as(actor)

    response = await call(client, "POST", "/admin/memories", {"scope": scope, "key": "k", "text": "v"}, token)

    assert (response.status_code, response.json()) == (403, {"error": reason})


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"scope": "tenant:berlin", "key": "k", "text": "two\nlines"}, 400, "single line"),
        ({"scope": "tenant:berlin", "key": "k", "text": "  "}, 400, "The fact is empty"),
        ({"scope": "tenant:berlin", "key": "", "text": "v"}, 400, "The key is empty"),
        ({"scope": "tenant:berlin", "key": "k", "text": "x" * 241}, 400, "the limit is 240"),
        ({"scope": "tenant:berlin", "key": "k" * 121, "text": "v"}, 400, "the limit is 120"),
        ({"scope": "tenant:berlin", "key": "k"}, 400, "text"),
        ({"scope": "tenant:berlin", "key": "k", "text": "v", "author": "agent"}, 400, "author"),
    ],
    ids=["multi-line", "empty-fact", "empty-key", "long-fact", "long-key", "missing-text", "unknown-field"],
)
async def test_invalid_input_is_400_with_a_clear_message(
    client: AsyncTestClient[Litestar], login_as: LoginAs, body: dict[str, Any], status: int, message: str
) -> None:
    token = await login_as(LENA)

    response = await call(client, "POST", "/admin/memories", body, token)

    assert response.status_code == status
    assert list(response.json()) == ["error"], "one shape for every refusal, parsing included"
    assert message in response.json()["error"]


async def test_edit_delete_and_pin_act_on_facts_at_administered_scopes(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("tone", "formal", id="mem_tone")])
    token = await login_as(LENA)

    edited = await call(client, "PUT", "/admin/memories/mem_tone", {"text": "friendly"}, token)
    invalid = await call(client, "PUT", "/admin/memories/mem_tone", {"text": "a\rb"}, token)
    pinned = await call(client, "POST", "/admin/memories/mem_tone/pin", {"pinned": True}, token)
    deleted = await call(client, "DELETE", "/admin/memories/mem_tone", None, token)
    again = await call(client, "DELETE", "/admin/memories/mem_tone", None, token)

    assert (edited.status_code, edited.json()["record"]["text"]) == (200, "friendly")
    assert invalid.status_code == 400
    assert "line break" in invalid.json()["error"]
    assert (pinned.status_code, pinned.json()["record"]["pinned"]) == (200, True)
    assert pinned.json()["budget"] == {"scope": "tenant:berlin", "pinnedKeys": 1, "maxMemories": 20, "over": False}
    assert (deleted.status_code, deleted.json()["deleted"], deleted.json()["record"]["text"]) == (200, True, "friendly")
    assert (again.status_code, again.json()) == (404, {"error": NOT_ADMINISTERED})
    assert [e.action for e in await services.admin.audit_entries(LENA)] == ["delete", "pin", "edit"]


async def test_unknown_and_not_administered_ids_answer_one_404_and_no_elevation_answers_403(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("labels", "customer first", "tenant:hamburg", id="mem_hamburg")])
    token = await login_as(LENA)
    answers = [
        await call(client, "PUT", "/admin/memories/mem_hamburg", {"text": "mine now"}, token),
        await call(client, "PUT", "/admin/memories/mem_unknown", {"text": "x"}, token),
        await call(client, "DELETE", "/admin/memories/mem_hamburg", None, token),
        await call(client, "POST", "/admin/memories/mem_hamburg/pin", {"pinned": True}, token),
    ]
    token = await login_as(ADA)
    by_ada = await call(client, "DELETE", "/admin/memories/mem_hamburg", None, token)

    assert {(a.status_code, a.content) for a in answers} == {(404, b'{"error":"' + NOT_ADMINISTERED.encode() + b'"}')}
    assert by_ada.status_code == 403
    assert by_ada.json()["error"].startswith("ada administers no scope")
    assert await services.provider.get("mem_hamburg") is not None


async def test_an_agent_authored_record_never_reaches_a_wider_scope_except_republished_by_a_person(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    note = await services.provider.write(
        key="cutoff",
        text="orders close at 14:00",
        scope="actor:lena",
        origin=MemoryOrigin("agent", thread_id="thr_1", run_id="run_1", actor_ref="lena"),
        ctx=ScopeContext(LENA),
    )
    token = await login_as(LENA)

    edit_from_afar = await call(client, "PUT", f"/admin/memories/{note.id}", {"text": "x"}, token)
    pin_from_afar = await call(client, "POST", f"/admin/memories/{note.id}/pin", {"pinned": True}, token)
    promoted = await client.post(
        f"/memories/{note.id}/promote", data={"csrf_token": token, "scope": "tenant:berlin"}, follow_redirects=False
    )

    assert edit_from_afar.status_code == pin_from_afar.status_code == 404, "the console acts at administered scopes"
    assert promoted.status_code == 303
    wider = await services.provider.list(scopes=["tenant:berlin"], ctx=ScopeContext(LENA))
    assert [(r.key, r.origin.author) for r in wider] == [("cutoff", "human")], "a person republished it"
    original = await services.provider.get(note.id)
    assert original is not None
    assert (original.scope, original.origin.author) == ("actor:lena", "agent")


async def test_the_endpoints_are_in_the_openapi_document_with_examples(client: AsyncTestClient[Litestar]) -> None:
    paths = (await client.get("/schema/openapi.json")).json()["paths"]

    create = paths["/admin/memories"]["post"]
    assert create["requestBody"]["content"]["application/json"]["schema"]["examples"]
    assert {"201", "400", "403"} <= set(create["responses"])
    assert create["security"] == [{"dashboardSession": [], "csrfToken": []}]
    assert set(paths["/admin/memories"]) == {"get", "post"}
    assert set(paths["/admin/memories/{memory_id}"]) == {"get", "put", "delete"}
    for method in ("put", "delete"):
        operation = paths["/admin/memories/{memory_id}"][method]
        assert "412" in operation["responses"]
        [if_match] = [p for p in operation["parameters"] if p["name"] == "If-Match"]
        assert (if_match["in"], if_match["required"]) == ("header", False)
    assert paths["/admin/memories/{memory_id}"]["put"]["requestBody"]["content"]["application/json"]["schema"][
        "examples"
    ]
    assert paths["/admin/memories/{memory_id}/pin"]["post"]["responses"]["200"]["content"]["application/json"][
        "examples"
    ]
    preview = paths["/support/preview"]["post"]
    assert preview["requestBody"]["content"]["application/json"]["schema"]["examples"]
    assert "403" in preview["responses"]
    assert not any(path.startswith(("/admin/facts", "/admin/audit", "/support/preview/")) for path in paths)


@pytest.mark.parametrize(
    ("raw", "status"),
    [
        pytest.param(b'{"scope": "tenant:berlin", "key": "k"', 400, id="truncated"),
        pytest.param(b'{"scope": "tenant:berlin", "key": "k", "text": "\\ud800"}', 400, id="lone-surrogate"),
        pytest.param(b"[" * 1000 + b"]" * 1000, 400, id="nested-too-deep"),
        pytest.param(b'{"text": "' + b"x" * 11_000_000 + b'"}', 413, id="too-large"),
    ],
)
async def test_a_body_that_is_not_json_or_too_large_is_refused_in_the_one_shape(
    client: AsyncTestClient[Litestar], login_as: LoginAs, raw: bytes, status: int
) -> None:
    token = await login_as(LENA)

    response = await client.post(
        "/admin/memories", content=raw, headers={"X-CSRF-Token": token, "Content-Type": "application/json"}
    )

    assert response.status_code == status
    assert list(response.json()) == ["error"]
