"""A scope the deployment mints (`depot:spandau`, from `ONFILE_SCOPE_RESOLVER`), as the person and
support staff read it: named in words, in its place, and said from the reader's side — the person's
depot is "your depot", the depot of the person support previews is "the depot"."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import DefaultScopeResolver, ScopeContext
from tests.web.admin_builders import ADA, SAM, shared, tree
from tests.web.conftest import LoginAs
from web.services import Services
from web.settings import Settings


class DepotResolver:
    async def resolve(self, ctx: ScopeContext) -> Sequence[str]:
        own, *wider = await DefaultScopeResolver().resolve(ctx)
        return (own, "depot:spandau", *wider)


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return replace(settings, scope_resolver=f"{__name__}:DepotResolver")


@pytest.fixture(autouse=True)
async def _spandau(services: Services) -> None:
    await services.provider.add(
        [
            shared("pallet-labels", "depot code and bay", "depot:spandau"),
            shared("pallet-labels", "depot code first"),
        ]
    )
    await services.people.note(ADA)


async def test_the_person_reads_their_depot_s_fact_as_their_depot_s(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(ADA)

    page = tree(await client.get("/"))

    entry = page.one("li", {"data-entry": "mem_depot_spandau_pallet-labels"})
    assert entry.one(attrs={"data-set-by": True}).text == "Your depot “spandau” set this. It differs from:"
    assert "Applies to everyone in your depot “spandau”" in entry.text
    assert "depot:spandau" not in page.one("main").text


async def test_support_reads_the_depot_of_the_person_previewed_as_theirs_not_as_its_own(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    token = await login_as(SAM)

    result = tree(await client.post("/support/preview/show", data={"csrf_token": token, "actor_id": "ada"}))

    scopes = [li.text for li in result.one("ol", {"data-scopes": True}).find_all("li")]
    assert scopes[1] == "everyone in the depot “spandau”"
    assert result.one(attrs={"data-held-for": "depot:spandau"}).text.startswith("for everyone in the depot “spandau”")
    assert "your depot" not in result.text
