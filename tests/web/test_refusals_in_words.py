"""A refusal on the personal pages says why in words: forgetting or correcting an organisation's fact,
and publishing where the person administers nothing, as a plain form and with htmx alike. The store's
own reasons name scope tokens and ids; none reaches the person."""

from __future__ import annotations

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import MemoryOrigin, ScopeContext
from tests.web.builders import ADA, HTMX, make_record, page_of, seed
from tests.web.conftest import LoginAs
from tests.web.test_plain_words import internal_words, shown
from web.kit.words import PUBLISH_REFUSED
from web.services import Services

MANAGED = "Managed by your organisation: only its administrators can change or remove it."


async def seed_ada(services: Services) -> str:
    """An organisation fact and one of Ada's own notes; the note's id."""
    await seed(services, make_record("m_org", "tone", "formal", "tenant:berlin", author="human"))
    origin = MemoryOrigin("agent", thread_id="thr_1", run_id="run_1", actor_ref=ADA.id)
    note = await services.provider.write(
        key="cutoff", text="orders close at 14:00", scope="actor:ada", origin=origin, ctx=ScopeContext(ADA)
    )
    return note.id


@pytest.mark.parametrize("htmx", [False, True], ids=["plain form", "htmx"])
async def test_forgetting_or_correcting_an_organisation_fact_is_refused_in_words(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs, htmx: bool
) -> None:
    await seed_ada(services)
    token = await login_as(ADA)
    headers = {**HTMX, "X-CSRF-Token": token} if htmx else {}

    forget = await client.post("/memories/m_org/forget", data={"csrf_token": token, "back": "/"}, headers=headers)
    correct = await client.post(
        "/memories/m_org/edit", data={"csrf_token": token, "back": "/", "text": "casual"}, headers=headers
    )

    for answer in (forget, correct):
        assert answer.status_code == 403
        problem = page_of(answer).one(attrs={"data-problem": "403"})
        assert MANAGED in problem.text
        assert internal_words(shown(problem)) == []


@pytest.mark.parametrize("scope", ["tenant:berlin", "global", "tenant:hamburg"])
async def test_publishing_where_one_administers_nothing_is_refused_in_words(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs, scope: str
) -> None:
    note = await seed_ada(services)
    token = await login_as(ADA)

    asked = await client.get(f"/memories/{note}/promote?scope={scope}")
    published = await client.post(f"/memories/{note}/promote", data={"csrf_token": token, "scope": scope})

    for answer in (asked, published):
        assert answer.status_code == 403
        problem = page_of(answer).one(attrs={"data-problem": "403"})
        assert PUBLISH_REFUSED in problem.text
        assert internal_words(shown(problem)) == []
