"""The administrators' JSON API from an automation's side: read a shared fact with its version, and
edit, pin or delete only the version read (If-Match), so a change someone made meanwhile is never
overwritten unseen."""

from __future__ import annotations

from typing import Any

from litestar import Litestar
from litestar.testing import AsyncTestClient

from store.admin import NOT_ADMINISTERED
from tests.web.admin_builders import ADA, JONAS, LENA, shared
from tests.web.conftest import LoginAs
from web.admin.api import CHANGED_SINCE, PUBLISH_TAKES_NO_VERSION
from web.services import Services

Client = AsyncTestClient[Litestar]


async def send(client: Client, method: str, path: str, token: str, body: Any = None, **headers: str) -> Any:
    return await client.request(method, path, json=body, headers={"X-CSRF-Token": token, **headers})


async def test_an_edit_with_the_version_read_goes_through_and_answers_the_new_version(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("tone", "formal", id="mem_tone")])
    token = await login_as(LENA)

    read = await client.get("/admin/memories/mem_tone")
    edited = await send(
        client, "PUT", "/admin/memories/mem_tone", token, {"text": "warm"}, **{"If-Match": read.headers["ETag"]}
    )

    assert read.status_code == 200
    assert read.json()["record"]["text"] == "formal"
    assert edited.status_code == 200
    assert edited.json()["record"]["text"] == "warm"
    assert edited.headers["ETag"] != read.headers["ETag"]
    again = await client.get("/admin/memories/mem_tone")
    assert again.headers["ETag"] == edited.headers["ETag"]


async def test_a_fact_changed_since_it_was_read_is_not_edited_pinned_or_deleted_and_412_says_so(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("tone", "formal", id="mem_tone")])
    token = await login_as(LENA)
    read = await client.get("/admin/memories/mem_tone")
    await services.admin.edit(LENA, "mem_tone", text="casual")  # another administrator, meanwhile
    stale = {"If-Match": read.headers["ETag"]}

    edit = await send(client, "PUT", "/admin/memories/mem_tone", token, {"text": "warm"}, **stale)
    pin = await send(client, "POST", "/admin/memories/mem_tone/pin", token, {"pinned": True}, **stale)
    delete = await send(client, "DELETE", "/admin/memories/mem_tone", token, **stale)

    said = CHANGED_SINCE.replace("{id}", "mem_tone")
    now = await client.get("/admin/memories/mem_tone")
    for refused in (edit, pin, delete):
        assert (refused.status_code, refused.json()) == (412, {"error": said})
        assert refused.headers["ETag"] == now.headers["ETag"]
    assert now.json()["record"]["text"] == "casual"
    assert now.json()["record"]["pinned"] is False
    assert [e.action for e in await services.admin.audit_entries(LENA)] == ["edit"], "only the other edit"


async def test_a_pin_changes_the_version_so_an_edit_from_before_it_asks_again(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("tone", "formal", id="mem_tone")])
    token = await login_as(LENA)
    read = await client.get("/admin/memories/mem_tone")

    pinned = await send(
        client, "POST", "/admin/memories/mem_tone/pin", token, {"pinned": True}, **{"If-Match": read.headers["ETag"]}
    )
    late = await send(
        client, "PUT", "/admin/memories/mem_tone", token, {"text": "warm"}, **{"If-Match": read.headers["ETag"]}
    )
    current = await send(
        client, "PUT", "/admin/memories/mem_tone", token, {"text": "warm"}, **{"If-Match": pinned.headers["ETag"]}
    )

    assert pinned.status_code == 200
    assert late.status_code == 412
    assert current.status_code == 200
    assert current.json()["record"]["text"] == "warm"


async def test_any_version_and_no_if_match_act_on_the_fact_as_it_is(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("tone", "formal", id="mem_tone"), shared("dress", "suits", id="mem_dress")])
    token = await login_as(LENA)

    star = await send(client, "PUT", "/admin/memories/mem_tone", token, {"text": "warm"}, **{"If-Match": "*"})
    listed = await send(client, "DELETE", "/admin/memories/mem_dress", token, **{"If-Match": '"old", *'})
    plain = await send(client, "PUT", "/admin/memories/mem_tone", token, {"text": "brisk"})

    assert (star.status_code, listed.status_code, plain.status_code) == (200, 200, 200)
    assert await services.provider.get("mem_dress") is None


async def test_reading_lists_only_what_the_caller_administers_and_others_are_one_404(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    await services.provider.add(
        [
            shared("tone", "formal", id="mem_tone"),
            shared("dress", "suits", id="mem_dress"),
            shared("tone", "brief", scope="tenant:hamburg", id="mem_hamburg"),
        ]
    )
    token = await login_as(LENA)

    listed = await client.get("/admin/memories")
    elsewhere = await client.get("/admin/memories/mem_hamburg")
    unknown = await client.get("/admin/memories/mem_nobody")
    stale_elsewhere = await send(client, "DELETE", "/admin/memories/mem_hamburg", token, **{"If-Match": "*"})

    assert listed.status_code == 200
    assert [(r["key"], r["scope"]) for r in listed.json()["records"]] == [
        ("dress", "tenant:berlin"),
        ("tone", "tenant:berlin"),
    ]
    assert listed.headers["cache-control"] == "no-store"
    for refused in (elsewhere, unknown, stale_elsewhere):
        assert (refused.status_code, refused.json()) == (404, {"error": NOT_ADMINISTERED})
    assert await services.provider.get("mem_hamburg") is not None


async def test_reading_is_for_administrators_with_a_session(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("tone", "formal", id="mem_tone")])

    without_session = await client.get("/admin/memories/mem_tone")
    await login_as(ADA)
    not_an_administrator = await client.get("/admin/memories")
    await login_as(JONAS)
    another_organisations = await client.get("/admin/memories")

    assert (without_session.status_code, without_session.json()) == (401, {"error": "Log in to the dashboard first."})
    assert not_an_administrator.status_code == 403
    assert (another_organisations.status_code, another_organisations.json()) == (200, {"records": []})


async def test_a_publish_sent_with_if_match_is_refused_rather_than_written_past_the_condition(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("tone", "formal", id="mem_tone")])
    token = await login_as(LENA)
    body = {"scope": "tenant:berlin", "key": "tone", "text": "casual"}

    refused = await send(client, "POST", "/admin/memories", token, body, **{"If-Match": '"stale"'})
    create_only = await send(client, "POST", "/admin/memories", token, body, **{"If-None-Match": "*"})

    assert (refused.status_code, refused.json()) == (400, {"error": PUBLISH_TAKES_NO_VERSION})
    assert (create_only.status_code, create_only.json()) == (400, {"error": PUBLISH_TAKES_NO_VERSION})
    stored = await services.provider.get("mem_tone")
    assert stored is not None
    assert stored.text == "formal"


async def test_the_api_document_says_where_the_version_is_and_who_may_read(client: Client) -> None:
    paths = (await client.get("/schema/openapi.json")).json()["paths"]

    one = paths["/admin/memories/{memory_id}"]
    for operation, status in ((one["get"], "200"), (one["put"], "200"), (paths["/admin/memories"]["post"], "201")):
        assert "ETag" in operation["responses"][status]["headers"]
    assert "403" in paths["/admin/memories"]["get"]["responses"]
    assert "403" in one["get"]["responses"]
    assert not any(p["name"] == "If-Match" for p in paths["/admin/memories"]["post"].get("parameters", []))
