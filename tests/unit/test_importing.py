"""The rules of importing a person's own export: what each line would do, and what stops the import."""

from __future__ import annotations

import json

import pytest

from store.domain.importing import IMPORT_AT_MOST_BYTES, IMPORT_AT_MOST_LINES, ImportLine, ImportPlan, plan_import

CURRENT = {"units": "kilometres", "tone": "short answers"}
NOT_AN_EXPORT = "This is not an OnFile export: choose the JSON file your page's “Download as JSON” gives."
THE_CSV_DOWNLOAD = (
    "This is your page's CSV download, which is for reading in a spreadsheet: to import, choose the JSON file "
    "“Download as JSON” gives."
)


def plan(lines: object, current: dict[str, str] = CURRENT, max_fact_chars: int = 40) -> ImportPlan:
    return plan_import(json.dumps(lines), current, max_fact_chars=max_fact_chars)


def test_each_line_adds_replaces_or_is_already_on_file() -> None:
    found = plan(
        [
            {"key": "team", "text": "dispatch"},
            {"key": "units", "text": "miles", "scope": "actor:ada", "pinned": False},
            {"key": " tone ", "text": "short answers "},
        ]
    )

    assert found.lines == (
        ImportLine(1, "team", "dispatch", "add"),
        ImportLine(2, "units", "miles", "replace", old="kilometres"),
        ImportLine(3, "tone", "short answers", "same", old="short answers"),
    )
    assert [line.key for line in found.writes] == ["team", "units"]
    assert found.applicable


def test_a_fact_held_for_others_is_left_out_and_never_stops_the_import() -> None:
    found = plan([{"key": "manifest", "text": "printed", "scope": "tenant:berlin"}, {"key": "team", "text": "x"}])

    assert found.lines[0] == ImportLine(
        1, "manifest", "printed", "shared", reason="Held for others, not a note of yours, so it is left as it is."
    )
    assert found.applicable


def test_a_fact_held_for_others_shares_its_key_with_a_line_of_the_persons_own_without_stopping_it() -> None:
    found = plan([{"key": "tone", "text": "formal", "scope": "tenant:berlin"}, {"key": "tone", "text": "brief"}])

    assert [line.action for line in found.lines] == ["shared", "replace"]
    assert found.applicable


def test_notes_exported_for_someone_else_are_imported_and_named() -> None:
    lines = [
        {"key": "team", "text": "dispatch", "scope": "actor:max"},
        {"key": "manifest", "text": "printed", "scope": "tenant:berlin"},
        {"key": "depot", "text": "north", "scope": "actor:max"},
        {"key": "shift", "text": "early", "scope": "actor:ada"},
        {"key": "units", "text": "miles"},
    ]

    found = plan_import(json.dumps(lines), CURRENT, max_fact_chars=40, own_scope="actor:ada")

    assert found.others == ("max",)
    assert [line.key for line in found.writes] == ["team", "depot", "shift", "units"]
    assert plan_import(json.dumps(lines), CURRENT, max_fact_chars=40).others == ()


