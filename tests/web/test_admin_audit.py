"""The audit trail: every act recorded, shown for the scopes a person administers, filterable, and
downloadable as CSV and JSON — with spreadsheet formulas neutralised."""

from __future__ import annotations

import csv
import io
import json

from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor, MemoryOrigin, ScopeContext
from tests.web.admin_builders import ADA, GIL, JONAS, LENA, SAM, tree
from tests.web.builders import make_record
from tests.web.conftest import LoginAs
from tests.web.html_tree import Element
from web.kit.spreadsheets import neutralise_cell
from web.services import Services


def rows(page: Element) -> list[tuple[str, str, str]]:
    """(action, the id of who did it, key) of each entry shown."""
    found = []
    for row in page.find_all("tr", {"data-audit-entry": True}):
        key = row.find(attrs={"data-key": True})
        found.append((row["data-audit-action"], row.one(attrs={"data-who": True})["data-who"], key.text if key else ""))
    return found


async def every_act(client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs) -> None:
    """Lena publishes, edits, pins, unpins, deletes and promotes; Sam previews Ada's prompt."""
    note = await services.provider.write(
        key="cutoff",
        text="orders close at 14:00",
        scope="actor:lena",
        origin=MemoryOrigin("agent", actor_ref="lena"),
        ctx=ScopeContext(LENA),
    )
    token = await login_as(LENA)
    headers = {"X-CSRF-Token": token}
    created = await client.post(
        "/admin/memories", json={"scope": "tenant:berlin", "key": "tone", "text": "formal"}, headers=headers
    )
    memory_id = created.json()["record"]["id"]
    await client.put(f"/admin/memories/{memory_id}", json={"text": "friendly"}, headers=headers)
    await client.post(f"/admin/facts/{memory_id}/pin", data={"csrf_token": token, "pinned": "true"})
    await client.post(f"/admin/facts/{memory_id}/pin", data={"csrf_token": token, "pinned": "false"})
    await client.post(f"/admin/facts/{memory_id}/delete", data={"csrf_token": token})
    await client.post(f"/memories/{note.id}/promote", data={"csrf_token": token, "scope": "tenant:berlin"})
    await services.people.note(ADA)  # seen in an agent's call
    token = await login_as(SAM)
    await client.post("/support/preview/show", data={"csrf_token": token, "actor_id": "ada"})


