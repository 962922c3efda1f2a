"""Publishing, editing, deleting and pinning shared facts from the page: as plain forms (POST, then a
redirect with a notice), in place with htmx, and refused with the verdict's reason."""

from __future__ import annotations

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import Actor, ScopeContext
from tests.web.admin_builders import ADA, GIL, JONAS, LENA, notice_of, shared, tree
from tests.web.builders import HTMX
from tests.web.conftest import LoginAs
from tests.web.html_tree import Element
from web.services import Services


def facts(page: Element) -> dict[str, str]:
    return {f["data-key"]: f.one(attrs={"data-text": True}).text for f in page.find_all("li", {"data-fact-id": True})}


async def test_publishing_redirects_back_with_a_notice_and_the_fact_is_listed(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    token = await login_as(LENA)

    response = await client.post(
        "/admin/facts",
        data={
            "csrf_token": token,
            "key": " tone ",
            "text": " answer formally ",
            "scope": "tenant:berlin",
            "back": "/admin?q=t",
        },
        follow_redirects=False,
    )

    assert response.status_code == 303
    assert response.headers["location"].startswith("/admin?q=t#fact-")
    page = tree(await client.get("/admin"))
    assert facts(page) == {"tone": "answer formally"}
    notice = notice_of(page)
    assert notice is not None
    assert (notice["data-notice"], notice.one("p").text) == (
        "done",
        "Published: “tone”, for everyone in your organisation.",
    )
    assert notice_of(tree(await client.get("/admin"))) is None, "a notice is shown once"


async def test_invalid_input_keeps_what_was_typed_and_says_what_is_wrong(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    token = await login_as(LENA)
    form = {"csrf_token": token, "key": "tone", "scope": "tenant:berlin", "pinned": "on"}

    two_lines = await client.post("/admin/facts", data={**form, "text": "formal\nand short"})
    too_long = await client.post("/admin/facts", data={**form, "text": "x" * 241})
    empty = await client.post("/admin/facts", data={**form, "text": "   "})

    assert two_lines.status_code == 400
    page = tree(two_lines)
    assert (
        page.one(attrs={"data-error": True}).text
        == "The fact contains a line break. It must be a single line of plain text."
    )
    assert page.one("input", {"name": "key"})["value"] == "tone"
    assert page.one("textarea", {"name": "text"}).text == "formal and short"
    assert "checked" in page.one("input", {"name": "pinned"}).attrs
    assert page.one("textarea", {"name": "text"})["aria-invalid"] == "true"
    assert "the limit is 240" in tree(too_long).one(attrs={"data-error": True}).text
    assert tree(empty).one(attrs={"data-error": True}).text == "The fact is empty. Give a fact and try again."
    assert facts(tree(await client.get("/admin"))) == {}


async def test_htmx_publishes_in_place_with_a_fresh_form_and_shows_errors_in_the_form(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    token = await login_as(LENA)
    headers = {**HTMX, "X-CSRF-Token": token, "HX-Current-URL": "http://127.0.0.1:8000/admin"}
    form = {"key": "tone", "text": "formal", "scope": "tenant:berlin"}

    done = await client.post("/admin/facts", data=form, headers=headers)
    invalid = await client.post("/admin/facts", data={**form, "text": ""}, headers=headers)

    assert done.status_code == 200
    assert done.headers["hx-retarget"] == "#shared"
    parts = tree(done)
    assert facts(parts.one("section", {"id": "shared"})) == {"tone": "formal"}
    assert parts.one(attrs={"id": "notice"})["hx-swap-oob"] == "innerHTML"
    fresh = parts.one("section", {"id": "create"})
    assert (fresh["hx-swap-oob"], fresh.one("input", {"name": "key"})["value"]) == ("true", "")
    assert (invalid.status_code, invalid.headers["hx-retarget"]) == (200, "#create")
    assert tree(invalid).one(attrs={"data-error": True}).text.startswith("The fact is empty")


@pytest.mark.parametrize(
    ("actor", "scope", "reason"),
    [
        (ADA, "tenant:berlin", ""),
        (
            JONAS,
            "tenant:berlin",
            "You do not administer what applies to everyone at Berlin, so nothing was published there.",
        ),
        (
            GIL,
            "tenant:hamburg",
            "You do not administer what applies to everyone at Hamburg, so nothing was published there.",
        ),
        (
            GIL,
            "tenant:berlin",
            "You do not administer what applies to everyone in your organisation, so nothing was published there.",
        ),
        (
            LENA,
            "global",
            "You do not administer what applies to everyone, in every organisation, so nothing was published there.",
        ),
        (
            LENA,
            "actor:ada",
            "That is one person's own place: only their assistant writes there. Nothing was published.",
        ),
        (
            LENA,
            "actor:lena",
            "Your own notes are written by your assistant and kept on your own page: nothing was published.",
        ),
        (
            LENA,
            "tenant:berlin ",
            "That is not one of the groups this page offers, so nothing was published. Choose one from the list.",
        ),
        (
            LENA,
            "TENANT:berlin",
            "That is not one of the groups this page offers, so nothing was published. Choose one from the list.",
        ),
    ],
    ids=[
        "no-elevation",
        "another-tenants-admin",
        "global-admin-elsewhere",
        "global-admin-own-tenant",
        "tenant-admin-global",
        "a-persons-own-scope",
        "their-own-scope",
        "a-space-after-it",
        "in-capitals",
    ],
)
async def test_a_publish_without_the_right_elevation_is_refused_with_the_verdicts_reason(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs, actor: Actor, scope: str, reason: str
) -> None:
    token = await login_as(actor)

    response = await client.post("/admin/facts", data={"csrf_token": token, "key": "k", "text": "v", "scope": scope})

    assert response.status_code == 403
    page = tree(response)
    if actor is ADA:  # no elevation at all: the area's own explanation
        assert page.one(attrs={"data-forbidden": True})
    else:
        assert page.one(attrs={"data-reason": True}).text == reason
        assert scope not in page.one("main").text, "never a scope token"
    assert not await services.provider.list(scopes=[scope], ctx=ScopeContext(actor))


async def test_the_refusal_reason_reaches_htmx_as_a_notice(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    token = await login_as(JONAS)

    response = await client.post(
        "/admin/facts",
        data={"key": "k", "text": "v", "scope": "tenant:berlin"},
        headers={**HTMX, "X-CSRF-Token": token},
    )

    assert response.status_code == 403
    problem = tree(response).one(attrs={"data-problem": "403"})
    assert problem.one(attrs={"data-reason": True}).text == (
        "You do not administer what applies to everyone at Berlin, so nothing was published there."
    )
    assert "tenant:" not in problem.text


async def test_editing_goes_through_a_form_page_and_keeps_the_key_and_the_pin(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("tone", "formal", pinned=True, id="mem_tone")])
    token = await login_as(LENA)

    form_page = tree(await client.get("/admin/facts/mem_tone/edit?back=/admin%3Fq%3Dto"))
    done = await client.post(
        "/admin/facts/mem_tone/edit",
        data={"csrf_token": token, "text": "friendly", "back": "/admin?q=to"},
        follow_redirects=False,
    )
    invalid = await client.post(
        "/admin/facts/mem_tone/edit", data={"csrf_token": token, "text": "a\u2028b", "back": "/admin?q=to"}
    )

    assert form_page.one("textarea", {"name": "text"}).text == "formal"
    assert form_page.one("input", {"name": "back"})["value"] == "/admin?q=to"
    assert (done.status_code, done.headers["location"]) == (303, "/admin?q=to#fact-mem_tone")
    record = await services.provider.get("mem_tone")
    assert record is not None
    assert (record.text, record.pinned, record.key) == ("friendly", True, "tone")
    assert invalid.status_code == 400
    assert "line break" in tree(invalid).one(attrs={"data-error": True}).text
    assert tree(invalid).one("input", {"name": "back"})["value"] == "/admin?q=to", "the way back survives a mistake"


async def test_htmx_edits_in_place_and_cancel_brings_the_row_back(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("tone", "formal", id="mem_tone")])
    token = await login_as(LENA)
    headers = {**HTMX, "X-CSRF-Token": token}

    editing = tree(await client.get("/admin/facts/mem_tone/edit", headers=headers))
    row = tree(await client.get("/admin/facts/mem_tone", headers=headers))
    saved = await client.post("/admin/facts/mem_tone/edit", data={"text": "friendly"}, headers=headers)

    assert editing.one("li", {"data-editing": "mem_tone"}).one("form")["hx-post"] == "/admin/facts/mem_tone/edit"
    assert editing.find("html") is None
    assert row.one("li", {"data-fact-id": "mem_tone"}).one(attrs={"data-text": True}).text == "formal"
    assert saved.headers["hx-retarget"] == "#shared"
    assert facts(tree(saved)) == {"tone": "friendly"}


async def test_deleting_asks_first_on_a_page_of_its_own_then_deletes(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("tone", "formal", id="mem_tone")])
    token = await login_as(LENA)

    confirm = tree(await client.get("/admin/facts/mem_tone/delete"))
    deleted = await client.post("/admin/facts/mem_tone/delete", data={"csrf_token": token}, follow_redirects=False)

    step = confirm.one("li", {"data-confirm-delete": "mem_tone"})
    assert step.one("h2").text == "Delete “tone” for everyone in your organisation?"
    assert step.one("form")["action"] == "/admin/facts/mem_tone/delete"
    assert step.one("a", {"data-action": "cancel"})["href"] == "/admin#fact-mem_tone"
    assert await services.provider.get("mem_tone") is None
    assert (deleted.status_code, deleted.headers["location"]) == (303, "/admin")
    notice = notice_of(tree(await client.get("/admin")))
    assert notice is not None
    assert notice.one("p").text == "Deleted: “tone”, for everyone in your organisation."


async def test_an_end_user_can_delete_a_shared_fact_nowhere_and_another_tenants_admin_gets_one_404(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("tone", "formal", id="mem_tone")])

    token = await login_as(ADA)
    by_ada = await client.post("/admin/facts/mem_tone/delete", data={"csrf_token": token})
    token = await login_as(JONAS)
    by_jonas = await client.post("/admin/facts/mem_tone/delete", data={"csrf_token": token})
    unknown = await client.post("/admin/facts/mem_nope/delete", data={"csrf_token": token})
    confirm = await client.get("/admin/facts/mem_tone/delete")

    assert by_ada.status_code == 403
    assert by_jonas.status_code == unknown.status_code == confirm.status_code == 404
    reasons = {tree(r).one(attrs={"data-reason": True}).text for r in (by_jonas, unknown, confirm)}
    assert reasons == {"There is no shared fact with that id among those you administer."}
    assert await services.provider.get("mem_tone") is not None


