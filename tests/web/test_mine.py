"""Downloading everything on file about me, and forgetting all of mine."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime

from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor, MemoryOrigin, MemoryRecord
from tests.web.builders import page_of
from tests.web.conftest import LoginAs
from web.services import Services

ADA = Actor(id="ada", tenant_ref="berlin")
T = datetime(2026, 9, 1, tzinfo=UTC)


async def seed(services: Services) -> None:
    human = MemoryOrigin("human", actor_ref="lena")
    await services.provider.add(
        [
            MemoryRecord("m1", "units", "miles", "actor:ada", MemoryOrigin("agent", "thr_1", "run_1", "ada"), T),
            MemoryRecord("m2", "units", "kilometres", "tenant:berlin", human, T),
            MemoryRecord("m3", "formula", '=HYPERLINK("http://x")', "actor:ada", MemoryOrigin("human"), T),
            MemoryRecord("m4", "tone", "formal", "global", human, T, pinned=True),
            MemoryRecord("m5", "other", "bob's", "actor:bob", MemoryOrigin("agent"), T),
        ]
    )


async def test_the_json_export_is_exactly_the_read_back(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services)
    await login_as(ADA)

    exported = await client.get("/memories/export.json")
    read_back = await client.get("/agent/memories")

    assert exported.status_code == 200
    assert exported.headers["content-disposition"].startswith('attachment; filename="onfile-ada-')
    assert json.loads(exported.content) == read_back.json()
    assert {e["id"] for e in read_back.json()} == {"m1", "m3", "m4"}


async def test_the_csv_export_has_every_entry_its_overrides_and_no_formulas(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services)
    await services.provider.add(
        [MemoryRecord("m6", "greeting", "שלום · مرحبا · Grüße", "actor:ada", MemoryOrigin("human"), T)]
    )
    await login_as(ADA)

    response = await client.get("/memories/export.csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    on_page = (await client.get("/agent/memories")).json()

    assert response.headers["content-type"] == "text/csv; charset=utf-8", "the charset said once"
    assert response.content.startswith(b"\xef\xbb\xbfid,key,fact,"), "a byte-order mark, for spreadsheets"
    assert [r["id"] for r in rows] == [e["id"] for e in on_page]
    units = next(r for r in rows if r["key"] == "units")
    assert units["differs_from"] == "everyone in your organisation: kilometres, set by an administrator"
    assert (units["applies_to"], units["conversation"]) == ("you alone", "thr_1")
    assert {r["written_by"] for r in rows} <= {"you", "your assistant", "an administrator"}
    cells = " ".join(" ".join(r.values()) for r in rows)
    assert not any(token in cells for token in ("actor:", "tenant:", "global", "human", "agent")), "words, not tokens"
    assert next(r for r in rows if r["key"] == "formula")["fact"].startswith("'=")
    assert next(r for r in rows if r["key"] == "greeting")["fact"] == "שלום · مرحبا · Grüße"


async def test_forget_all_confirms_what_goes_and_what_stays_then_removes_only_mine(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services)
    token = await login_as(ADA)

    confirm = await client.get("/memories/forget-all")
    done = await client.post("/memories/forget-all", data={"csrf_token": token})
    left = (await client.get("/agent/memories")).json()

    assert 'data-count="own"' in confirm.text
    assert "2 memories</strong>" in confirm.text
    assert "The 2 facts your organisation or everyone holds stay" in confirm.text
    assert "at most 48 hours" in confirm.text
    assert done.status_code == 200  # followed to the done page
    assert "2 memories of yours were deleted" in done.text
    assert sorted(e["id"] for e in left) == ["m2", "m4"]
    assert len(await services.provider.list(scopes=["actor:bob"], ctx=None)) == 1  # type: ignore[arg-type]


async def test_forget_all_writes_its_counts_with_a_thousands_separator(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    origin = MemoryOrigin("agent", actor_ref="ada")
    await services.provider.add([MemoryRecord(f"m{n}", f"k{n}", "v", "actor:ada", origin, T) for n in range(1_200)])
    token = await login_as(ADA)

    confirm = page_of(await client.get("/memories/forget-all"))
    done = page_of(await client.post("/memories/forget-all", data={"csrf_token": token}))

    assert confirm.one(attrs={"data-count": "own"}).text == "1,200 memories"
    assert confirm.one("button", {"data-action": "confirm-forget-all"}).text == "Forget all 1,200 of mine"
    assert done.one(attrs={"data-count": "forgotten"}).text == "1,200 memories of yours were deleted."


def tampered(location: str) -> str:
    """The address with one character of its receipt changed."""
    at = location.index("=") + 20
    return f"{location[:at]}{'B' if location[at] == 'A' else 'A'}{location[at + 1 :]}"


async def test_the_done_page_reports_only_the_forget_all_just_done_under_the_usual_header(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services)
    token = await login_as(ADA)
    redirect = await client.post("/memories/forget-all", data={"csrf_token": token}, follow_redirects=False)
    done = page_of(await client.get(redirect.headers["location"]))
    direct = [
        page_of(await client.get(path))
        for path in (
            "/memories/forget-all/done",
            "/memories/forget-all/done?count=2400",
            tampered(redirect.headers["location"]),
        )
    ]
    await login_as(ADA)  # a new session: the receipt was sealed for the old one
    direct.append(page_of(await client.get(redirect.headers["location"])))

    assert redirect.status_code == 303
    assert done.one(attrs={"data-count": "forgotten"}).text == "2 memories of yours were deleted."
    assert done.one(attrs={"data-account": True}).one("button", {"data-action": "logout"}).text == "Sign out"
    for page in direct:
        assert page.one("h1").text == "Nothing was deleted from this page"
        assert page.find(attrs={"data-count": "forgotten"}) is None
        assert (page.one("a", {"data-action": "back"})["href"], page.one("a", {"data-action": "back"}).text) == (
            "/",
            "Go to what's on file about you",
        )
        assert page.one(attrs={"data-account": True}).one("button", {"data-action": "logout"})


async def test_forget_all_with_nothing_of_mine_says_so_and_leads_back(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([MemoryRecord("m2", "units", "km", "tenant:berlin", MemoryOrigin("human"), T)])
    await login_as(ADA)

    page = page_of(await client.get("/memories/forget-all"))

    assert page.one("h1").text == "Nothing of yours to forget"
    assert page.find("button", {"data-action": "confirm-forget-all"}) is None
    assert "may still see" not in page.text
    assert "Keep them" not in page.text
    assert page.one(attrs={"data-count": "shared"}).text.startswith("What is on file about you is the 1 fact")
    back = page.one("a", {"data-action": "back"})
    assert (back["href"], back.text) == ("/", "Back to what's on file about you")


async def test_forget_all_without_the_csrf_token_changes_nothing(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services)
    await login_as(ADA)

    response = await client.post("/memories/forget-all", data={"csrf_token": "forged"})

    assert response.status_code == 403
    assert len((await client.get("/agent/memories")).json()) == 3


async def test_the_exports_and_forget_all_need_a_login(client: AsyncTestClient[Litestar]) -> None:
    for path in ("/memories/export.json", "/memories/export.csv", "/memories/forget-all"):
        response = await client.get(path, follow_redirects=False)
        assert response.status_code == 303
        assert response.headers["location"].startswith("/login")
