"""Expiry on the pages: an organisation's administrator chooses how long what the assistant concludes is
kept; the person sees, in plain words, when each of theirs will go, and keeps it, with a plain form or
with htmx."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta

from litestar import Litestar
from litestar.testing import AsyncTestClient
from sqlalchemy import text

from store import MemoryOrigin, ScopeContext
from tests.web.admin_builders import ADA, LENA, tree
from tests.web.conftest import LoginAs
from tests.web.html_tree import Element
from web.services import Services

Client = AsyncTestClient[Litestar]
CONCLUDED = MemoryOrigin(author="agent", thread_id="thr_1", run_id="run_1", actor_ref="ada")
STATED = MemoryOrigin(author="human", actor_ref="ada")


async def organisation_keeps_for(client: Client, login_as: LoginAs, days: str) -> int:
    token = await login_as(LENA)
    response = await client.post(
        "/admin/organisation/lifetime", data={"csrf_token": token, "days": days}, follow_redirects=False
    )
    return response.status_code


async def ada_has_notes(services: Services) -> tuple[str, str]:
    """A memory the assistant concluded about Ada and one she stated; their ids."""
    ctx = ScopeContext(actor=ADA)
    concluded = await services.provider.write(
        key="tone", text="short answers", scope="actor:ada", origin=CONCLUDED, ctx=ctx
    )
    stated = await services.provider.write(key="units", text="kilometres", scope="actor:ada", origin=STATED, ctx=ctx)
    return concluded.id, stated.id


async def ada_with_notes_kept_three_months(client: Client, services: Services, login_as: LoginAs) -> tuple[str, str]:
    """Berlin keeps what the assistant concludes for 90 days; Ada, signed in, has a note it concluded
    and one she stated: their ids."""
    await organisation_keeps_for(client, login_as, "90")
    notes = await ada_has_notes(services)
    await login_as(ADA)
    return notes


async def entries_shown(client: Client, *ids: str) -> list[Element]:
    """The rows of the memories `ids` on the person's page, in that order."""
    page = tree(await client.get("/"))
    return [entry(page, id) for id in ids]


