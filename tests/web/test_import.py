"""Importing a JSON export on the person's page: a preview key by key, the value on file beside the
file's, then the import, written as stated by the person at their own scope; each line that cannot be
imported says why, and then nothing is."""

from __future__ import annotations

import json

from httpx import Response
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import MemoryOrigin, ScopeContext
from tests.web.admin_builders import ADA, tree
from tests.web.conftest import LoginAs
from tests.web.html_tree import Element
from web.services import Services

Client = AsyncTestClient[Litestar]
CONCLUDED = MemoryOrigin(author="agent", thread_id="thr_1", run_id="run_1", actor_ref="ada")
STATED = MemoryOrigin(author="human", actor_ref="ada")
LENA_STATED = MemoryOrigin(author="human", actor_ref="lena")


def cell(row: Element, attribute: str) -> str:
    found = row.find(attrs={attribute: True})
    assert found is not None, attribute
    return found.text


async def on_file(services: Services) -> dict[str, tuple[str, str, str]]:
    """Ada's own memories and Berlin's, by key: (text, scope, author)."""
    records = await services.provider.list(scopes=["actor:ada", "tenant:berlin"], ctx=ScopeContext(actor=ADA))
    return {f"{r.scope} {r.key}": (r.text, r.scope, r.origin.author) for r in records}


async def ada_with_notes(services: Services) -> None:
    ctx = ScopeContext(actor=ADA)
    await services.provider.write(key="units", text="kilometres", scope="actor:ada", origin=STATED, ctx=ctx)
    await services.provider.write(key="tone", text="short answers", scope="actor:ada", origin=CONCLUDED, ctx=ctx)
    await services.provider.write(key="manifest", text="printed", scope="tenant:berlin", origin=LENA_STATED, ctx=ctx)


async def upload(client: Client, token: str, content: bytes, name: str = "onfile-ada.json") -> Response:
    return await client.post(
        "/memories/import", data={"csrf_token": token}, files={"file": (name, content, "application/json")}
    )