async def test_unpinning_with_htmx_answers_the_list_again(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("tone", "formal", pinned=True, id="mem_tone")])
    token = await login_as(LENA)

    response = await client.post(
        "/admin/facts/mem_tone/pin", data={"pinned": "false"}, headers={**HTMX, "X-CSRF-Token": token}
    )

    parts = tree(response)
    assert parts.one("li", {"data-fact-id": "mem_tone"}).find(attrs={"data-badge": "always-on"}) is None
    assert parts.one(attrs={"data-budget-words": True}).text == "0 of 20 always-on"
    assert (
        parts.one(attrs={"data-notice": "done"}).one("p").text
        == "No longer always on: “tone”, for everyone in your organisation."
    )


async def test_acting_with_htmx_on_a_fact_another_tab_deleted_brings_the_list_up_to_date_with_the_notice(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("tone", "formal", id="mem_tone"), shared("units", "km", id="mem_units")])
    token = await login_as(LENA)
    headers = {**HTMX, "X-CSRF-Token": token}
    await client.post("/admin/facts/mem_tone/delete", headers=headers)  # the other tab

    answers = [
        await client.post("/admin/facts/mem_tone/delete", headers=headers),
        await client.post("/admin/facts/mem_tone/pin", data={"pinned": "true"}, headers=headers),
        await client.get("/admin/facts/mem_tone/edit", headers=headers),
    ]

    for answer in answers:
        assert answer.status_code == 404
        roots = [p for p in tree(answer).children if isinstance(p, Element)]
        assert [r["data-problem"] for r in roots] == ["404"], "one notice, as the page's script expects"
        assert roots[0].one(attrs={"data-refreshed": True})
        listing = roots[0].one("section", {"id": "shared"})
        assert listing["hx-swap-oob"] == "outerHTML"
        assert list(facts(listing)) == ["units"]
        assert roots[0].one("select", {"id": "filter-scope"})["hx-swap-oob"] == "true"