async def test_an_administrator_chooses_how_long_conclusions_are_kept_and_it_is_audited(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    assert await organisation_keeps_for(client, login_as, "180") == 303

    page = tree(await client.get("/admin/organisation"))

    said = page.find(attrs={"data-lifetime": True})
    assert said is not None
    assert "kept for 6 months after the person last kept them" in said.text
    selected = page.find("option", {"selected": True})
    assert selected is not None
    assert selected["value"] == "180"
    # Back from the question after another choice shows the saved one, not what the browser remembers
    assert page.one("select", {"data-lifetime-choice": True})["autocomplete"] == "off"
    [entry] = [e for e in await services.audit.at_scopes(["tenant:berlin"]) if e.action == "lifetime"]
    assert (entry.who, entry.before, entry.after) == (
        "lena",
        {"concludedLifetimeDays": None, "byDefault": True},
        {"concludedLifetimeDays": 180},
    )
    audit = " ".join(tree(await client.get("/admin/audit")).text.split())
    assert "What the assistant concludes is now kept for 6 months" in audit
    assert "; before, it was kept until the person forgets them (the default)" in audit


async def test_a_lifetime_not_offered_is_refused_with_its_reason_and_changes_nothing(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    token = await login_as(LENA)

    refused = await client.post("/admin/organisation/lifetime", data={"csrf_token": token, "days": "7"})

    assert refused.status_code == 400
    error = tree(refused).find(attrs={"data-lifetime-error": True})
    assert error is not None
    assert error.text == "Nothing was changed. Choose one of 30, 90, 180, 365 days, or keep them until forgotten."
    setting = await services.expiry.lifetime_setting(LENA)
    assert setting is not None
    assert (setting.days, setting.chosen) == (None, False)


async def test_someone_who_administers_no_organisation_cannot_set_a_lifetime(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    token = await login_as(ADA)

    refused = await client.post("/admin/organisation/lifetime", data={"csrf_token": token, "days": "30"})

    assert refused.status_code == 403
    setting = await services.expiry.lifetime_setting(LENA)
    assert setting is not None
    assert setting.chosen is False


async def test_the_person_sees_when_a_concluded_memory_goes_and_nothing_on_what_they_stated(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    concluded, stated = await ada_with_notes_kept_three_months(client, services, login_as)

    tone, units = await entries_shown(client, concluded, stated)

    expiry = tone.find(attrs={"data-expiry": "expires"})
    assert expiry is not None
    assert expiry.text.startswith("Your assistant stops using this in 3 months, unless you keep it.")
    assert tone.find("button", {"data-action": "keep"}) is not None
    assert units.find(attrs={"data-expiry": True}) is None
    assert units.find("button", {"data-action": "keep"}) is None


async def test_the_downloads_say_when_each_concluded_memory_goes_as_the_page_does(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    concluded, stated = await ada_with_notes_kept_three_months(client, services, login_as)
    tone, _ = await entries_shown(client, concluded, stated)
    shown = tone.find("time", {"class": "visually-hidden"})
    assert shown is not None

    exported = {entry["id"]: entry for entry in (await client.get("/memories/export.json")).json()}
    rows = {
        row["id"]: row
        for row in csv.DictReader(io.StringIO((await client.get("/memories/export.csv")).text.lstrip("\ufeff")))
    }

    when = exported[concluded]["expiresAt"]
    assert when is not None
    assert when.endswith("Z")
    assert when[:16] == shown["datetime"].replace("+00:00", "Z")[:16]
    in_three_months = datetime.now(UTC) + timedelta(days=90)
    assert abs(datetime.fromisoformat(when) - in_three_months) < timedelta(minutes=5)
    assert rows[concluded]["expires"] == when
    assert exported[stated]["expiresAt"] is None
    assert rows[stated]["expires"] == ""


async def expire(services: Services) -> None:
    past = datetime.now(UTC) - timedelta(days=1)
    async with services.provider.engine.begin() as connection:
        await connection.execute(
            text("UPDATE agent_memory SET expires_at = :past WHERE expires_at IS NOT NULL"), {"past": past}
        )


async def test_keeping_an_expired_memory_without_javascript_brings_it_back_with_a_notice(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    await organisation_keeps_for(client, login_as, "30")
    concluded, _ = await ada_has_notes(services)
    await expire(services)
    token = await login_as(ADA)
    before = tree(await client.get("/")).find("li", {"data-entry": concluded})
    assert before is not None
    said = before.find(attrs={"data-expiry": "expired"})
    assert said is not None
    assert said.text.startswith("Your assistant no longer uses this: it expired.")

    kept = await client.post(
        f"/memories/{concluded}/keep", data={"csrf_token": token, "back": "/"}, follow_redirects=False
    )

    assert kept.status_code == 303
    assert kept.headers["location"] == f"/#entry-{concluded}"
    page = tree(await client.get("/"))
    notice = page.find(attrs={"data-notice": True})
    assert notice is not None
    assert "Kept “tone”." in notice.text
    after = page.find("li", {"data-entry": concluded})
    assert after is not None
    again = after.find(attrs={"data-expiry": "expires"})
    assert again is not None
    assert "in 29 days" in again.text or "in 30 days" in again.text


async def test_keeping_with_htmx_answers_the_entry_now_saying_when_it_goes(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    await organisation_keeps_for(client, login_as, "365")
    concluded, _ = await ada_has_notes(services)
    await expire(services)
    token = await login_as(ADA)

    kept = await client.post(
        f"/memories/{concluded}/keep",
        data={"csrf_token": token, "back": "/"},
        headers={"HX-Request": "true", "HX-Current-URL": "http://127.0.0.1:8000/"},
    )

    assert kept.status_code == 200
    row = tree(kept).find("li", {"data-entry": concluded})
    assert row is not None
    expiry = row.find(attrs={"data-expiry": "expires"})
    assert expiry is not None
    assert expiry.text.startswith("Your assistant stops using this in 1 year, unless you keep it.")


async def test_what_the_person_stated_or_someone_elses_memory_cannot_be_kept(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    await organisation_keeps_for(client, login_as, "30")
    concluded, stated = await ada_has_notes(services)
    token = await login_as(LENA)

    for memory_id in (concluded, stated):
        refused = await client.post(f"/memories/{memory_id}/keep", data={"csrf_token": token, "back": "/"})
        assert refused.status_code == 404


def entry(page: Element, memory_id: str) -> Element:
    found = page.find("li", {"data-entry": memory_id})
    assert found is not None, memory_id
    return found


async def test_an_expired_note_of_theirs_no_longer_claims_to_override_the_wider_value_that_applies(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    await organisation_keeps_for(client, login_as, "30")
    concluded, _ = await ada_has_notes(services)
    berlin = await services.provider.write(
        key="tone",
        text="detailed answers",
        scope="tenant:berlin",
        origin=MemoryOrigin(author="human", actor_ref="lena"),
        ctx=ScopeContext(actor=LENA),
    )
    token = await login_as(ADA)
    live = tree(await client.get("/"))
    assert entry(live, concluded).find(attrs={"data-overrides": True}) is not None
    assert entry(live, berlin.id).find(attrs={"data-overridden": True}) is not None

    await expire(services)
    page = tree(await client.get("/"))

    # The prompt now has Berlin's value (the expired note is in no read that fills one): the page says so.
    own = entry(page, concluded)
    assert own.find(attrs={"data-expiry": "expired"}) is not None
    assert own.find(attrs={"data-overrides": True}) is None
    assert entry(page, berlin.id).find(attrs={"data-overridden": True}) is None

    await client.post(f"/memories/{concluded}/keep", data={"csrf_token": token, "back": "/"}, follow_redirects=False)
    kept = tree(await client.get("/"))
    assert entry(kept, concluded).find(attrs={"data-overrides": True}) is not None
    assert entry(kept, berlin.id).find(attrs={"data-overridden": True}) is not None


async def ada_has_old_conclusions(services: Services) -> tuple[str, str]:
    """Ada is known in Berlin, with a note the assistant concluded 100 days ago and one she stated then."""
    await services.people.note(ADA)
    concluded, stated = await ada_has_notes(services)
    long_ago = datetime.now(UTC) - timedelta(days=100)
    async with services.provider.engine.begin() as connection:
        await connection.execute(text("UPDATE agent_memory SET updated_at = :then"), {"then": long_ago})
    return concluded, stated


async def test_a_lifetime_that_expires_memories_at_once_is_asked_first_and_kept_when_declined(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    concluded, stated = await ada_has_old_conclusions(services)
    token = await login_as(LENA)

    asked = await client.post("/admin/organisation/lifetime", data={"csrf_token": token, "days": "30"})

    assert asked.status_code == 200
    question = tree(asked).one(attrs={"data-confirm-lifetime": True})
    assert question["data-confirm-lifetime"] == "1"
    assert tree(asked).one("h1").text == "Expire 1 memory at once?"
    assert question.one(attrs={"data-people": True}).text == "1 person"
    assert "Within 15 minutes OnFile deletes it for good" in question.text
    assert question.one("a", {"data-action": "back"})["href"] == "/admin/organisation"
    setting = await services.expiry.lifetime_setting(LENA)
    assert setting is not None
    assert (setting.days, setting.chosen) == (None, False), "asking changes nothing"
    assert {r.id for r in await services.provider.list(scopes=["actor:ada"], ctx=ScopeContext(actor=ADA))} == {
        concluded,
        stated,
    }


async def test_confirming_a_lifetime_expires_them_says_how_many_and_the_trail_keeps_the_count(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    concluded, stated = await ada_has_old_conclusions(services)
    token = await login_as(LENA)
    asked = tree(await client.post("/admin/organisation/lifetime", data={"csrf_token": token, "days": "30"}))
    form = asked.one("form", {"action": "/admin/organisation/lifetime"})
    sent = {field["name"]: field["value"] for field in form.find_all("input")}

    saved = await client.post("/admin/organisation/lifetime", data=sent, follow_redirects=False)

    assert saved.status_code == 303
    page = tree(await client.get("/admin/organisation"))
    notice = page.one(attrs={"data-notice": "done"})
    assert notice.one("p", {"class": "notice-message"}).text == (
        "Saved: what the assistant concludes is now kept for 30 days after the person last kept them or the "
        "assistant last wrote them. 1 memory about 1 person expired at once."
    )
    assert notice["tabindex"] == "-1"
    [entry] = [e for e in await services.audit.at_scopes(["tenant:berlin"]) if e.action == "lifetime"]
    assert entry.after == {"concludedLifetimeDays": 30, "expiredAtOnce": 1}
    audit = " ".join(tree(await client.get("/admin/audit")).text.split())
    assert "; 1 memory it had concluded expired at once" in audit
    await login_as(ADA)
    expired = tree(await client.get("/")).one("li", {"data-entry": concluded}).find(attrs={"data-expiry": "expired"})
    assert expired is not None, "still on her page, where she can keep it until it is pruned"
    assert tree(await client.get("/")).one("li", {"data-entry": stated}).find(attrs={"data-expiry": True}) is None


async def test_a_lifetime_confirmed_for_another_count_than_now_expires_is_asked_again_with_the_new_count(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    await ada_has_old_conclusions(services)
    token = await login_as(LENA)
    form = {"csrf_token": token, "days": "30", "confirmed": "yes"}

    fewer = await client.post("/admin/organisation/lifetime", data={**form, "expect": "0"})
    more = await client.post("/admin/organisation/lifetime", data={**form, "expect": "5"})
    forged = await client.post("/admin/organisation/lifetime", data={**form, "expect": "one"})

    for answer in (fewer, more, forged):
        assert answer.status_code == 200
        assert tree(answer).one(attrs={"data-confirm-lifetime": True}).find(attrs={"data-changed": True}) is not None
    setting = await services.expiry.lifetime_setting(LENA)
    assert setting is not None
    assert setting.chosen is False


async def test_a_lifetime_that_expires_nothing_at_once_is_saved_without_a_question(
    client: Client, services: Services, login_as: LoginAs
) -> None:
    await ada_has_notes(services)
    await services.people.note(ADA)

    assert await organisation_keeps_for(client, login_as, "30") == 303

    notice = tree(await client.get("/admin/organisation")).one(attrs={"data-notice": "done"})
    assert notice.text.strip().startswith("Saved: what the assistant concludes is now kept for 30 days")
    assert "expired at once" not in notice.text
