"""The example agent loop runs, and shows what it claims: an identical replay and a single write."""

from __future__ import annotations

from pathlib import Path

import pytest

from examples.agent_loop import main


async def test_the_example_crashes_replays_identically_and_writes_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert await main(tmp_path) == 0

    out = capsys.readouterr().out
    assert "The replay saw the identical prompt: True" in out
    assert "Facts stored for ada: 1" in out