def form_fields(form: Element) -> dict[str, str]:
    """What the browser posts from `form`: its hidden fields and its text box."""
    fields = {i["name"]: i["value"] for i in form.find_all("input")}
    box = form.find("textarea")
    return fields if box is None else {**fields, box["name"]: box.text}


async def test_a_delete_confirmed_after_another_tab_changed_the_fact_shows_the_new_text_and_asks_again(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("stale", "v1", id="mem_stale")])
    token = await login_as(LENA)
    asked = tree(await client.get("/admin/facts/mem_stale/delete")).one("form", {"data-delete-form": True})
    other_tab = await client.post(
        "/admin/facts/mem_stale/edit", data={"csrf_token": token, "text": "v2 important"}, follow_redirects=False
    )
    assert other_tab.status_code == 303

    again = await client.post(asked["action"], data=form_fields(asked), follow_redirects=False)

    assert again.status_code == 409
    step = tree(again).one("li", {"data-confirm-delete": "mem_stale"})
    assert step.one(attrs={"data-changed": True}).text == "This fact was changed while you were deciding. It now says:"
    assert step.one("q").text == "v2 important"
    assert await services.provider.get("mem_stale") is not None, "nothing is deleted unseen"

    confirmed = await client.post(asked["action"], data=form_fields(step.one("form")), follow_redirects=False)

    assert confirmed.status_code == 303
    assert await services.provider.get("mem_stale") is None
    trail = await services.audit.at_scopes(["tenant:berlin"])
    assert (trail[0].action, trail[0].before["text"]) == ("delete", "v2 important")


