"""`onfile demo` shows a turn, a refused essay, a stored fact and the next turn carrying it."""

from __future__ import annotations

import pytest

from web.cli import main


def test_the_demo_prints_two_turns_around_a_remember_call(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--turn"]) == 0

    out = capsys.readouterr().out
    first, second = out.split("Turn 2:")
    assert "scopes: actor:ada, tenant:berlin, global" in first
    assert "- [actor:ada] units: she wants road distances in miles for the UK depots" in first
    assert "    ↳ [global] a person stated: report distances in kilometres" in first
    assert "the limit is 240" in first
    assert "tenant:hamburg" not in out
    assert "lunch: takes lunch at noon" not in first.split("</memory>")[0]
    assert "- [actor:ada] lunch: takes lunch at noon" in second


def test_the_demo_with_turn_text_carries_everything_when_everything_fits(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--turn", "--text", "how far is the depot?"]) == 0

    first = capsys.readouterr().out.split("Turn 2:")[0]
    assert "This is a selection" not in first
    assert "pallet-labels" in first
    assert "manifest-required" in first
    assert "units: she wants road distances in miles for the UK depots" in first
