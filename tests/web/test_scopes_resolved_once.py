"""A page asks the scope resolver only as often as it needs to: who the person is, what they
administer and may preview is resolved once a request (the `elevation` dependency) and handed down,
never asked again by the parts of the page that use it.

The resolver is a deployment's own code (`ONFILE_SCOPE_RESOLVER`) and may ask a directory over the
network, so each call is a cost a person waits for."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor, DefaultScopeResolver, ScopeContext
from tests.web.builders import make_record, page_of, seed
from tests.web.conftest import LoginAs
from web.plugins import CheckedResolver
from web.services import Services
from web.settings import Settings

LENA = Actor("lena", "berlin", ("onfile-admin",))


class CountingResolver:
    """The default resolver, counting how often it is asked."""

    def __init__(self) -> None:
        self.asked = 0
        self._resolver = DefaultScopeResolver()

    async def resolve(self, ctx: ScopeContext) -> Sequence[str]:
        self.asked += 1
        return await self._resolver.resolve(ctx)


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return dataclasses.replace(settings, scope_resolver=f"{__name__}:CountingResolver")


@pytest.fixture
def resolver(services: Services) -> CountingResolver:
    checked = services.memory.scopes
    assert isinstance(checked, CheckedResolver)
    counting = checked.wrapped
    assert isinstance(counting, CountingResolver)
    return counting


async def test_the_personal_page_of_an_administrator_resolves_the_scopes_twice(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs, resolver: CountingResolver
) -> None:
    await seed(services, make_record("m_units", "units", "kilometres", scope="actor:lena", actor_ref="lena"))
    await login_as(LENA)
    resolver.asked = 0

    page = page_of(await client.get("/"))

    # Two, and no fewer can be: once for what is on file about her (`memories_on_file` resolves the
    # scopes itself, never taking them from a caller, so nothing is ever listed outside them), and once
    # for her elevation, resolved before the handler for the whole request. The way into the area and
    # where she may publish her own notes both come from that one elevation (it was three before).
    assert resolver.asked == 2
    assert page.one("a", {"data-action": "administration"})["href"] == "/admin"
    assert page.find(attrs={"data-action": "promote"}) is not None, "promotion targets, from the elevation"
