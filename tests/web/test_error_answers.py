"""How a request that was not done is answered: with htmx a notice for `#notice` (never a page inside
the page, never bare text), without it a page in OnFile's layout with a way on, and JSON on the JSON
routes."""

from __future__ import annotations

from collections.abc import Callable

import asyncpg
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from store import ScopeContext
from tests.web.admin_builders import ADA, LENA, shared
from tests.web.builders import HTMX, make_record, page_of, seed
from tests.web.conftest import LoginAs
from tests.web.html_tree import Element
from web.kit.errors import DATABASE_UNAVAILABLE
from web.kit.identity.sessions import SESSION_COOKIE
from web.services import Services

FORGED = "0" * 64
SHOWN = {**HTMX, "HX-Current-URL": "http://127.0.0.1:8000/?q=units"}


def only_notice(page: Element, status: str) -> Element:
    """The answer is one notice element and nothing else: no document, no header, no navigation."""
    roots = [child for child in page.children if isinstance(child, Element)]
    assert [root.get("data-problem") for root in roots] == [status], [root.tag for root in roots]
    assert page.find("header") is None
    assert page.find("nav") is None
    notice = roots[0]
    assert "notice-problem" in notice["class"].split()
    assert notice["role"] == "alert"
    return notice


async def test_a_forged_token_on_an_htmx_forget_answers_a_notice_that_reloads_the_page_shown(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("m_units", "units", "miles"))
    await login_as(ADA)

    answer = await client.post("/memories/m_units/forget", headers={**SHOWN, "X-CSRF-Token": FORGED})

    assert answer.status_code == 403
    notice = only_notice(page_of(answer), "403")
    assert "did not come from OnFile, so nothing was changed" in notice.text
    assert notice.one("a", {"data-action": "reload"})["href"] == "/?q=units"
    held = await services.provider.list(scopes=["actor:ada"], ctx=ScopeContext(actor=ADA))
    assert [r.key for r in held] == ["units"]


