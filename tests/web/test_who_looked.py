"""'Who has looked': a person sees every staff act about them, by name, and only their own — on the
page and in its CSV and JSON downloads."""

from __future__ import annotations

import csv
import io

from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor
from tests.web.admin_builders import ADA, LENA, SAM, tree
from tests.web.conftest import LoginAs
from web.services import Services

MAX = Actor("max", "berlin")


async def sam_previews(client: AsyncTestClient[Litestar], login_as: LoginAs, person: str) -> None:
    token = await login_as(SAM, name="Sam Support")
    response = await client.post("/support/preview/show", data={"csrf_token": token, "actor_id": person})
    assert response.status_code == 200


async def test_a_preview_is_shown_once_with_the_lookers_name_time_and_organisation(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.people.note(ADA)
    await sam_previews(client, login_as, "ada")
    await login_as(ADA)

    page = tree(await client.get("/looked"))

    [look] = page.find_all("li", {"data-look": True})
    assert look.one(attrs={"data-named": "sam"}).one(attrs={"data-name": True}).text == "Sam Support"
    assert "support preview of your prompt" in look.one(attrs={"data-what": True}).text
    assert look.one(attrs={"data-organisation": True}).text == "For Berlin"
    assert look.one("time")["datetime"].endswith("Z")
    assert "preview" not in look.one(attrs={"data-what": True}).text.split("(")[0]  # words, not the action token


async def test_ada_never_sees_the_looks_at_max_whatever_the_address_says(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.people.note(MAX)
    await sam_previews(client, login_as, "max")
    await login_as(ADA)

    for address in ("/looked", "/looked?person=max", "/looked?actor=max&subject=max"):
        assert tree(await client.get(address)).find_all("li", {"data-look": True}) == []
        assert tree(await client.get(address)).find(attrs={"data-no-looks": True}) is not None
    assert (await client.get("/looked.json?person=max")).json() == []
    assert len(list(csv.reader(io.StringIO((await client.get("/looked.csv?person=max")).text)))) == 1


async def test_an_erasure_is_shown_to_the_person_who_signs_in_again(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.people.note(ADA)
    await login_as(LENA, name="Lena Admin")
    assert await services.admin.erase_person(LENA, ADA) is not None
    await login_as(ADA)

    [look] = tree(await client.get("/looked")).find_all("li", {"data-look": True})

    assert look.one(attrs={"data-what": True}).text.startswith("Erased what was on file about you")
    assert look.one(attrs={"data-named": "lena"}).one(attrs={"data-name": True}).text == "Lena Admin"


async def test_the_downloads_carry_the_same_looks_by_name(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.people.note(ADA)
    await sam_previews(client, login_as, "ada")
    await sam_previews(client, login_as, "ada")
    await login_as(ADA)

    as_json = await client.get("/looked.json")
    as_csv = await client.get("/looked.csv")

    assert as_json.headers["content-disposition"].startswith("attachment;")
    named = [(look["who"], look["who_id"], look["organisation"], look["organisation_id"]) for look in as_json.json()]
    assert named == [("Sam Support", "sam", "Berlin", "berlin")] * 2
    rows = list(csv.DictReader(io.StringIO(as_csv.text.removeprefix("\ufeff"))))
    assert [(row["who"], row["organisation"], row["organisation_id"]) for row in rows] == [
        ("Sam Support", "Berlin", "berlin")
    ] * 2
    assert rows[0]["when"] == as_json.json()[0]["when"]
    assert rows[0]["when_utc"].endswith("UTC")


async def test_the_page_needs_a_session(client: AsyncTestClient[Litestar]) -> None:
    response = await client.get("/looked", follow_redirects=False)

    assert response.status_code in {302, 303, 307}
