"""The boundary between organisations, tried from outside as the people who act for others would: an
`onfile serve` process, the real sign-in through an OpenID provider process, and plain HTTP.

Two organisations, t1org and t2org. Support staff of t1org try to see a person of t2org by typing
t1org as her organisation; an agent tries to move her into t1org; an administrator of t2org tries to
erase a person of t1org. Every attempt is refused and changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.processes.servers import ServerProcess
from web.demo.oidc_mock import MockProvider

TOKEN = "boundary-agent-token-0123456789"
C1_SECRET = "c1 keeps the spare key under the blue pot"
C2_SECRET = "c2 banks with the harbour savings union"
T2_POLICY = "t2org ships only on Thursdays"


@pytest.fixture(scope="module")
def provider() -> Iterator[MockProvider]:
    mock = MockProvider().start()
    mock.people(
        [
            ("sam1", {"name": "Sam One", "tenant": "t1org", "roles": ["onfile-support"]}),
            ("adm2", {"name": "Admin Two", "tenant": "t2org", "roles": ["onfile-admin"]}),
            ("c1", {"name": "Customer One", "tenant": "t1org"}),
            ("c2", {"name": "Customer Two", "tenant": "t2org"}),
        ]
    )
    yield mock
    mock.stop()


@pytest.fixture
def server(provider: MockProvider, tmp_path: Path) -> Iterator[ServerProcess]:
    environment = {
        "ONFILE_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'boundaries.sqlite3'}",
        "ONFILE_SECRET_KEY": "boundary-secret-key-0123456789abcdefghij",
        "ONFILE_OIDC_ISSUER": provider.issuer,
        "ONFILE_OIDC_CLIENT_ID": "onfile-boundaries",
        "ONFILE_OIDC_CLIENT_SECRET": "onfile-boundaries-secret",
        "ONFILE_AGENT_TOKENS": TOKEN,
        "ONFILE_EMBEDDER": "none",
    }
    started = ServerProcess(environment, tmp_path / "server.log").start()
    yield started
    started.stop()


def agent_turn(server: ServerProcess, run: str, actor: dict[str, str], fact: str | None = None) -> httpx.Response:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    body = {"actor": actor, "threadId": f"thr_{run}", "text": "what do you know"}
    answer = httpx.post(f"{server.base_url}/agent/runs/{run}/digest", json=body, headers=auth, timeout=30)
    if fact is not None and answer.status_code == 200:
        call = {"callId": "call_1", "key": "note", "fact": fact}
        wrote = httpx.post(f"{server.base_url}/agent/runs/{run}/remember", json=call, headers=auth, timeout=30)
        assert wrote.json()["ok"] is True, wrote.text
    return answer


@contextmanager
def signed_in(server: ServerProcess, provider: MockProvider, sub: str) -> Iterator[tuple[httpx.Client, str]]:
    """A browser-less client signed in as `sub` through the provider, and its CSRF token."""
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        start = client.get("/login")
        client.get(provider.authorize(start.headers["location"], sub))
        page = client.get("/")
        token = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
        assert token, page.text[:500]
        yield client, token.group(1)


@pytest.fixture
def world(server: ServerProcess) -> ServerProcess:
    """c1 in t1org and c2 in t2org, each with a memory of their own; t2org with a shared policy."""
    assert agent_turn(server, "seed_c1", {"id": "c1", "tenantRef": "t1org"}, C1_SECRET).status_code == 200
    assert agent_turn(server, "seed_c2", {"id": "c2", "tenantRef": "t2org"}, C2_SECRET).status_code == 200
    return server


def test_support_of_one_organisation_cannot_see_a_person_of_another(
    world: ServerProcess, provider: MockProvider
) -> None:
    with signed_in(world, provider, "sam1") as (support, csrf):
        headers = {"X-CSRF-Token": csrf}
        typed_as_ours = support.post(
            "/support/preview", json={"actor": {"id": "c2", "tenantRef": "t1org"}, "text": ""}, headers=headers
        )
        never_seen = support.post(
            "/support/preview", json={"actor": {"id": "zz9", "tenantRef": "t1org"}, "text": ""}, headers=headers
        )
        page = support.post(
            "/support/preview/show", data={"actor_id": "c2", "text": "", "csrf_token": csrf}, headers=headers
        )
        listed = support.get("/support/preview")
        own = support.post(
            "/support/preview", json={"actor": {"id": "c1", "tenantRef": "t2org"}, "text": ""}, headers=headers
        )

    assert typed_as_ours.status_code == never_seen.status_code == 404
    assert typed_as_ours.json()["error"].replace("c2", "ID") == never_seen.json()["error"].replace("zz9", "ID")
    assert page.status_code == 404
    for answer in (typed_as_ours, page, listed):
        assert C2_SECRET not in answer.text
    assert 'value="c1"' in listed.text
    assert 'value="c2"' not in listed.text
    # a person of their own organisation is previewed as OnFile knows her, whatever the call says
    assert own.status_code == 200, own.text
    assert C1_SECRET in own.json()["block"]
    assert own.json()["scopes"] == ["actor:c1", "tenant:t1org", "global"]


def test_an_agent_cannot_move_a_person_into_another_organisation(world: ServerProcess, provider: MockProvider) -> None:
    moved = agent_turn(world, "attack", {"id": "c2", "tenantRef": "t1org"}, "c2 now belongs to t1org")

    assert moved.status_code == 409
    assert moved.headers["content-type"].startswith("application/json")
    assert "c2 is known in organisation t2org, but this call names organisation t1org" in moved.json()["error"]
    # nothing changed: t1org's support still cannot see her, and her own turn is as it was
    with signed_in(world, provider, "sam1") as (support, csrf):
        looked = support.post(
            "/support/preview", json={"actor": {"id": "c2"}, "text": ""}, headers={"X-CSRF-Token": csrf}
        )
    assert looked.status_code == 404
    again = agent_turn(world, "after", {"id": "c2", "tenantRef": "t2org"})
    assert again.status_code == 200
    assert C2_SECRET in again.json()["block"]
    assert "c2 now belongs to t1org" not in again.json()["block"]
    assert again.json()["scopes"] == ["actor:c2", "tenant:t2org", "global"]


def test_an_administrator_of_one_organisation_cannot_erase_a_person_of_another(
    world: ServerProcess, provider: MockProvider
) -> None:
    # first the agent tries to bring c1 into t2org, where its administrator could then erase her
    assert agent_turn(world, "bring", {"id": "c1", "tenantRef": "t2org"}).status_code == 409
    with signed_in(world, provider, "adm2") as (admin, csrf):
        listed = admin.get("/admin/people")
        refused = admin.post("/admin/people/erase", params={"person": "c1"}, data={"csrf_token": csrf})
        erased = admin.post("/admin/people/erase", params={"person": "c2"}, data={"csrf_token": csrf})
        trail = admin.get("/admin/audit.json")

    assert "c1" not in re.sub(r"<[^>]+>", " ", listed.text).split()
    assert refused.status_code == 404
    assert erased.status_code == 200, erased.text[:500]
    c1 = agent_turn(world, "c1_after", {"id": "c1", "tenantRef": "t1org"})
    assert C1_SECRET in c1.json()["block"]  # c1 kept everything
    erasures = [e for e in trail.json() if e["action"] == "erase"]
    assert [(e["who"], e["scope"]) for e in erasures] == [("adm2", "tenant:t2org")]
