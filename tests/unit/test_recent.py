"""What was last made from what was last read: only an equal read gives the kept value back."""

from __future__ import annotations

import pytest

from store.domain.recent import Recent

MADE = object()


@pytest.mark.parametrize(
    ("kept", "asked", "read", "found"),
    [
        ([("run_1", "text")], "run_1", "text", True),
        ([("run_1", "text")], "run_1", "other text", False),
        ([("run_1", "text")], "run_2", "text", False),
        ([], "run_1", "text", False),
        ([("run_1", "old"), ("run_1", "text")], "run_1", "text", True),
        ([("run_1", "text"), ("run_1", "new")], "run_1", "text", False),
    ],
)
def test_a_kept_value_comes_back_only_for_its_key_and_an_equal_read(
    kept: list[tuple[str, str]], asked: str, read: str, found: bool
) -> None:
    recent: Recent[str, str, object] = Recent(4, setting="kept")
    for key, was_read in kept:
        recent.keep(key, was_read, MADE)
    assert (recent.same(asked, read) is MADE) is found


def test_past_its_size_the_least_recently_asked_key_goes_first() -> None:
    recent: Recent[str, str, str] = Recent(2, setting="kept")
    recent.keep("a", "read a", "made a")
    recent.keep("b", "read b", "made b")
    assert recent.same("a", "read a") == "made a"  # asked: now the most recent
    recent.keep("c", "read c", "made c")
    assert (recent.same("a", "read a"), recent.same("b", "read b"), recent.same("c", "read c")) == (
        "made a",
        None,
        "made c",
    )
    assert len(recent) == 2


def test_a_size_of_none_keeps_nothing_and_a_negative_one_is_refused_by_its_setting_s_name() -> None:
    nothing: Recent[str, str, str] = Recent(0, setting="kept")
    nothing.keep("a", "read", "made")
    assert (nothing.same("a", "read"), len(nothing)) == (None, 0)
    with pytest.raises(ValueError, match="recent_answers cannot be negative, not -1"):
        Recent(-1, setting="recent_answers")
