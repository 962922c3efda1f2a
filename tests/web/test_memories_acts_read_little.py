"""Acting on one memory, or on all that match, reads what the act needs and not everything on file.

A person may have ten thousand memories: a forget, an undo, a keep, a correction or a confirmation
that read every one of them would cost each act tens of milliseconds. The provider's read of every
record at a person's scopes is watched here, and none of these acts may make it. The list answered
after an act is asked of the database a page at a time, as the page itself is.

"Forget all that match" is counted exactly too: the person's own matches go, the shared facts that
match stay and are counted, and a wider value the person's own overrides is neither."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import MemoryRecord, ScopeContext
from tests.web.admin_builders import LENA
from tests.web.builders import ADA, HTMX, make_record, page_of, seed
from tests.web.conftest import LoginAs
from web.services import Services

MANY = 300


class EveryRecordRead:
    """The provider's `list`, noting each read that takes in a person's own scope."""

    def __init__(self, services: Services, monkeypatch: pytest.MonkeyPatch) -> None:
        self.reads: list[tuple[str, ...]] = []
        listing = services.provider.list

        async def watched(*, scopes: Sequence[str], ctx: ScopeContext) -> Sequence[MemoryRecord]:
            if f"actor:{ctx.actor.id}" in scopes:
                self.reads.append(tuple(scopes))
            return await listing(scopes=scopes, ctx=ctx)

        monkeypatch.setattr(services.provider, "list", watched)


@pytest.fixture
def every_read(services: Services, monkeypatch: pytest.MonkeyPatch) -> EveryRecordRead:
    return EveryRecordRead(services, monkeypatch)


async def seed_many(services: Services) -> None:
    await seed(
        services,
        *(make_record(f"m_{n:03d}", f"route-{n:03d}", f"depot number {n}", days_ago=n / 10 + 1) for n in range(MANY)),
        # written at her scope by someone else: an administrator's, and hers to forget
        *(
            make_record(f"a_{n}", f"handover-{n}", "depot keys at the desk", author="human", actor_ref="lena")
            for n in range(2)
        ),
        # her own value overrides the organisation's, which matches the search where hers does not
        make_record("m_fiscal", "fiscal", "april", author="human"),
        make_record("t_fiscal", "fiscal", "depot year", "tenant:berlin", author="human", actor_ref="lena"),
        make_record("t_hours", "hours", "depot opens at eight", "tenant:berlin", author="human", actor_ref="lena"),
        make_record("g_closed", "closed", "the depot closes on holidays", "global", author="human", actor_ref=None),
        make_record("t_tone", "tone", "formal", "tenant:berlin", author="human", actor_ref="lena"),
    )


async def test_acting_on_one_memory_never_reads_everything_on_file(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs, every_read: EveryRecordRead
) -> None:
    await seed_many(services)
    token = await login_as(ADA)
    sent = {**HTMX, "X-CSRF-Token": token}

    row = page_of(await client.get("/memories/m_007", params={"back": "/"}, headers=HTMX))
    assert row.one("li", {"data-entry": "m_007"}) is not None
    form = page_of(await client.get("/memories/m_007/edit", params={"back": "/"}))
    assert form.one("textarea").text == "depot number 7"
    corrected = page_of(
        await client.post("/memories/m_007/edit", data={"back": "/", "text": "depot seven"}, headers=sent)
    )
    assert corrected.one("li", {"data-entry": "m_007"}).one(attrs={"data-fact": True}).text == "depot seven"
    kept = await client.post("/memories/m_008/keep", data={"back": "/"}, headers=sent)
    assert page_of(kept).one("li", {"data-entry": "m_008"}) is not None
    forgot = page_of(await client.post("/memories/m_fiscal/forget", data={"back": "/"}, headers=sent))
    assert forgot.one(attrs={"data-notice": "forgotten"}).one("p", {"class": "notice-message"}).text == (
        "Forgotten: “fiscal”."
    )
    undo_with = forgot.one("input", {"name": "token"})["value"]
    undone = page_of(await client.post("/memories/undo", data={"back": "/", "token": undo_with}, headers=sent))
    assert undone.one(attrs={"data-notice": "restored"}) is not None
    gone = await client.post("/memories/m_gone/forget", data={"back": "/"}, headers=sent)
    assert gone.status_code == 404
    ticked = await client.post("/memories/forget-chosen", data={"back": "/", "id": ["m_001", "m_002"]}, headers=sent)
    assert page_of(ticked).one(attrs={"data-notice": "forgotten"}) is not None

    assert every_read.reads == []


async def test_forgetting_all_that_match_never_reads_everything_on_file(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs, every_read: EveryRecordRead
) -> None:
    await seed_many(services)
    token = await login_as(ADA)

    confirm = page_of(await client.get("/memories/forget-chosen", params={"all": "1", "back": "/?q=depot"}))
    box = confirm.one(attrs={"data-confirm-chosen": True})
    assert box["data-confirm-chosen"] == str(MANY + 3)
    done = await client.post(
        "/memories/forget-chosen",
        data={"back": "/?q=depot", "all": "1", "expect": box.one("input", {"name": "expect"})["value"]},
        headers={**HTMX, "X-CSRF-Token": token},
    )

    assert done.status_code == 200
    assert page_of(done).one(attrs={"data-notice": "forgotten"}).one("p", {"class": "notice-message"}).text == (
        f"Forgotten: {MANY + 3:,} memories."
    )
    assert every_read.reads == []


async def test_confirming_a_promotion_never_reads_everything_on_file(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs, every_read: EveryRecordRead
) -> None:
    notes = [make_record(f"l_{n:03d}", f"note-{n:03d}", f"lena's note {n}", "actor:lena") for n in range(MANY)]
    await seed(services, *notes)
    token = await login_as(LENA)

    asked = page_of(await client.get("/memories/l_004/promote", params={"scope": "tenant:berlin", "back": "/"}))
    assert asked.one("form", {"data-promote-form": True}) is not None
    published = await client.post(
        "/memories/l_004/promote", data={"back": "/", "scope": "tenant:berlin"}, headers={**HTMX, "X-CSRF-Token": token}
    )
    assert page_of(published).one(attrs={"data-notice": "published"}) is not None

    assert every_read.reads == []


@pytest.mark.parametrize(
    ("view", "goes", "stays"),
    [
        # her 300 routes, both handovers, and her fiscal year, found by the organisation's value it
        # overrides; the organisation's hours, everyone's holiday closure and the organisation's fiscal
        # year (listed on her page, hers applying instead) stay
        ("/?q=depot", MANY + 3, 3),
        # written by an administrator: the two handovers at her scope go, the shared facts stay, the
        # organisation's fiscal year that hers overrides among them
        ("/?q=depot&author=administrator", 2, 3),
        ("/?q=depot&author=assistant", MANY, 0),
        ("/?q=depot&group=you", MANY + 3, 0),
        # hers is found by the organisation's value beneath it; that value matches, and stays
        ("/?q=year", 1, 1),
        ("/?q=fiscal", 1, 1),
        ("/?q=depot&group=organisation", 0, 0),
    ],
)
async def test_all_that_match_counts_exactly_what_goes_and_what_stays(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs, view: str, goes: int, stays: int
) -> None:
    await seed_many(services)
    await login_as(ADA)

    answer = await client.get("/memories/forget-chosen", params={"all": "1", "back": view})

    if not goes:
        assert answer.status_code == 400, "nothing of hers matches: nothing to forget"
        return
    box = page_of(answer).one(attrs={"data-confirm-chosen": True})
    assert box["data-confirm-chosen"] == str(goes)
    said = box.find(attrs={"data-stays": True})
    assert (said.text.split()[0] if said is not None else "0") == str(stays)
    page = page_of(await client.get(view))
    shown = [int(c["data-count"]) for c in page.find_all("span", {"class": "count"}) if c["id"] != "count-you"]
    assert sum(shown) == stays, "what the question says stays is what the page lists beside her own"
