"""When each memory was used: the last use and the turns within the window, from the journal's uses
and the counts pruning kept, for exactly the memories asked about."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from store.domain.usage import USAGE_WINDOW, Counted, Usage, Use, usage_of

NOW = datetime(2026, 12, 5, 12, tzinfo=UTC)
HOUR = timedelta(hours=1)


def counted(memory_id: str, days_ago: int, turns: int, thread: str | None = "thr_old") -> Counted:
    at = NOW - timedelta(days=days_ago)
    return Counted(memory_id, at.date(), turns, at, thread)


@pytest.mark.parametrize(
    ("uses", "counts", "expected"),
    [
        ([], [], Usage()),
        ([Use("m", NOW - HOUR, "thr_1")], [], Usage(NOW - HOUR, "thr_1", 1)),
        (
            [Use("m", NOW - 2 * HOUR, "thr_1"), Use("m", NOW - HOUR, "thr_2"), Use("m", NOW - 3 * HOUR, None)],
            [],
            Usage(NOW - HOUR, "thr_2", 3),
        ),
        ([], [counted("m", 3, 4)], Usage(NOW - timedelta(days=3), "thr_old", 4)),
        ([Use("m", NOW - HOUR, "thr_1")], [counted("m", 3, 4)], Usage(NOW - HOUR, "thr_1", 5)),
        ([], [counted("m", 45, 9)], Usage(NOW - timedelta(days=45), "thr_old", 0)),
        ([Use("m", NOW - USAGE_WINDOW - HOUR, None)], [], Usage(NOW - USAGE_WINDOW - HOUR, None, 0)),
        ([Use("other", NOW, "thr_9")], [counted("other", 1, 2)], Usage()),
    ],
    ids=[
        "never",
        "one turn",
        "the latest turn names the conversation",
        "counted only",
        "journal and counts add up",
        "a count older than the window is a last use but no turn",
        "a turn older than the window",
        "another memory's use",
    ],
)
def test_usage_adds_the_journal_and_the_counts_within_the_window(
    uses: list[Use], counts: list[Counted], expected: Usage
) -> None:
    assert usage_of(["m"], uses, counts, NOW) == {"m": expected}


def test_a_day_the_window_starts_in_counts_whole() -> None:
    start = (NOW - USAGE_WINDOW).date()
    day = Counted("m", start, 2, datetime(start.year, start.month, start.day, 1, tzinfo=UTC), None)

    assert usage_of(["m"], [], [day], NOW)["m"].turns == 2
    assert (
        usage_of(["m"], [], [Counted("m", start - timedelta(days=1), 2, day.last_used_at, None)], NOW)["m"].turns == 0
    )


def test_every_memory_asked_about_gets_its_usage_and_never_says_so() -> None:
    found = usage_of(["a", "b"], [Use("a", NOW, None)], [], NOW)

    assert list(found) == ["a", "b"]
    assert (found["a"].never, found["b"].never) == (False, True)