async def test_every_act_is_in_the_trail_newest_first_with_before_and_after(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await every_act(client, services, login_as)
    await login_as(LENA)

    page = tree(await client.get("/admin/audit"))

    assert rows(page) == [
        ("preview", "sam", ""),
        ("promote", "lena", "cutoff"),
        ("delete", "lena", "tone"),
        ("unpin", "lena", "tone"),
        ("pin", "lena", "tone"),
        ("edit", "lena", "tone"),
        ("write", "lena", "tone"),
    ]
    edit = page.one("tr", {"data-audit-action": "edit"})
    assert (edit.one("del").text, edit.one("ins").text) == ("formal", "friendly")
    assert page.one("tr", {"data-audit-action": "delete"}).one("del").text == "friendly"
    promoted = page.one("tr", {"data-audit-action": "promote"}).one(attrs={"data-detail": True}).text
    assert promoted == "Republished from a personal note of Lena (lena)"
    preview = page.one("tr", {"data-audit-action": "preview"})
    assert preview.one(attrs={"data-detail": True}).text == "Looked at what the assistant is told about ada at Berlin"
    assert page.one("a", {"data-nav": "audit"})["aria-current"] == "page"


async def test_the_trail_filters_by_action_scope_who_and_key(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await every_act(client, services, login_as)
    await login_as(LENA)

    by_action = tree(await client.get("/admin/audit?action=pin"))
    by_who = tree(await client.get("/admin/audit?who=SA"))
    by_key = tree(await client.get("/admin/audit?key=cut&scope=tenant:berlin"))
    nonsense = tree(await client.get("/admin/audit?action=drop&scope=tenant:hamburg"))

    assert rows(by_action) == [("pin", "lena", "tone")]
    assert rows(by_who) == [("preview", "sam", "")]
    assert by_who.one("p", {"class": "summary"}).text.startswith("1 entry matches your filter, of 7.")
    assert rows(by_key) == [("promote", "lena", "cutoff")]
    assert len(rows(nonsense)) == 7, "an unknown action or a scope not administered reads as no filter"
    assert nonsense.one("p", {"class": "summary"}).text.strip() == "7 entries in the trail.", "and is not called one"
    assert nonsense.one("a", {"data-download": "csv"})["href"] == "/admin/audit.csv"
    assert by_action.one("select", {"name": "action"}).one("option", {"selected": True})["value"] == "pin"
    assert by_key.one("a", {"data-download": "csv"})["href"] == "/admin/audit.csv?scope=tenant%3Aberlin&key=cut"


async def test_who_finds_a_name_by_its_words_in_any_order_whatever_the_accents(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await every_act(client, services, login_as)
    await login_as(SAM, name="Sámi Okafor")  # the name the provider gives is kept at sign-in
    await login_as(LENA)

    by_words = tree(await client.get("/admin/audit?who=okafor+sami"))
    by_part = tree(await client.get("/admin/audit?who=KAF"))
    nobody = tree(await client.get("/admin/audit?who=okafor+lena"))

    assert rows(by_words) == [("preview", "sam", "")]
    assert rows(by_part) == [("preview", "sam", "")], "part of a name, as written, still finds it"
    assert rows(nobody) == []


async def test_saving_what_is_already_so_records_nothing_and_keeps_the_facts_date(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    token = await login_as(LENA)
    created = await client.post(
        "/admin/memories",
        json={"scope": "tenant:berlin", "key": "tone", "text": "formal"},
        headers={"X-CSRF-Token": token},
    )
    memory_id = created.json()["record"]["id"]
    [published] = await services.provider.list(scopes=["tenant:berlin"], ctx=ScopeContext(LENA))
    form = {"csrf_token": token}

    for _ in range(2):  # a second tab, or a second click
        await client.post(f"/admin/facts/{memory_id}/pin", data={**form, "pinned": "false"})
        await client.post(f"/admin/facts/{memory_id}/edit", data={**form, "text": " formal "})
        await client.post("/admin/organisation/approval", data={**form, "required": "yes"})
        await client.post("/admin/organisation/lifetime", data={**form, "days": "90"})
    await client.post(f"/admin/facts/{memory_id}/pin", data={**form, "pinned": "true"})
    await client.post(f"/admin/facts/{memory_id}/pin", data={**form, "pinned": "true"})

    page = tree(await client.get("/admin/audit"))
    assert [r[0] for r in rows(page)] == ["pin", "lifetime", "approval", "write"], "each change once, no echo"
    [kept] = await services.provider.list(scopes=["tenant:berlin"], ctx=ScopeContext(LENA))
    assert (kept.text, kept.updated_at, kept.pinned) == ("formal", published.updated_at, True)


async def test_a_setting_changed_shows_its_value_before_and_choosing_the_default_says_so(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    form = {"csrf_token": await login_as(LENA)}
    await client.post("/admin/organisation/lifetime", data={**form, "days": "never"})  # the default, chosen
    await client.post("/admin/organisation/approval", data={**form, "required": "yes"})
    await client.post("/admin/organisation/approval", data={**form, "required": "no"})

    page = tree(await client.get("/admin/audit"))

    said = [" ".join(detail.text.split()) for detail in page.find_all(attrs={"data-detail": True})]
    assert said == [
        "What the assistant concludes is now kept without asking each person; before, each person approved it",
        "Each person now approves what the assistant concludes about them; before, it was kept without asking "
        "(the default)",
        "What the assistant concludes is now kept until the person forgets them, as the default already had it: "
        "the choice is now the organisation's own",
    ]


async def test_another_tenants_administrator_sees_none_of_it_and_an_end_user_is_refused(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await every_act(client, services, login_as)

    await login_as(JONAS)
    jonas = tree(await client.get("/admin/audit"))
    await login_as(ADA)
    refused = [await client.get(p) for p in ("/admin/audit", "/admin/audit.csv", "/admin/audit.json")]

    assert rows(jonas) == []
    assert jonas.one(attrs={"data-empty": "audit"})
    assert {r.status_code for r in refused} == {403}
    assert all("attachment" not in r.headers.get("content-disposition", "") for r in refused)


async def test_downloads_carry_the_filtered_set_as_attachments(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await every_act(client, services, login_as)
    await login_as(LENA)

    as_csv = await client.get("/admin/audit.csv?key=tone")
    as_json = await client.get("/admin/audit.json?key=tone")

    assert as_csv.headers["content-type"].startswith("text/csv")
    assert as_csv.headers["content-disposition"].startswith('attachment; filename="onfile-audit-')
    assert as_csv.headers["content-disposition"].endswith('.csv"')
    assert as_json.headers["content-disposition"].endswith('.json"')
    table = list(csv.DictReader(io.StringIO(as_csv.content.decode("utf-8-sig"))))
    assert [r["action"] for r in table] == ["delete", "unpin", "pin", "edit", "write"]
    assert json.loads(table[3]["before"])["text"] == "formal"
    entries = as_json.json()
    assert [(e["action"], e["who"], e["key"]) for e in entries] == [(r["action"], r["who"], r["key"]) for r in table]
    assert entries[3]["after"]["text"] == "friendly"
    assert set(entries[0]) == {"id", "at", "who", "action", "scope", "key", "before", "after"}


async def test_the_csv_download_is_utf_8_said_once_and_marked_for_spreadsheets(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    token = await login_as(LENA)
    fact = "שלום · مرحبا · Grüße"
    await client.post(
        "/admin/memories",
        json={"scope": "tenant:berlin", "key": "greeting", "text": fact},
        headers={"X-CSRF-Token": token},
    )

    response = await client.get("/admin/audit.csv")

    assert response.headers["content-type"] == "text/csv; charset=utf-8"
    assert response.content.startswith(b"\xef\xbb\xbfid,at,who,")
    table = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert json.loads(table[0]["after"])["text"] == fact


async def test_csv_cells_that_a_spreadsheet_would_run_are_neutralised(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    token = await login_as(LENA)
    for key, text in [('=HYPERLINK("http://x")', "+1+1"), ("@SUM(A1)", "-2"), ("plain", "=cmd|' /C calc'!A0")]:
        await client.post(
            "/admin/memories",
            json={"scope": "tenant:berlin", "key": key, "text": text},
            headers={"X-CSRF-Token": token},
        )

    table = list(csv.reader(io.StringIO((await client.get("/admin/audit.csv")).content.decode("utf-8-sig"))))

    cells = [cell for row in table[1:] for cell in row]
    assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in cells)
    assert {row[5] for row in table[1:]} == {'\'=HYPERLINK("http://x")', "'@SUM(A1)", "plain"}
    assert [neutralise_cell(v) for v in ("=1", "+1", "-1", "@a", "\tx", "\rx", "a=1", "")] == [
        "'=1",
        "'+1",
        "'-1",
        "'@a",
        "'\tx",
        "'\rx",
        "a=1",
        "",
    ]


async def test_stored_markup_is_inert_on_the_audit_page(client: AsyncTestClient[Litestar], login_as: LoginAs) -> None:
    token = await login_as(LENA)
    hostile = '<script>alert(1)</script><img src=x onerror="alert(2)">'
    await client.post(
        "/admin/memories",
        json={"scope": "tenant:berlin", "key": "<b>k</b>", "text": hostile},
        headers={"X-CSRF-Token": token},
    )

    response = await client.get("/admin/audit")

    page = tree(response)
    assert page.find("script", {"src": False}) is None
    assert page.find("img") is None
    assert page.find("b") is None
    assert page.one("tr", {"data-audit-action": "write"}).one(attrs={"data-after": True}).text == hostile


async def test_an_erasure_is_shown_with_what_it_removed(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await login_as(ADA)
    await services.provider.add(
        [make_record(f"m_{n}", f"note-{n}", "x", "actor:ada", actor_ref="ada") for n in range(1_001)]
    )
    erased = await services.admin.erase_person(LENA, ADA)
    assert erased is not None
    await login_as(LENA)

    page = tree(await client.get("/admin/audit?action=erase"))

    row = page.one("tr", {"data-audit-action": "erase"})
    assert row.one(attrs={"data-detail": True}).text == "Erased ada: 1,001 memories, 0 conversations, 1 session"
    assert row.one("span", {"class": "action action-erase"}).text == "Erased a person"


async def test_a_move_between_organisations_is_shown_in_both_trails_with_how_it_happened(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await login_as(Actor("carl", "hamburg"), name="Carl Berg")
    await login_as(Actor("carl", "berlin"), name="Carl Berg")  # his identity provider now says Berlin
    await services.admin.move_person("ops", "ada", None)  # nobody by that id yet: nothing moved
    await services.people.note(ADA)
    await services.admin.move_person("ops", "ada", "hamburg")
    await login_as(LENA)

    page = tree(await client.get("/admin/audit?action=move"))

    details = [row.one(attrs={"data-detail": True}).text for row in page.find_all("tr", {"data-audit-action": "move"})]
    assert [" ".join(d.split()) for d in details] == [
        "Moved ada from Berlin to Hamburg, by an operator",
        "Moved Carl Berg (carl) from Hamburg to Berlin, at their sign-in, as their identity provider says",
    ]
    assert {s.text for s in page.find_all("span", {"class": "action action-move"})} == {
        "Moved a person between organisations"
    }


async def test_a_preview_reaches_the_trail_of_the_persons_own_organisation_whatever_the_call_claims(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.people.note(ADA)
    await services.people.note(Actor("carl", "hamburg"))
    token = await login_as(SAM)
    headers = {"X-CSRF-Token": token}
    for actor in ({"id": "ada"}, {"id": "ada", "tenantRef": "nowhere"}, {"id": "ada", "tenantRef": "hamburg"}):
        previewed = await client.post("/support/preview", json={"actor": actor, "text": ""}, headers=headers)
        assert previewed.status_code == 200
    refused = await client.post("/support/preview", json={"actor": {"id": "carl"}, "text": ""}, headers=headers)
    assert refused.status_code == 404  # another organisation's: unknown, and no look to record

    await login_as(GIL)
    seen_globally = tree(await client.get("/admin/audit"))
    await login_as(LENA)
    seen_in_berlin = tree(await client.get("/admin/audit"))

    assert rows(seen_globally) == [("preview", "sam", "")] * 3
    assert rows(seen_in_berlin) == [("preview", "sam", "")] * 3
    assert await services.audit.at_scopes(["actor:ada", "tenant:hamburg", "tenant:nowhere"]) == []


async def test_a_setting_or_a_pin_sent_with_a_value_the_page_never_offers_changes_nothing(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    """A tampered or truncated form cannot switch a privacy setting off, or a fact's pin, by accident."""
    form = {"csrf_token": await login_as(LENA)}
    await client.post("/admin/organisation/approval", data={**form, "required": "yes"})
    await client.post("/admin/organisation/lifetime", data={**form, "days": "90"})
    published = await client.post(
        "/admin/facts", data={**form, "key": "tone", "text": "formal", "scope": "tenant:berlin", "pinned": "on"}
    )
    assert published.status_code in {200, 303}
    [fact] = await services.provider.list(scopes=["tenant:berlin"], ctx=ScopeContext(LENA))

    refused = [
        await client.post("/admin/organisation/approval", data={**form, "required": "maybe"}),
        await client.post("/admin/organisation/approval", data=form),
        await client.post("/admin/organisation/lifetime", data={**form, "days": ""}),
        await client.post(f"/admin/facts/{fact.id}/pin", data={**form, "pinned": "maybe"}),
    ]

    assert [answer.status_code for answer in refused] == [400, 400, 400, 400]
    said = tree(refused[0]).one(attrs={"data-approval-error": True})
    assert said.text.startswith("Nothing was changed: the form sent a choice this page does not offer.")
    assert tree(refused[0]).one("nav"), "the organisation's page again, in the area, not a bare page"
    assert tree(refused[2]).one(attrs={"data-lifetime-error": True}).text.startswith("Nothing was changed. Choose")
    assert tree(refused[3]).one("h1").text == "Nothing was changed"
    page = tree(await client.get("/admin/organisation"))
    assert page.one(attrs={"data-approval": True})["data-approval"] == "required"
    assert page.one("option", {"selected": True})["value"] == "90"
    [kept] = await services.provider.list(scopes=["tenant:berlin"], ctx=ScopeContext(LENA))
    assert kept.pinned
    trail = [r[0] for r in rows(tree(await client.get("/admin/audit")))]
    assert trail == ["pin", "write", "lifetime", "approval"], "nothing refused is recorded"


async def test_a_form_field_sent_twice_is_refused_in_words_on_a_page_and_changes_nothing(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    token = await login_as(LENA)
    await client.post("/admin/organisation/approval", data={"csrf_token": token, "required": "yes"})

    twice = await client.post(
        "/admin/organisation/approval",
        content=f"csrf_token={token}&required=no&required=yes",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )

    assert twice.status_code == 400
    assert twice.headers["content-type"].startswith("text/html")
    page = tree(twice)
    assert page.one("h1").text == "Nothing was changed"
    assert "not sent the way OnFile's page sends it" in page.text
    assert "Expected" not in page.text, "no developer's message"
    approval = tree(await client.get("/admin/organisation")).one(attrs={"data-approval": True})
    assert approval["data-approval"] == "required"
