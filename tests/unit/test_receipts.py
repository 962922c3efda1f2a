"""The deletion receipt: which places each act reports, in order, and what each line says."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from store.domain.receipts import Act, Removal, deletion_receipt

T = datetime(2026, 12, 1, 9, tzinfo=UTC)
BASE = ("memories", "search-index", "vectors", "journal", "audit")


@pytest.mark.parametrize(
    ("act", "removal", "places"),
    [
        ("forget", Removal(1, 1, 1, 0), BASE),
        ("forget", Removal(2, 1, 2, 0, undo_kept=2), (*BASE, "undo")),
        ("forget-all", Removal(3, 3, 3, 1, waiting=2), (*BASE, "waiting")),
        ("erasure", Removal(3, 0, 3, 4, journal_removed=5), (*BASE, "waiting", "conversations", "sessions")),
    ],
)
def test_each_act_reports_its_places_in_a_fixed_order(act: Act, removal: Removal, places: tuple[str, ...]) -> None:
    receipt = deletion_receipt(act, "ada", T, removal, retention_hours=48)

    assert tuple(line.place for line in receipt.lines) == places
    assert (receipt.act, receipt.person, receipt.at, receipt.removal) == (act, "ada", T, removal)


@pytest.mark.parametrize(
    ("act", "removal", "place", "removed", "kept", "words"),
    [
        ("forget", Removal(1, 0, 1, 0), "memories", 1, 0, "1 memory deleted."),
        ("forget-all", Removal(1_200, 0, 0, 0), "memories", 1_200, 0, "1,200 memories deleted."),
        ("forget", Removal(1, 0, 1, 0), "search-index", 1, 0, "1 search index entry deleted."),
        ("forget", Removal(2, 2, 1, 0), "vectors", 2, 0, "2 meaning vectors deleted."),
        ("forget", Removal(1, 1, 1, 3), "audit", 3, 0, "3 audit trail entries cleared of the text."),
        ("forget", Removal(1, 1, 1, 0), "journal", 0, 0, "No conversation in progress holds it."),
        ("forget", Removal(300, 0, 0, 0), "journal", 0, 0, "No conversation in progress holds them."),
        (
            "forget",
            Removal(2, 0, 0, 0, journal_kept=1),
            "journal",
            0,
            1,
            "1 conversation turn in progress still holds them until they finish, at most 48 hours; "
            "then they are deleted.",
        ),
        (
            "forget",
            Removal(1, 1, 1, 0, journal_kept=2),
            "journal",
            0,
            2,
            "2 conversation turns in progress still hold it until they finish, at most 48 hours; then it is deleted.",
        ),
        (
            "erasure",
            Removal(1, 1, 1, 0, journal_removed=1),
            "journal",
            1,
            0,
            "1 journal entry of conversations deleted.",
        ),
        ("forget-all", Removal(0, 0, 0, 0, waiting=1), "waiting", 1, 0, "1 note waiting for approval deleted."),
        (
            "forget",
            Removal(1, 1, 1, 0, undo_kept=1),
            "undo",
            0,
            1,
            "1 memory kept encrypted for ten minutes, with any vector made of them, so the forget can be undone; "
            "only your browser holds the key.",
        ),
        ("erasure", Removal(0, 0, 0, 0, conversations=2), "conversations", 2, 0, "2 conversation records deleted."),
        ("erasure", Removal(0, 0, 0, 0, sessions=1), "sessions", 1, 0, "1 session signed out."),
    ],
)
def test_each_line_says_how_many_went_and_how_many_stay(
    act: Act, removal: Removal, place: str, removed: int, kept: int, words: str
) -> None:
    line = deletion_receipt(act, "ada", T, removal, retention_hours=48).line(place)

    assert line is not None
    assert (line.removed, line.kept, line.words) == (removed, kept, words)


def test_a_place_an_act_does_not_reach_has_no_line() -> None:
    assert deletion_receipt("forget", "ada", T, Removal(1, 1, 1, 0), retention_hours=48).line("sessions") is None
