"""A deployment's scope resolver that fails, as the people and runtimes it serves meet it: never a page
that silently shows nobody's memories, never a bare 500 — the person gets OnFile's own page saying it
cannot tell what applies to them, a runtime gets `{"error"}` naming the setting and why, and nothing is
journaled or written."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor, ScopeContext
from tests.web.admin_builders import SAM
from tests.web.builders import HTMX, make_record, page_of, seed
from tests.web.conftest import AGENT_TOKEN, LoginAs
from web.services import Services
from web.settings import Settings

AUTH = {"Authorization": f"Bearer {AGENT_TOKEN}"}


class PickyResolver:
    """Answers Ada as a deployment should; each other person meets one way a resolver goes wrong."""

    async def resolve(self, ctx: ScopeContext) -> Sequence[str]:
        person = ctx.actor.id
        if person == "raises":
            msg = "the depot directory is down"
            raise RuntimeError(msg)
        if person == "own-timeout":
            msg = "the depot directory timed out"
            raise TimeoutError(msg)
        if person == "slow":
            await asyncio.sleep(60)
        if person == "stringy":
            return "actor:stringy"
        if person == "ownless":
            return ("depot:spandau", "global")
        if person == "nosy":
            return ("actor:nosy", "actor:ada", "global")
        return (f"actor:{person}", "depot:spandau", "global")


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return replace(
        settings,
        scope_resolver="tests.web.test_a_failing_resolver:PickyResolver",
        scope_resolver_timeout=timedelta(seconds=1),
    )


@pytest.mark.parametrize(
    ("person", "said"),
    [
        ("raises", "failed for actor:raises: RuntimeError('the depot directory is down')"),
        ("own-timeout", "failed for actor:own-timeout: TimeoutError('the depot directory timed out')"),
        ("slow", "did not answer for actor:slow within 1 s (ONFILE_SCOPE_RESOLVER_TIMEOUT)"),
        ("stringy", "cannot be used for actor:stringy: it answered 'actor:stringy' (str), not a list"),
        ("ownless", "cannot be used for actor:ownless: it left out actor:ownless, the person's own scope"),
        ("nosy", "cannot be used for actor:nosy: it answered 'actor:ada', an actor scope that is not actor:nosy"),
    ],
)
async def test_a_runtime_is_told_the_resolver_failed_and_nothing_is_journaled(
    client: AsyncTestClient[Litestar], person: str, said: str
) -> None:
    body = {"actor": {"id": person}, "threadId": "thr_1", "text": "hello"}

    failed = await client.post("/agent/runs/run_1/digest", json=body, headers=AUTH)
    remember = await client.post(
        "/agent/runs/run_1/remember", json={"callId": "c1", "key": "tone", "fact": "short"}, headers=AUTH
    )

    assert failed.status_code == 500
    assert list(failed.json()) == ["error"]
    assert failed.json()["error"].startswith("Nothing was resolved or written: ONFILE_SCOPE_RESOLVER=tests.web.")
    assert said in failed.json()["error"]
    assert remember.status_code == 409, "no digest was recorded for the run"


async def test_a_working_resolver_serves_the_minted_scope(client: AsyncTestClient[Litestar]) -> None:
    body = {"actor": {"id": "ada"}, "text": "hello"}

    answered = await client.post("/agent/runs/run_1/digest", json=body, headers=AUTH)

    assert answered.status_code == 200
    assert answered.json()["scopes"] == ["actor:ada", "depot:spandau", "global"]


@pytest.mark.parametrize("person", ["raises", "stringy", "ownless", "nosy", "slow"])
async def test_the_person_gets_onfile_s_own_page_saying_it_cannot_tell_what_applies(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs, person: str
) -> None:
    await seed(services, make_record("m_units", "units", "miles", f"actor:{person}", actor_ref=person))
    await login_as(Actor(person))

    page = await client.get("/")
    notice = await client.get("/", headers=HTMX)

    assert page.status_code == notice.status_code == 500
    shown = page_of(page)
    assert shown.one("title").text == "OnFile cannot show this right now · OnFile"
    assert shown.one("h1").text == "OnFile cannot show this right now"
    assert "cannot tell which memories apply right now" in shown.one(attrs={"data-reason": True}).text
    assert "ONFILE_SCOPE_RESOLVER" not in page.text, "the reason is for whoever runs OnFile, not the page"
    assert "Nothing is on file about you" not in page.text
    assert page_of(notice).one(attrs={"data-problem": "500"})["role"] == "alert"


async def test_the_person_s_own_read_back_says_so_without_the_resolver_s_reason(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(Actor("raises"))

    answer = await client.get("/agent/memories")

    assert answer.status_code == 500
    assert answer.json()["error"].startswith("OnFile cannot tell which memories apply right now")
    assert "ONFILE_SCOPE_RESOLVER" not in answer.text
    assert "depot directory" not in answer.text


async def test_support_previewing_a_person_the_resolver_fails_for_is_told_so(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.people.note(Actor("raises", "berlin"))
    token = await login_as(SAM)

    answer = await client.post(
        "/support/preview/show", data={"csrf_token": token, "actor_id": "raises", "text": "hello"}, headers=HTMX
    )

    assert answer.status_code == 500
    assert "cannot tell which memories apply" in page_of(answer).one(attrs={"data-problem": "500"}).text
