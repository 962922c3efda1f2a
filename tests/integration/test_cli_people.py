"""`onfile people move`: the one way besides a person's own sign-in to change their organisation,
audited at the organisation they leave and the one they join."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from store import Actor
from store.persistence import AuditTrail, KnownPeople, open_engine, upgrade
from web.cli import main

URL = "sqlite+aiosqlite:///onfile.sqlite3"


@pytest.fixture(autouse=True)
def _a_database_knowing_ada(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ONFILE_DATABASE_URL", URL)
    monkeypatch.setenv("ONFILE_EMBEDDER", "none")

    async def seed() -> None:
        await upgrade(URL)
        engine = open_engine(URL)
        await KnownPeople(engine).note(Actor("ada", "berlin", ("staff",)))
        await engine.dispose()

    asyncio.run(seed())


def known_and_audited() -> tuple[Actor | None, list[tuple[str, str, str, object]]]:
    async def read() -> tuple[Actor | None, list[tuple[str, str, str, object]]]:
        engine = open_engine(URL)
        try:
            entries = await AuditTrail(engine).at_scopes(["global", "tenant:berlin", "tenant:hamburg"])
            return await KnownPeople(engine).find("ada"), [(e.who, e.action, e.scope, e.after) for e in entries]
        finally:
            await engine.dispose()

    return asyncio.run(read())


def test_moving_a_person_is_audited_at_both_organisations(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["people", "move", "ada", "--to", "hamburg", "--by", "ops-anna"]) == 0

    said = capsys.readouterr()
    assert said.out == (
        "ada is in organisation hamburg, moved from organisation berlin; the move is in the audit trail of the "
        "organisations concerned\n"
    )
    assert "nobody else is known in organisation hamburg: if that is not a new organisation, check" in said.err
    person, audited = known_and_audited()
    assert person == Actor("ada", "hamburg", ("staff",))
    after = {"person": "ada", "from": "berlin", "to": "hamburg", "by": "operator"}
    assert sorted(audited, key=lambda a: a[2]) == [
        ("ops-anna", "move", "tenant:berlin", after),
        ("ops-anna", "move", "tenant:hamburg", after),
    ]


def test_moving_a_person_to_the_organisation_they_are_in_says_nothing_changed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["people", "move", "ada", "--to", "berlin", "--by", "ops-anna"]) == 0

    assert "ada is in organisation berlin already; nothing changed" in capsys.readouterr().out
    assert known_and_audited() == (Actor("ada", "berlin", ("staff",)), [])


def test_moving_to_no_organisation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["people", "move", "ada", "--to-none", "--by", "ops-anna"]) == 0

    assert "ada is in no organisation" in capsys.readouterr().out
    assert known_and_audited()[0] == Actor("ada", None, ("staff",))


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["people", "move", "zoe", "--to", "hamburg", "--by", "ops"], "nobody with the id 'zoe' is known"),
        (["people", "move", "ada", "--to", "ham\u200bburg", "--by", "ops"], "the organisation contains an invisible"),
        (["people", "move", "ada ", "--to", "hamburg", "--by", "ops"], "the person's id starts or ends with a space"),
    ],
)
def test_a_move_that_cannot_be_made_is_one_line_and_changes_nothing(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)

    assert exited.value.code == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert said in err
    assert known_and_audited() == (Actor("ada", "berlin", ("staff",)), [])


def test_moving_someone_where_others_are_known_raises_no_doubt_about_the_spelling(
    capsys: pytest.CaptureFixture[str],
) -> None:
    async def another_in_hamburg() -> None:
        engine = open_engine(URL)
        await KnownPeople(engine).note(Actor("jonas", "hamburg"))
        await engine.dispose()

    asyncio.run(another_in_hamburg())

    assert main(["people", "move", "ada", "--to", "hamburg", "--by", "ops-anna"]) == 0

    assert capsys.readouterr().err == ""