async def test_an_edit_saved_after_another_tab_saved_keeps_both_texts_in_view_and_asks_again(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("stale", "v1", id="mem_stale")])
    await login_as(LENA)
    tab_a = tree(await client.get("/admin/facts/mem_stale/edit")).one("form", {"data-edit-form": True})
    tab_b = tree(await client.get("/admin/facts/mem_stale/edit")).one("form", {"data-edit-form": True})
    saved_b = await client.post(tab_b["action"], data={**form_fields(tab_b), "text": "v2 important"})
    assert saved_b.status_code == 200

    saved_a = await client.post(tab_a["action"], data={**form_fields(tab_a), "text": "v3"}, follow_redirects=False)

    assert saved_a.status_code == 409
    form = tree(saved_a).one("form", {"data-edit-form": True})
    assert form.one(attrs={"data-changed": True}).one("q").text == "v2 important"
    assert form.one("textarea").text == "v3", "what was typed is kept"
    record = await services.provider.get("mem_stale")
    assert record is not None
    assert record.text == "v2 important", "nothing is overwritten unseen"

    again = await client.post(tab_a["action"], data=form_fields(form), follow_redirects=False)

    assert again.status_code == 303
    record = await services.provider.get("mem_stale")
    assert record is not None
    assert record.text == "v3"


async def test_with_htmx_a_changed_fact_comes_back_in_place_and_the_same_text_twice_goes_through(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("stale", "v1", id="mem_stale")])
    token = await login_as(LENA)
    headers = {**HTMX, "X-CSRF-Token": token}
    tab_a = tree(await client.get("/admin/facts/mem_stale/edit", headers=headers)).one("form")
    tab_b = tree(await client.get("/admin/facts/mem_stale/edit", headers=headers)).one("form")
    await client.post(tab_b["hx-post"], data={**form_fields(tab_b), "text": "v2"}, headers=headers)

    same = await client.post(tab_a["hx-post"], data={**form_fields(tab_a), "text": "v2"}, headers=headers)
    deleting = tree(await client.get("/admin/facts/mem_stale/delete", headers=headers)).one("form")
    tab_c = tree(await client.get("/admin/facts/mem_stale/edit", headers=headers)).one("form")
    await client.post(tab_c["hx-post"], data={**form_fields(tab_c), "text": "v3"}, headers=headers)
    asked = await client.post(deleting["hx-post"], data=form_fields(deleting), headers=headers)

    assert same.headers["hx-retarget"] == "#shared", "the text it already holds loses nothing: saved"
    assert asked.status_code == 200
    assert tree(asked).one("li", {"data-confirm-delete": "mem_stale"}).one("q").text == "v3"
    assert await services.provider.get("mem_stale") is not None
