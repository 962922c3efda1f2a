"""'What's on file about you' as a person reads it: groups, entries, origins, the header, empty states."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise

from httpx import Response
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import DefaultScopeResolver, ScopeContext
from tests.web.builders import ADA, HTMX, make_record, page_of, seed
from tests.web.conftest import LoginAs
from web.app import create_app
from web.kit.identity.oidc import Person
from web.kit.identity.sessions import SESSION_COOKIE, start_session
from web.services import Services
from web.settings import Settings


async def test_the_page_needs_a_login_and_sends_the_browser_to_it(client: AsyncTestClient[Litestar]) -> None:
    response = await client.get("/?q=units", follow_redirects=False)

    assert response.status_code == 303
    assert response.headers["location"] == "/login?next=/%3Fq%3Dunits"


async def test_an_htmx_request_without_a_login_is_told_where_to_log_in(client: AsyncTestClient[Litestar]) -> None:
    response = await client.get("/", headers={**HTMX, "HX-Target": "on-file"}, follow_redirects=False)

    assert response.status_code == 401
    assert page_of(response).one(attrs={"data-problem": "401"}).one("a")["href"] == "/login?next=/"


async def test_memories_are_grouped_in_the_resolvers_order_and_in_plain_words(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(
        services,
        make_record("m_units", "units", "miles", author="human"),
        make_record("m_tone", "tone", "formal", "tenant:berlin", author="human", actor_ref="lena"),
        make_record("m_date", "date-format", "ISO dates", "global", author="human", actor_ref="root"),
        make_record("m_other", "tone", "casual", "tenant:hamburg", author="human"),
    )
    await login_as(ADA)

    page = page_of(await client.get("/"))

    groups = page.find_all("section", {"data-group": True})
    assert [g["data-group"] for g in groups] == ["you", "organisation", "everyone"]
    headings = [g.one("h2").text for g in groups]
    assert headings == [
        "What you or your assistant noted about you",
        "What your organisation holds",
        "What holds for everyone",
    ]
    assert not any(":" in heading or "global" in heading for heading in headings)
    assert [[e["data-key"] for e in g.find_all("li", {"data-entry": True})] for g in groups] == [
        ["units"],
        ["tone"],
        ["date-format"],
    ]
    assert page.one(attrs={"id": "summary"})["data-total"] == "3"


async def test_each_entry_says_who_wrote_it_for_whom_and_when(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(
        services,
        make_record("m_mine", "units", "miles", author="human", days_ago=3),
        make_record("m_agent", "tone", "short answers", days_ago=0.5),
        make_record("m_org", "labels", "customer number first", "tenant:berlin", author="human", actor_ref="lena"),
    )
    await login_as(ADA)

    page = page_of(await client.get("/"))

    def entry(id: str) -> tuple[str, str, str]:
        row = page.one("li", {"data-entry": id})
        return (row.one(attrs={"data-written-by": True}).text, row.one(attrs={"data-scope-words": True}).text, id)

    assert entry("m_mine") == ("You wrote this", "Applies to you alone", "m_mine")
    assert entry("m_agent") == ("Your assistant concluded it", "Applies to you alone", "m_agent")
    assert entry("m_org") == ("Stated by lena, an administrator", "Applies to everyone in your organisation", "m_org")
    when = page.one("li", {"data-entry": "m_mine"}).one("time")
    assert when["datetime"].endswith("Z")
    assert when.text.startswith("3 days ago")
    assert when["title"].endswith("UTC")
    assert page.one("li", {"data-entry": "m_agent"}).one("time").text.startswith("12 hours ago")


async def test_an_override_shows_the_wider_values_beneath_it_with_their_authors(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(
        services,
        make_record("m_mine", "fiscal-year", "the calendar year"),
        make_record("m_org", "fiscal-year", "starts in April", "tenant:berlin", author="human", actor_ref="lena"),
        make_record("m_all", "fiscal-year", "starts in October", "global", author="human", actor_ref="root"),
    )
    await login_as(ADA)

    page = page_of(await client.get("/"))

    row = page.one("li", {"data-entry": "m_mine"})
    overrides = row.one(attrs={"data-overrides": True}).find_all("li", {"data-override": True})
    assert [(o["data-override"], o.one("q").text, o.text) for o in overrides] == [
        ("organisation", "starts in April", "Your organisation's default is starts in April, set by an administrator."),
        ("everyone", "starts in October", "The default for everyone is starts in October, set by an administrator."),
    ]
    beaten = [
        (r["data-entry"], r.one(attrs={"data-overridden": True}).text)
        for r in page.find_all("li", {"data-key": "fiscal-year"})[1:]
    ]
    assert beaten == [
        ("m_org", "Doesn't apply to you: your own setting overrides it."),
        ("m_all", "Doesn't apply to you: your own setting overrides it."),
    ], "each beaten value is listed in its own group, read-only, saying it does not apply"
    assert row.find(attrs={"data-overridden": True}) is None
    assert page.one("li", {"data-entry": "m_org"}).find("form") is None


async def test_a_wider_value_that_is_the_same_is_said_to_be_the_same_not_a_difference(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(
        services,
        make_record("m_mine", "units", "kilometres"),
        make_record("m_org", "units", "kilometres", "tenant:berlin", author="human", actor_ref="lena"),
        make_record("m_all", "units", "miles", "global", author="human", actor_ref="root"),
    )
    await login_as(ADA)

    row = page_of(await client.get("/")).one("li", {"data-entry": "m_mine"})

    overrides = row.one(attrs={"data-overrides": True}).find_all("li", {"data-override": True})
    assert [o["data-override"] for o in overrides] == ["everyone"]
    assert row.one(attrs={"data-same-as": True}).text == (
        "Your organisation's default is the same, set by an administrator."
    )


async def test_a_pinned_entry_is_marked_always_on(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(
        services,
        make_record("m_pin", "manifest", "print a manifest", "tenant:berlin", author="human", pinned=True, days_ago=9),
        make_record("m_plain", "aaa", "first by key", "tenant:berlin", author="human", days_ago=1),
    )
    await login_as(ADA)

    page = page_of(await client.get("/"))

    rows = page.one("section", {"data-group": "organisation"}).find_all("li", {"data-entry": True})
    assert [r["data-entry"] for r in rows] == ["m_plain", "m_pin"], "always-on entries are sorted as the rest are"
    assert rows[1].one(attrs={"data-badge": "always-on"}).text == "Always on"
    assert rows[0].find(attrs={"data-badge": "always-on"}) is None


async def test_an_origin_links_to_its_conversation_and_a_dangling_one_is_marked(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(
        services,
        make_record("m_live", "tone", "short", thread_id="thr 1", run_id="run_1"),
        make_record("m_gone", "depot", "Spandau", thread_id="thr_gone", run_id="run_9"),
        make_record("m_direct", "units", "miles", author="human"),
    )
    await services.registry.register_run("run_1", "thr 1", "ada")
    await services.registry.delete_thread("thr_gone")
    await login_as(ADA)

    page = page_of(await client.get("/"))

    live = page.one("li", {"data-entry": "m_live"})
    assert live.one("a", {"data-origin-link": True})["href"] == "https://chat.example.com/threads/thr%201#run_1"
    gone = page.one("li", {"data-entry": "m_gone"})
    mark = gone.one(attrs={"data-badge": "origin-gone"})
    assert mark.text == "The conversation this came from is no longer available"
    assert gone.find("a", {"data-origin-link": True}) is None
    assert gone.one("button", {"data-action": "forget"}) is not None, "a dangling memory is kept and forgettable"
    direct = page.one("li", {"data-entry": "m_direct"})
    assert direct.find("a", {"data-origin-link": True}) is None
    assert direct.find(attrs={"data-badge": "origin-gone"}) is None


async def test_without_a_conversation_address_there_are_no_links_but_still_dangling_marks(
    settings: Settings, services: Services
) -> None:
    bare = settings.replace(conversation_url="")
    await seed(
        services,
        make_record("m_live", "tone", "short", thread_id="thr_1"),
        make_record("m_gone", "depot", "Spandau", thread_id="thr_gone"),
    )
    await services.registry.delete_thread("thr_gone")

    page = page_of(await _get_as_ada(create_app(bare, services=replace(services, settings=bare)), services, "/"))

    assert page.find("a", {"data-origin-link": True}) is None
    assert page.one("li", {"data-entry": "m_gone"}).find(attrs={"data-badge": "origin-gone"}) is not None


async def test_wider_entries_say_why_they_cannot_be_forgotten_instead_of_a_button(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(
        services,
        make_record("m_mine", "units", "miles"),
        make_record("m_org", "tone", "formal", "tenant:berlin", author="human"),
        make_record("m_all", "dates", "ISO", "global", author="human"),
    )
    await login_as(ADA)

    page = page_of(await client.get("/"))

    mine = page.one("li", {"data-entry": "m_mine"})
    form = mine.one("form", {"data-forget": True})
    assert (form["method"], form["action"], form["hx-post"]) == ("post", "/memories/m_mine/forget", form["action"])
    assert form.one("button", {"data-action": "forget"})["type"] == "submit"
    assert mine.find(attrs={"data-managed": True}) is None
    for id, reason in (("m_org", "Managed by your organisation"), ("m_all", "Applies to everyone; managed by OnFile")):
        row = page.one("li", {"data-entry": id})
        assert row.find("button") is None
        assert row.one(attrs={"data-managed": True}).text.startswith(reason)


async def test_stored_markup_renders_as_inert_text(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    hostile = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    await seed(services, make_record("m_x", f"k{hostile}", hostile, thread_id='"><script>'))
    await login_as(ADA)

    page = page_of(await client.get("/"))

    scripts = page.find_all("script")
    assert [s.get("src") for s in scripts] == [
        "/static/vendor/htmx-2.0.11.min.js",
        "/static/onfile.js",
        "/static/chooser.js",
    ]
    assert all(not s.children for s in scripts), "no inline script"
    assert page.find("img") is None
    row = page.one("li", {"data-entry": "m_x"})
    assert row.one(attrs={"data-fact": True}).text == hostile
    assert row.one("h3").text == f"k{hostile}"
    assert not [e for e in page.elements() if any(name.startswith("on") or name == "style" for name in e.attrs)]


async def test_the_header_names_the_viewer_and_logs_out_with_a_plain_form(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    token = await login_as(ADA)

    response = await client.get("/")
    page = page_of(response)

    assert response.headers["cache-control"] == "no-store"
    assert page.one(attrs={"data-viewer-name": True}).text == "Ada"
    logout = page.one("form", {"action": "/logout"})
    assert logout["method"] == "post"
    assert logout.one("input", {"name": "csrf_token"})["value"] == token
    assert logout.one("button")["type"] == "submit"
    assert page.one("body")["hx-headers"] == f'{{"X-CSRF-Token": "{token}"}}'
    assert page.one("link", {"rel": "stylesheet"})["href"] == "/static/onfile.css"


async def test_headings_are_in_order_and_every_input_has_a_label(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("m_mine", "units", "miles"))
    await login_as(ADA)

    page = page_of(await client.get("/"))

    levels = [int(e.tag[1]) for e in page.elements() if e.tag in {"h1", "h2", "h3", "h4"}]
    assert levels[0] == 1
    assert levels.count(1) == 1
    assert all(b - a <= 1 for a, b in pairwise(levels)), levels
    labelled = {label["for"] for label in page.find_all("label")}
    fields = [e for e in page.elements() if e.tag in {"input", "select"} and e.get("type") != "hidden"]
    assert fields
    assert all(f["id"] in labelled for f in fields)


async def test_nothing_on_file_yet_says_what_will_appear_here(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(ADA)

    page = page_of(await client.get("/"))

    empty = page.one(attrs={"data-empty": "nothing-on-file"})
    assert empty.one("h2").text == "Nothing is on file about you yet"
    assert "forget" in empty.text
    assert page.find("form", {"data-filters": True}) is None
    assert page.find("section", {"data-group": True}) is None


async def test_a_scope_the_resolver_mints_gets_its_own_group_in_its_place(
    settings: Settings, services: Services
) -> None:
    class DepotResolver:
        async def resolve(self, ctx: ScopeContext) -> Sequence[str]:
            own, *wider = await DefaultScopeResolver().resolve(ctx)
            return (own, "depot:north", *wider)

    depots = replace(services, memory=replace(services.memory, scopes=DepotResolver()))
    await seed(
        services,
        make_record("m_mine", "units", "miles"),
        make_record("m_depot", "dock", "dock 4 for returns", "depot:north", author="human", actor_ref="lena"),
        make_record("m_org", "dock", "dock 1", "tenant:berlin", author="human", actor_ref="lena"),
    )

    page = page_of(await _get_as_ada(create_app(settings, services=depots), depots, "/"))

    groups = page.find_all("section", {"data-group": True})
    assert [g["data-group"] for g in groups] == ["you", "shared-depot-north", "organisation", "everyone"]
    assert groups[1].one("h2").text == "What your depot “north” holds"
    row = groups[1].one("li", {"data-entry": "m_depot"})
    assert row.one(attrs={"data-managed": True}).text == "Shared with your depot “north”; managed by its administrators"
    assert row.one(attrs={"data-override": "organisation"}).text.startswith("Your organisation's default is dock 1,")
    assert row.one(attrs={"data-set-by": True}).text == "Your depot “north” set this. It differs from:"


async def test_a_shared_fact_over_a_wider_one_says_who_set_it_never_that_it_is_the_person_s(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(
        services,
        make_record("m_mine", "tone", "short answers"),
        make_record("m_everyone_tone", "tone", "friendly", "global", author="human", actor_ref="root"),
        make_record("m_org", "pallet-labels", "depot code first", "tenant:berlin", author="human", actor_ref="lena"),
        make_record("m_everyone", "pallet-labels", "code last", "global", author="human", actor_ref="root"),
    )
    await login_as(ADA)

    page = page_of(await client.get("/"))

    mine = page.one("li", {"data-entry": "m_mine"}).one(attrs={"data-set-by": True})
    organisation = page.one("li", {"data-entry": "m_org"}).one(attrs={"data-set-by": True})
    assert mine.text == "This is your setting. It differs from:"
    assert organisation.text == "Your organisation set this. It differs from:"


async def _get_as_ada(app: Litestar, services: Services, path: str) -> Response:
    """GET `path` from an application built here (for settings or services the fixtures do not give)."""
    session_id = await start_session(services, Person(actor=ADA, name="Ada", email="", id_token=""), None)
    async with AsyncTestClient(app=app, base_url="http://127.0.0.1:8000") as client:
        client.cookies.set(SESSION_COOKIE, session_id)
        response = await client.get(path)
    assert response.status_code == 200
    return response