async def test_a_forged_token_on_a_plain_form_answers_a_page_leading_back_to_the_form_s_page(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await seed(services, make_record("m_units", "units", "miles"))
    await login_as(ADA)

    answer = await client.post(
        "/memories/m_units/forget",
        data={"csrf_token": FORGED, "back": "/"},
        headers={"Referer": "http://127.0.0.1:8000/?group=you&page=2"},
    )

    assert answer.status_code == 403
    page = page_of(answer)
    assert page.one("header", {"class": "site-header"}).one("a", {"class": "brand"})["href"] == "/"
    problem = page.one("main").one(attrs={"data-problem": "403"})
    assert problem.one("h1").text == "That did not go through"
    back = problem.one("a", {"data-action": "back"})
    assert (back["href"], back.text) == ("/?group=you&page=2", "Open the page again")
    assert "Reload" not in problem.text, "reloading would send the refused form again"


async def test_a_page_from_another_site_is_not_where_a_refused_form_leads(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    await login_as(ADA)

    answer = await client.post(
        "/memories/forget-all", data={"csrf_token": FORGED}, headers={"Referer": "https://evil.example/phish"}
    )

    assert page_of(answer).one("a", {"data-action": "back"})["href"] == "/"


async def test_a_forged_token_on_a_json_route_answers_the_apis_error_shape(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    await login_as(LENA)

    answer = await client.post("/admin/memories", json={"key": "k"}, headers={"X-CSRF-Token": FORGED})

    assert answer.status_code == 403
    assert list(answer.json()) == ["error"]
    assert "did not come from OnFile" in answer.json()["error"]


async def test_publishing_with_htmx_after_the_role_was_taken_away_answers_the_reason_as_a_notice(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    csrf = await login_as(ADA)  # as if Lena's administrator role had gone while her page stayed open

    answer = await client.post(
        "/admin/facts",
        data={"key": "k", "text": "t", "scope": "tenant:berlin"},
        headers={**HTMX, "HX-Current-URL": "http://127.0.0.1:8000/admin", "X-CSRF-Token": csrf},
    )

    assert answer.status_code == 403
    notice = only_notice(page_of(answer), "403")
    assert notice.one("strong").text == "This area is for administrators."
    assert "Ada, who is not an administrator" in notice.text
    assert notice.one("a", {"data-action": "reload"})["href"] == "/admin"


async def test_a_database_outage_under_htmx_answers_a_notice_saying_so(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs, monkeypatch: pytest.MonkeyPatch
) -> None:
    await seed(services, make_record("m_units", "units", "miles"))
    csrf = await login_as(ADA)

    async def unreachable(*_: object, **__: object) -> None:
        raise ConnectionRefusedError(111, "Connect call failed")

    monkeypatch.setattr(services.sessions, "get", unreachable)
    answer = await client.post("/memories/m_units/forget", headers={**SHOWN, "X-CSRF-Token": csrf})

    assert answer.status_code == 503
    assert answer.headers["retry-after"] == "5"
    notice = only_notice(page_of(answer), "503")
    assert notice.one("strong").text == "OnFile is unavailable for a moment."
    assert notice.one("a", {"data-action": "reload"})["href"] == "/?q=units"


async def test_every_form_htmx_sends_disables_its_buttons_while_its_request_runs(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs
) -> None:
    own = [make_record(f"m_{key}", key, "mine", "actor:lena", actor_ref="lena") for key in ("units", "tone")]
    await seed(services, *own, shared("depot", "north"))
    csrf = await login_as(LENA)
    await client.post("/memories/m_units/forget", data={"csrf_token": csrf}, follow_redirects=False)  # an undo
    fact = "/admin/facts/mem_tenant_berlin_depot"
    paths = ("/", "/memories/m_tone/promote?scope=tenant:berlin", "/admin", f"{fact}/edit", f"{fact}/delete")

    forms = [form for path in paths for form in page_of(await client.get(path)).find_all("form")]
    sent = {form["hx-post"].rsplit("/", 1)[-1]: form.get("hx-disabled-elt") for form in forms if form.get("hx-post")}

    assert set(sent) == {"forget", "promote", "undo", "facts", "pin", "edit", "delete", "pause"}
    assert set(sent.values()) == {"find button"}


@pytest.mark.parametrize("path", ["/nope", "/memories/nope/deeper", "/admin/nope/deeper", "/static/nope.css"])
async def test_an_unknown_address_is_a_page_in_onfile_s_layout_leading_home(
    client: AsyncTestClient[Litestar], path: str
) -> None:
    answer = await client.get(path)

    assert answer.status_code == 404
    page = page_of(answer)
    assert page.one("header", {"class": "site-header"}) is not None
    problem = page.one("main").one(attrs={"data-problem": "404"})
    assert problem.one("h1").text == "There is nothing at this address"
    assert problem.one("a", {"data-action": "home"})["href"] == "/"


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [("GET", "/nope", 404), ("GET", "/memories/nope/deeper", 404), ("GET", "/logout", 405)],
)
async def test_a_signed_in_person_s_error_page_says_who_is_signed_in_and_signs_out(
    client: AsyncTestClient[Litestar], login_as: LoginAs, method: str, path: str, status: int
) -> None:
    await login_as(ADA, name="Ada Lovelace")

    answer = await client.request(method, path)

    assert answer.status_code == status
    account = page_of(answer).one("header", {"class": "site-header"}).one(attrs={"data-account": True})
    assert account.one(attrs={"data-viewer-name": True}).text == "Ada Lovelace"
    token = account.one("input", {"name": "csrf_token"})["value"]
    signed_out = await client.post("/logout", data={"csrf_token": token}, follow_redirects=False)
    assert signed_out.status_code == 303
    assert (await client.get("/", follow_redirects=False)).status_code in {302, 303, 307}, "the session ended"


async def test_a_refused_form_s_page_signs_out_with_the_session_s_own_token(
    client: AsyncTestClient[Litestar], login_as: LoginAs
) -> None:
    csrf = await login_as(ADA, name="Ada Lovelace")

    answer = await client.post("/memories/m_units/forget", data={"csrf_token": FORGED, "back": "/"})

    assert answer.status_code == 403
    account = page_of(answer).one(attrs={"data-account": True})
    assert account.one("input", {"name": "csrf_token"})["value"] == csrf


async def test_an_error_page_without_a_live_session_names_nobody(client: AsyncTestClient[Litestar]) -> None:
    client.cookies.set(SESSION_COOKIE, "0" * 43)  # a cookie of the right shape that names no session

    answer = await client.get("/nope")

    assert answer.status_code == 404
    assert page_of(answer).find(attrs={"data-account": True}) is None


async def test_an_error_page_is_shown_when_its_session_cannot_be_read(
    client: AsyncTestClient[Litestar], services: Services, login_as: LoginAs, monkeypatch: pytest.MonkeyPatch
) -> None:
    await login_as(ADA)

    async def unreachable(_: str) -> None:
        raise OSError("connection refused")

    monkeypatch.setattr(services.sessions, "get", unreachable)
    answer = await client.get("/nope")

    assert answer.status_code == 404
    page = page_of(answer)
    assert page.one("main").one(attrs={"data-problem": "404"}) is not None
    assert page.find(attrs={"data-account": True}) is None


async def test_opening_the_logout_address_is_a_page_saying_it_is_a_button_s_target(
    client: AsyncTestClient[Litestar],
) -> None:
    answer = await client.get("/logout")

    assert answer.status_code == 405
    assert "POST" in answer.headers["allow"].split(", ")
    problem = page_of(answer).one(attrs={"data-problem": "405"})
    assert problem.one("h1").text == "This address is not a page"
    assert "Use the button on the page instead" in problem.text


async def test_an_unknown_address_asked_by_htmx_is_a_notice(client: AsyncTestClient[Litestar]) -> None:
    answer = await client.get("/nope", headers=HTMX)

    assert answer.status_code == 404
    only_notice(page_of(answer), "404")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/agent/nope"),
        ("GET", "/admin/memories/x/y/z"),
        ("PUT", "/metrics"),
        # under the document's path Litestar has a page of its own for what names nothing
        ("GET", "/schema/swagger"),
        ("GET", "/schema/nothing"),
        ("GET", "/schema/openapi.yaml"),
    ],
)
async def test_the_json_routes_answer_the_apis_error_shape(
    client: AsyncTestClient[Litestar], method: str, path: str
) -> None:
    answer = await client.request(method, path)

    assert answer.status_code in {404, 405}
    assert answer.headers["content-type"].startswith("application/json")
    assert list(answer.json()) == ["error"]
    assert path in answer.json()["error"]


async def test_the_document_is_still_served_at_its_path_and_its_file(client: AsyncTestClient[Litestar]) -> None:
    for path in ("/schema", "/schema/openapi.json"):
        answer = await client.get(path)
        assert answer.status_code == 200
        assert answer.json()["info"]["title"] == "OnFile"


async def test_a_method_a_json_route_does_not_take_names_the_ones_it_does(client: AsyncTestClient[Litestar]) -> None:
    answer = await client.get("/agent/runs/run_1/digest")

    assert answer.status_code == 405
    assert answer.json() == {"error": "/agent/runs/run_1/digest does not take GET; it takes OPTIONS, POST."}
    assert sorted(m.strip() for m in answer.headers["allow"].split(",")) == ["OPTIONS", "POST"]


Failing = Callable[[BaseException], None]


@pytest.fixture
def expiries_fail(services: Services, monkeypatch: pytest.MonkeyPatch) -> Failing:
    """Make every read of expiries (which the person's page and the read-back make) raise `error`."""

    def install(error: BaseException) -> None:
        async def failing(*_: object, **__: object) -> None:
            raise error

        monkeypatch.setattr(services.expiry, "expiries", failing)

    return install


async def test_a_failure_nobody_foresaw_is_said_in_onfile_s_words_and_logged(
    client: AsyncTestClient[Litestar],
    services: Services,
    login_as: LoginAs,
    expiries_fail: Failing,
    caplog: pytest.LogCaptureFixture,
) -> None:
    await seed(services, make_record("m_units", "units", "miles"))
    await login_as(ADA)
    expiries_fail(RuntimeError("a bug"))

    page = await client.get("/?q=units")
    notice = await client.get("/", headers=SHOWN)
    api = await client.get("/agent/memories")

    assert page.status_code == notice.status_code == api.status_code == 500
    shown = page_of(page)
    assert shown.one("h1").text == "That did not work"
    assert "may not have been done" in shown.one(attrs={"data-reason": True}).text
    assert "RuntimeError" not in page.text
    assert only_notice(page_of(notice), "500").one("a", {"data-action": "reload"})["href"] == "/?q=units"
    assert list(api.json()) == ["error"]
    assert "logged" in api.json()["error"]
    assert "unexpected failure on GET /agent/memories" in caplog.text
    assert "RuntimeError: a bug" in caplog.text


class AdaptedDriverError(Exception):
    """What SQLAlchemy's asyncpg adapter raises from a pool's raw connection: no SQLAlchemy type."""


async def test_an_outage_that_surfaces_as_no_database_type_is_still_the_outage_s_503(
    client: AsyncTestClient[Litestar], login_as: LoginAs, expiries_fail: Failing, caplog: pytest.LogCaptureFixture
) -> None:
    adapted = AdaptedDriverError("TooManyConnectionsError: sorry, too many clients already")
    adapted.__cause__ = asyncpg.TooManyConnectionsError("sorry, too many clients already")
    await login_as(ADA)
    expiries_fail(adapted)

    api = await client.get("/agent/memories")
    page = await client.get("/")

    assert (api.status_code, api.json()) == (503, {"error": DATABASE_UNAVAILABLE})
    assert api.headers["retry-after"] == "5"
    assert page.status_code == 503
    assert "cannot reach its database" in page.text
    assert "unexpected failure" not in caplog.text, "an outage is one warning line, not a traceback"
    assert "database unavailable on GET /agent/memories" in caplog.text