@pytest.mark.parametrize(
    ("item", "reason"),
    [
        ("units", "This line is not a memory (an object with a key and a text)."),
        (["units", "miles"], "This line is not a memory (an object with a key and a text)."),
        ({"key": "units"}, "This line needs a key and a text."),
        ({"key": 7, "text": "miles"}, "This line needs a key and a text."),
        ({"key": "", "text": "miles"}, "The key is empty. Give a key and try again."),
        (
            {"key": "units", "text": "x" * 41},
            "The fact is 41 characters long; the limit is 40. State it in one shorter sentence.",
        ),
        ({"key": "units", "text": "miles\nand more"}, None),
    ],
)
def test_a_line_that_cannot_be_imported_says_why_and_stops_the_import(item: object, reason: str | None) -> None:
    found = plan([{"key": "team", "text": "dispatch"}, item])

    [error] = found.errors
    assert error.number == 2
    assert error.action == "error"
    if reason is not None:
        assert error.reason == reason
    else:
        assert error.reason
    assert not found.applicable


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ('{"key": "units", "text": "cut \\ud83d emoji"}', ("units", "cut \ufffd emoji", "error")),
        ('{"key": "unit\\udc00s", "text": "miles"}', ("unit\ufffds", "miles", "error")),
        ('{"key": "\\ud800", "text": "miles", "scope": "global"}', ("\ufffd", "miles", "shared")),
    ],
)
def test_half_of_a_character_that_takes_two_is_refused_and_shown_as_a_replacement_character(
    line: str, shown: tuple[str, str, str]
) -> None:
    found = plan_import(f'[{{"key": "team", "text": "dispatch"}}, {line}]', CURRENT, max_fact_chars=40)

    second = found.lines[1]
    assert (second.key, second.text, second.action) == shown
    if second.action == "error":
        assert "half of a character that takes two" in second.reason
        assert not found.applicable


def test_a_key_twice_in_the_file_is_an_error_on_its_second_line() -> None:
    found = plan([{"key": "team", "text": "a"}, {"key": "team", "text": "b"}])

    assert found.lines[1] == ImportLine(2, "team", "b", "error", reason="This key is in the file twice.")
    assert not found.applicable


@pytest.mark.parametrize(
    ("current", "key", "error"),
    [
        ({"مرحبا": "a"}, "مر\u200cحبا", True),
        ({"مرحبا": "a"}, "مرحبا", False),
        ({}, "مرحبا", False),
    ],
)
def test_a_key_that_reads_like_another_but_differs_in_invisible_characters_cannot_be_imported(
    current: dict[str, str], key: str, error: bool
) -> None:
    found = plan([{"key": key, "text": "b"}], current=current)

    assert bool(found.errors) is error
    if error:
        assert found.errors[0].reason.startswith("This key reads exactly like “مرحبا” but differs in invisible")


def test_a_file_with_nothing_new_has_nothing_to_apply() -> None:
    assert not plan([{"key": "units", "text": "kilometres"}]).applicable


@pytest.mark.parametrize(
    ("document", "error"),
    [
        ("not json", NOT_AN_EXPORT),
        pytest.param(
            "\ufeffid,key,fact,scope\r\nm_1,units,miles,actor:ada\r\n", THE_CSV_DOWNLOAD, id="the-csv-download"
        ),
        pytest.param('\n"ID";"Key";"Fact";"applies_to"\r\nm_1;units;miles;you\r\n', THE_CSV_DOWNLOAD, id="saved-again"),
        pytest.param("id\tkey\tfact\tapplies_to\n", THE_CSV_DOWNLOAD, id="tab-separated"),
        pytest.param("id,key,text\n", NOT_AN_EXPORT, id="another-csv"),
        ('{"key": "units", "text": "miles"}', NOT_AN_EXPORT),
        ("[]", "The file holds no memories."),
        (
            json.dumps([{"key": "k", "text": "t"}] * (IMPORT_AT_MOST_LINES + 1)),
            f"The file holds {IMPORT_AT_MOST_LINES + 1:,} memories; import at most {IMPORT_AT_MOST_LINES:,} at once.",
        ),
        ("[" + " " * IMPORT_AT_MOST_BYTES + "]", "The file is larger than 2 MB: import it in parts."),
        pytest.param("[" * 100_000 + "]" * 100_000, NOT_AN_EXPORT, id="nested-deeper-than-json-decodes"),
        pytest.param('{"a":' * 100_000 + "1" + "}" * 100_000, NOT_AN_EXPORT, id="objects-nested-as-deep"),
    ],
)
def test_a_file_that_is_not_an_export_is_refused_whole(document: str, error: str) -> None:
    found = plan_import(document, CURRENT, max_fact_chars=40)

    assert (found.lines, found.error, found.applicable) == ((), error, False)
