"""Pinning against the ceiling of one prompt (two memories here): the budget per scope, the warning
before a pin would push past it and after it did, on the page and through the JSON endpoint."""

from __future__ import annotations

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store.domain.administration import UNPIN_OR_RAISE
from tests.web.admin_builders import LENA, notice_of, shared, tree
from tests.web.conftest import LoginAs
from web.services import Services
from web.settings import Settings

WARNING = (
    "3 keys are always on for everyone in your organisation, but a prompt carries at most 2 memories: 1 always-on "
    "fact would stop reaching prompts. " + UNPIN_OR_RAISE
)
API_WARNING = (
    "3 keys are always on at tenant:berlin, but a prompt carries at most 2 memories: 1 always-on fact would stop "
    "reaching prompts. " + UNPIN_OR_RAISE
)


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.replace(max_memories=2)


async def test_pinning_past_the_ceiling_warns_on_the_notice_and_on_the_scope(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared(f"policy-{i}", "always", pinned=i < 2, id=f"mem_p{i}") for i in range(3)])
    token = await login_as(LENA)

    before = tree(await client.get("/admin"))
    response = await client.post(
        "/admin/facts/mem_p2/pin", data={"csrf_token": token, "pinned": "true"}, follow_redirects=False
    )
    after = tree(await client.get("/admin"))

    assert before.one(attrs={"data-budget-words": True}).text == "2 of 2 always-on"
    assert (
        before.one("li", {"data-fact-id": "mem_p2"})
        .one(attrs={"data-pin-warning": True})
        .text.startswith("Pinning this puts 3 keys always on, past the 2 a prompt carries.")
    )
    assert response.status_code == 303
    notice = notice_of(after)
    assert notice is not None
    assert notice["data-notice"] == "warning"
    assert notice.one(attrs={"data-notice-detail": True}).text == WARNING
    budget = after.one(attrs={"data-budget": "3"})
    assert "budget-over" in budget["class"]
    assert budget.one(attrs={"data-budget-warning": True}).text == WARNING


async def test_the_json_pin_answers_the_budget_with_its_warning(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared(f"policy-{i}", "always", pinned=i < 2, id=f"mem_p{i}") for i in range(3)])
    token = await login_as(LENA)

    over = await client.post("/admin/memories/mem_p2/pin", json={"pinned": True}, headers={"X-CSRF-Token": token})
    back = await client.post("/admin/memories/mem_p2/pin", json={"pinned": False}, headers={"X-CSRF-Token": token})
    created = await client.post(
        "/admin/memories",
        json={"scope": "tenant:berlin", "key": "another", "text": "always", "pinned": True},
        headers={"X-CSRF-Token": token},
    )

    assert over.status_code == 200
    assert over.json()["record"]["pinned"] is True
    assert over.json()["budget"] == {
        "scope": "tenant:berlin",
        "pinnedKeys": 3,
        "maxMemories": 2,
        "over": True,
        "warning": API_WARNING,
    }
    assert back.json()["budget"] == {"scope": "tenant:berlin", "pinnedKeys": 2, "maxMemories": 2, "over": False}
    assert created.status_code == 201
    assert created.json()["budget"]["warning"] == API_WARNING