async def test_the_preview_shows_each_key_old_beside_new_and_applying_writes_them_as_stated(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    await ada_with_notes(services)
    token = await login_as(ADA)
    exported = json.loads((await client.get("/memories/export.json")).text)
    for entry in exported:
        if entry["key"] == "units":
            entry["text"] = "miles"
    exported.append({"key": "team", "text": "dispatch"})
    before = await on_file(services)

    preview = await client.post(
        "/memories/import",
        data={"csrf_token": token},
        files={"file": ("onfile-ada.json", json.dumps(exported).encode(), "application/json")},
    )

    assert preview.status_code == 200
    page = tree(preview)
    rows = page.find_all("tr", {"data-import-action": True})
    actions = {cell(row, "data-import-key"): row["data-import-action"] for row in rows}
    assert actions == {"units": "replace", "tone": "same", "manifest": "shared", "team": "add"}
    units = page.find("tr", {"data-import-action": "replace"})
    assert units is not None
    assert (cell(units, "data-import-old"), cell(units, "data-import-new")) == ("kilometres", "miles")
    summary = page.find(attrs={"data-import-summary": True})
    assert summary is not None
    assert summary.text == "Importing adds 1 memory and replaces 1 memory of yours, as written by you."
    assert await on_file(services) == before  # nothing yet
    apply = page.find("form", {"action": "/memories/import/apply"})
    assert apply is not None
    document = apply.find("input", {"name": "document"})
    assert document is not None

    applied = await client.post(
        "/memories/import/apply", data={"csrf_token": token, "document": document["value"]}, follow_redirects=False
    )

    assert applied.status_code == 303
    assert applied.headers["location"] == "/"
    after = await on_file(services)
    assert after["actor:ada units"] == ("miles", "actor:ada", "human")
    assert after["actor:ada team"] == ("dispatch", "actor:ada", "human")
    assert after["actor:ada tone"] == ("short answers", "actor:ada", "agent")
    assert after["tenant:berlin manifest"] == before["tenant:berlin manifest"]
    notice = tree(await client.get("/")).find(attrs={"data-notice": True})
    assert notice is not None
    assert "Imported 2 memories, as written by you." in notice.text


async def test_a_file_exported_for_someone_else_says_so_before_it_is_imported(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    await ada_with_notes(services)
    token = await login_as(ADA)
    own = json.loads((await client.get("/memories/export.json")).text)
    others = [{**entry, "text": f"{entry['text']} (max)", "scope": "actor:max"} for entry in own]

    mine = tree(await upload(client, token, json.dumps(own).encode()))
    theirs = tree(await upload(client, token, json.dumps(others).encode()))

    assert mine.find(attrs={"data-import-others": True}) is None
    warning = theirs.one(attrs={"data-import-others": True})
    assert warning["role"] == "alert"
    assert warning.text.startswith("This file holds notes exported for someone else, not for you.")
    assert "max" not in warning.text
    assert theirs.one("button", {"data-action": "apply-import"}), "a warning, not a refusal: it may be their old id"
    several = [{**entry, "scope": f"actor:{who}"} for entry, who in zip(others, ("max", "lena", "max"), strict=False)]
    two = tree(await upload(client, token, json.dumps(several).encode())).one(attrs={"data-import-others": True})
    assert two.text.startswith("This file holds notes exported for 2 other people, not for you.")


async def test_each_line_that_cannot_be_imported_says_why_and_nothing_is_imported(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    await ada_with_notes(services)
    token = await login_as(ADA)
    before = await on_file(services)
    lines = [
        {"key": "team", "text": "dispatch"},
        "units",
        {"key": "", "text": "x"},
        {"key": "essay", "text": "x" * 300},
        {"key": "team", "text": "again"},
    ]

    preview = await upload(client, token, json.dumps(lines).encode())

    assert preview.status_code == 400
    page = tree(preview)
    reasons = {
        int(row["data-import-line"]): cell(row, "data-import-reason")
        for row in page.find_all("tr", {"data-import-action": "error"})
    }
    assert reasons == {
        2: "This line is not a memory (an object with a key and a text).",
        3: "The key is empty. Give a key and try again.",
        4: "The fact is 300 characters long; the limit is 240. State it in one shorter sentence.",
        5: "This key is in the file twice.",
    }
    assert page.find("form", {"action": "/memories/import/apply"}) is None
    summary = page.find(attrs={"data-import-summary": True})
    assert summary is not None
    assert summary.text.startswith("Nothing was imported: 4 lines of the file can't be.")

    forced = await client.post("/memories/import/apply", data={"csrf_token": token, "document": json.dumps(lines)})

    assert forced.status_code == 400
    assert await on_file(services) == before


async def test_a_file_that_is_not_an_export_is_refused_whole(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    token = await login_as(ADA)

    for content in (b"key,text\r\nunits,miles\r\n", b'{"key": "units", "text": "miles"}', b"\xff\xfe\x00"):
        refused = await upload(client, token, content, "onfile-ada.csv")
        assert refused.status_code == 400
        error = tree(refused).find(attrs={"data-import-error": True})
        assert error is not None
        assert error.text == "This is not an OnFile export: choose the JSON file your page's “Download as JSON” gives."
    assert await on_file(services) == {}


async def test_the_pages_own_csv_download_given_back_is_told_apart_and_the_json_one_named(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    await ada_with_notes(services)
    token = await login_as(ADA)
    downloaded = (await client.get("/memories/export.csv")).content

    refused = await upload(client, token, downloaded, "onfile-ada.csv")

    assert refused.status_code == 400
    error = tree(refused).find(attrs={"data-import-error": True})
    assert error is not None
    assert error.text == (
        "This is your page's CSV download, which is for reading in a spreadsheet: to import, choose the JSON file "
        "“Download as JSON” gives."
    )


async def test_a_file_nested_too_deep_or_holding_half_a_character_is_refused_with_a_reason_not_an_error(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    token = await login_as(ADA)
    deep = "[" * 1_200 + "]" * 1_200
    cut = '[{"key": "team", "text": "dispatch"}, {"key": "emoji", "text": "cut \\ud83d here"}]'

    for document in (deep, cut):
        previewed = await upload(client, token, document.encode())
        forced = await client.post("/memories/import/apply", data={"csrf_token": token, "document": document})
        assert (previewed.status_code, forced.status_code) == (400, 400), document[:20]
        assert "text/html" in previewed.headers["content-type"]

    deep_page = tree(await upload(client, token, deep.encode()))
    assert deep_page.one(attrs={"data-import-error": True}).text.startswith("This is not an OnFile export")
    field = deep_page.one("input", {"data-import-file": True})
    assert (field["aria-invalid"], field["aria-describedby"]) == ("true", "import-error"), "the error is the field's"
    assert "data-import-error" in deep_page.one(attrs={"id": "import-error"}).attrs
    row = tree(await upload(client, token, cut.encode())).one("tr", {"data-import-line": "2"})
    assert row["data-import-action"] == "error"
    assert cell(row, "data-import-reason") == (
        "The fact contains half of a character that takes two (U+D83D), as a cut emoji does. Write it whole."
    )
    assert "cut \ufffd here" in row.text
    assert await on_file(services) == {}


async def test_the_upload_page_works_as_a_plain_form_and_is_linked_from_the_page(
    client: Client, login_as: LoginAs
) -> None:
    await login_as(ADA)

    assert tree(await client.get("/")).find("a", {"data-action": "import"}) is not None
    page = tree(await client.get("/memories/import"))

    form = page.find("form", {"data-import-upload": True})
    assert form is not None
    assert (form["method"], form["action"], form["enctype"]) == ("post", "/memories/import", "multipart/form-data")
    assert form.find("input", {"name": "csrf_token"}) is not None
