"""Publishing a key that already holds a fact at that scope shows that fact first: replace it or keep
it, as plain forms and in place with htmx; a confirmation answers only the value it showed."""

from __future__ import annotations

from litestar import Litestar
from litestar.testing import AsyncTestClient

from tests.web.admin_builders import LENA, notice_of, shared, tree
from tests.web.builders import HTMX
from tests.web.conftest import LoginAs
from tests.web.html_tree import Element
from web.services import Services


def posted_by(form: Element, button: str) -> dict[str, str]:
    """What the browser posts when `button` (its data-action) of `form` is pressed."""
    fields = {i["name"]: i["value"] for i in form.find_all("input")}
    pressed = form.one("button", {"data-action": button})
    return {**fields, pressed["name"]: pressed["value"]}


async def test_publishing_over_a_key_shows_the_fact_it_replaces_and_replaces_it_only_when_confirmed(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("tone", "answer formally", id="mem_tone", by="gil")])
    token = await login_as(LENA)
    typed = {"csrf_token": token, "key": " tone ", "text": "answer briefly", "scope": "tenant:berlin"}

    asked = await client.post("/admin/facts", data={**typed, "back": "/admin?q=to"})

    assert asked.status_code == 200
    step = tree(asked).one(attrs={"data-confirm-replace": "mem_tone"})
    assert step.one("h2").text == "“tone” already holds a fact for everyone in your organisation"
    assert step.one(attrs={"data-current-text": True}).text == "answer formally"
    assert step.one(attrs={"data-new-text": True}).text == "answer briefly"
    assert step.find(attrs={"data-changed": True}) is None, "a first confirmation has nothing to say changed"
    assert "gil" in step.one(attrs={"data-written-by": True}).text
    record = await services.provider.get("mem_tone")
    assert record is not None
    assert record.text == "answer formally", "nothing is replaced before it is confirmed"

    form = step.one("form", {"data-replace-form": True})
    done = await client.post(form["action"], data=posted_by(form, "confirm-replace"), follow_redirects=False)

    assert (done.status_code, done.headers["location"]) == (303, "/admin?q=to#fact-mem_tone")
    record = await services.provider.get("mem_tone")
    assert record is not None
    assert record.text == "answer briefly"
    trail = await services.audit.at_scopes(["tenant:berlin"])
    assert (trail[0].action, trail[0].before["text"], trail[0].after["text"]) == (
        "write",
        "answer formally",
        "answer briefly",
    )


async def test_keeping_the_current_fact_publishes_nothing_and_keeps_what_was_typed(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("tone", "answer formally", id="mem_tone")])
    token = await login_as(LENA)
    asked = tree(
        await client.post(
            "/admin/facts",
            data={"csrf_token": token, "key": "tone", "text": "answer briefly", "scope": "tenant:berlin"},
        )
    )
    form = asked.one("form", {"data-replace-form": True})

    kept = await client.post(form["action"], data=posted_by(form, "keep"))

    assert kept.status_code == 200
    page = tree(kept)
    notice = notice_of(page)
    assert notice is not None
    assert notice.one("p").text == "Nothing was published: “tone” keeps its fact."
    assert page.one("input", {"name": "key", "data-field": "key"})["value"] == "tone"
    assert page.one("textarea", {"name": "text"}).text == "answer briefly"
    record = await services.provider.get("mem_tone")
    assert record is not None
    assert record.text == "answer formally"


async def test_a_confirmation_of_a_value_that_changed_meanwhile_asks_again_with_the_new_value(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("tone", "answer formally", id="mem_tone")])
    token = await login_as(LENA)
    typed = {"csrf_token": token, "key": "tone", "text": "answer briefly", "scope": "tenant:berlin"}
    form = tree(await client.post("/admin/facts", data=typed)).one("form", {"data-replace-form": True})
    edited = await client.post("/admin/facts/mem_tone/edit", data={"csrf_token": token, "text": "answer in German"})
    assert edited.status_code in {200, 303}

    again = await client.post(form["action"], data=posted_by(form, "confirm-replace"), follow_redirects=False)

    assert again.status_code == 200
    assert tree(again).one(attrs={"data-current-text": True}).text == "answer in German"
    assert tree(again).one(attrs={"data-changed": True}).text.startswith("This fact was changed while you were")
    record = await services.provider.get("mem_tone")
    assert record is not None
    assert record.text == "answer in German"


async def test_the_same_key_at_another_scope_is_no_replacement_and_publishes_at_once(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("tone", "answer politely", scope="global", by="gil", id="mem_g_tone")])
    token = await login_as(LENA)

    response = await client.post(
        "/admin/facts",
        data={"csrf_token": token, "key": "tone", "text": "answer briefly", "scope": "tenant:berlin"},
        follow_redirects=False,
    )

    assert response.status_code == 303


async def test_with_htmx_the_confirmation_takes_the_forms_place_and_either_answer_lands_in_place(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await services.provider.add([shared("tone", "answer formally", id="mem_tone")])
    token = await login_as(LENA)
    headers = {**HTMX, "X-CSRF-Token": token}
    typed = {"key": "tone", "text": "answer briefly", "scope": "tenant:berlin"}

    asked = await client.post("/admin/facts", data=typed, headers=headers)
    form = tree(asked).one("form", {"data-replace-form": True})
    kept = await client.post("/admin/facts", data=posted_by(form, "keep"), headers=headers)
    replaced = await client.post("/admin/facts", data=posted_by(form, "confirm-replace"), headers=headers)

    assert (asked.headers["hx-retarget"], asked.headers["hx-reswap"]) == ("#create", "outerHTML")
    assert tree(asked).find("html") is None
    assert tree(asked).one("section")["id"] == "create"
    assert form["hx-post"] == "/admin/facts"
    assert kept.headers["hx-retarget"] == "#create"
    assert tree(kept).one("textarea", {"name": "text"}).text == "answer briefly"
    assert replaced.headers["hx-retarget"] == "#shared"
    texts = {
        f["data-key"]: f.one(attrs={"data-text": True}).text
        for f in tree(replaced).find_all("li", {"data-fact-id": True})
    }
    assert texts == {"tone": "answer briefly"}
